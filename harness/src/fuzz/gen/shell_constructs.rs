//! The bash constructs a command can run inside: compound commands,
//! function bodies, coprocesses, the words of `${…}` operators, arithmetic
//! and assignments that a command substitution expands in, redirections,
//! here-strings, expanding here-documents and process substitutions, and
//! the builtins that run a command or a word of code. Each form runs the
//! core it wraps when bash runs the line, so a line built here escalates
//! whenever its core does (RBV-SH-002, RBV-SH-003, RBV-SH-020): the
//! generator reaches the positions of the grammar where code can hide.

use arbitrary::{Result, Unstructured};

/// `core` inside one construct that runs it, and the construct's family.
pub fn wrap(u: &mut Unstructured, core: &str) -> Result<(String, &'static str)> {
    let s = format!("$( {core} )");
    let forms: [(&'static str, &dyn Fn() -> String); 44] = [
        ("compound-if", &|| format!("if true; then {core}; fi")),
        ("compound-if", &|| format!("if {core}; then :; else :; fi")),
        ("compound-while", &|| {
            format!("while {core}; do break; done")
        }),
        ("compound-until", &|| {
            format!("until {core}; do break; done")
        }),
        ("compound-for", &|| format!("for f in a b; do {core}; done")),
        ("compound-for", &|| {
            format!("for ((i = 0; i < 1; i++)); do {core}; done")
        }),
        ("compound-case", &|| format!("case x in x) {core} ;; esac")),
        ("compound-case", &|| {
            format!("case x in x) : ;& y) {core} ;; esac")
        }),
        ("compound-case", &|| {
            format!("case x in x) : ;;& *) {core} ;; esac")
        }),
        ("compound-brace", &|| format!("{{ {core}; }}")),
        ("function", &|| format!("f() {{ {core}; }}; f")),
        ("function", &|| {
            format!("function cleanup {{ {core}; }}; cleanup")
        }),
        ("coprocess", &|| format!("coproc {core}")),
        ("coprocess", &|| format!("coproc job {{ {core}; }}")),
        ("background", &|| format!("{core} &")),
        ("timed", &|| format!("time {core}")),
        ("timed", &|| format!("time -p {core}")),
        ("negated", &|| format!("! {core}")),
        ("or-list", &|| format!("false || {core}")),
        ("redirection", &|| format!("{core} > build.log 2>&1")),
        ("redirection", &|| format!("{core} >> build.log")),
        ("redirection", &|| format!("{core} &> build.log")),
        ("redirection", &|| format!("{core} < /dev/null")),
        ("redirection", &|| format!("{core} 2>/dev/null >&2")),
        ("redirection", &|| format!("{core} 0<&-")),
        ("here-string", &|| format!("{core} <<< yes")),
        ("expanding-heredoc", &|| format!("cat <<EOF\n{s}\nEOF")),
        ("expanding-heredoc", &|| format!("cat <<-EOF\n\t{s}\n\tEOF")),
        ("process-substitution", &|| format!("cat <({core})")),
        ("process-substitution", &|| format!("echo x > >({core})")),
        ("process-substitution", &|| format!("diff <(ls) <({core})")),
        ("expansion-operator", &|| format!("echo \"${{x:-{s}}}\"")),
        ("expansion-operator", &|| format!("echo \"${{x:={s}}}\"")),
        ("expansion-operator", &|| format!("echo \"${{PATH:+{s}}}\"")),
        ("expansion-operator", &|| {
            format!("echo \"${{PATH/usr/{s}}}\"")
        }),
        ("arithmetic", &|| format!("echo $(( {s} + 1 ))")),
        ("arithmetic", &|| format!("(( x = {s} ))")),
        ("arithmetic", &|| format!("[[ -n {s} ]]")),
        ("assignment", &|| format!("x={s}; echo \"$x\"")),
        ("assignment", &|| format!("files=({s})")),
        ("assignment", &|| format!("declare -r x={s}")),
        // `command A=1 rm` would look up a program named `A=1`: an
        // assignment prefix stays a prefix, in a brace group.
        ("builtin-runs", &|| {
            if core
                .split_whitespace()
                .next()
                .is_some_and(|w| w.contains('='))
            {
                format!("{{ {core}; }}")
            } else {
                format!("command {core}")
            }
        }),
        ("builtin-runs", &|| {
            format!("builtin eval \"{}\"", escape_dq(core))
        }),
        ("builtin-runs", &|| {
            format!("trap \"{}\" EXIT", escape_dq(core))
        }),
    ];
    let (family, form) = u.choose(&forms)?;
    Ok((form(), family))
}

/// `text` inside double quotes: what is special there escaped, so that
/// the builtin receives `text` as its word.
fn escape_dq(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
