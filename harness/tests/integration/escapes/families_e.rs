//! Round 3 of the unplanted bug families: the workspace model's
//! directory stack, tilde-prefixes and default words, and pip's package
//! sources. Each is a client that reads one construct the way a simpler
//! model of bash or pip would.

use super::c::sees;
use super::*;

/// The text after the last `popd`, `cd -`, `cd "$OLDPWD"` or `pushd ±N`:
/// what a client that takes those back to the workspace judges.
fn after_stack_return(c: &str) -> Option<String> {
    static R: LazyLock<Regex> = LazyLock::new(|| {
        re(r#"(popd(\s+[+-]\d+)?|cd\s+(-|"?\$\{?OLDPWD\}?"?|~-)|pushd\s+[+-]\d+)\s*(&&|;|\|\|)\s*"#)
    });
    let last = R.find_iter(c).last()?;
    Some(c[last.end()..].to_owned())
}

/// `~login/…` as a relative name: tilde expansion for `~` alone.
fn tilde_login_relative(c: &str) -> Option<String> {
    static T: LazyLock<Regex> = LazyLock::new(|| re(r"(^|[\s=:>])~([A-Za-z_][A-Za-z0-9._-]*)/"));
    T.is_match(c)
        .then(|| T.replace_all(c, "${1}./~${2}/").into_owned())
}

/// `${name:-word}` (and `-`, `:=`, `=`, `:+`, `+`) as `$name`: the
/// default word ignored.
fn default_word_dropped(c: &str) -> Option<String> {
    static D: LazyLock<Regex> = LazyLock::new(|| re(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?[-=+][^}]*\}"));
    D.is_match(c).then(|| D.replace_all(c, "$$$1").into_owned())
}

/// pip's package-source options (any spelling) removed with their value.
pub fn pip_sources_dropped(c: &str) -> Option<String> {
    static P: LazyLock<Regex> =
        LazyLock::new(|| re(r"\s(-i|-f|--(index|extra|find|trusted)[a-z-]*)(=\S+|\s+\S+)"));
    (c.contains("pip") && P.is_match(c)).then(|| P.replace_all(c, "").into_owned())
}

/// `compgen`/`complete -W WORDLIST` with the wordlist read as a literal
/// list of words: a client that does not know bash expands it.
fn wordlist_literal(c: &str) -> Option<String> {
    static W: LazyLock<Regex> =
        LazyLock::new(|| re(r#"\b(compgen|complete)\s+-W\s*('[^']*'|"[^"]*"|\S+)"#));
    W.is_match(c)
        .then(|| W.replace_all(c, "$1 -W 'words'").into_owned())
}

/// `git ls-remote ADDRESS` as a local read: its repository dropped, as a
/// client that lists ls-remote among git's reads would see it.
fn ls_remote_local(c: &str) -> Option<String> {
    static L: LazyLock<Regex> = LazyLock::new(|| re(r"\bgit\s+ls-remote\b[^;&|]*"));
    L.is_match(c)
        .then(|| L.replace_all(c, "git ls-remote ").into_owned())
}

/// Every call of a function the command defines with its words dropped:
/// a client that judges a body only as written, its positional
/// parameters never bound to what a call passes.
fn calls_without_words(c: &str) -> Option<String> {
    static DEF: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?:^|[;&|{(]\s*)(?:function\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*\(\)"));
    let mut out = c.to_owned();
    for name in DEF.captures_iter(c).map(|m| m[1].to_owned()) {
        let call = re(&format!(r"(^|[;&|]\s*){name}\s+[^(;&|\s][^;&|]*"));
        out = call.replace_all(&out, format!("${{1}}{name}")).into_owned();
    }
    (out != c).then_some(out)
}

/// The repository of every other git subcommand that contacts one read as
/// a configured remote: a client that judges fetch, pull, clone, archive
/// and submodule add by the subcommand alone (a push to `origin` still
/// prompts, so push rows keep their band under this client).
fn contacted_as_configured(c: &str) -> Option<String> {
    static C: LazyLock<Regex> =
        LazyLock::new(|| re(r"\bgit\s+(fetch|pull|clone|archive|push|submodule\s+add)\b[^;&|]*"));
    C.is_match(c)
        .then(|| C.replace_all(c, "git $1 origin ").into_owned())
}

/// A remote's address set by configuration dropped: a client that follows
/// `git remote add`/`set-url` but not `git -c remote.NAME.url=…`,
/// `git config remote.NAME.url …` or the GIT_CONFIG_KEY_n environment.
fn remote_config_unfollowed(c: &str) -> Option<String> {
    static C: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)\s-c\s+remote\.[^=\s]+\.(?:push)?url=\S+"));
    static CONFIG: LazyLock<Regex> = LazyLock::new(|| {
        re(r"(?i)\bgit\s+config\s+[^;&|]*\bremote\.[^\s.]+\.(?:push)?url\b[^;&|]*")
    });
    static ENV: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)GIT_CONFIG_KEY_(\d+)=remote\.\S+"));
    let out = C.replace_all(c, "");
    let out = CONFIG.replace_all(&out, "git config user.name x ");
    let out = ENV.replace_all(&out, "GIT_CONFIG_KEY_$1=user.name");
    (out != c).then(|| out.into_owned())
}

/// Only the first repository operand judged: `--all`, `--multiple`,
/// `git remote update` and a fetch, pull or push that names no remote
/// read as contacting nothing this command line set up.
fn first_operand_only(c: &str) -> Option<String> {
    static ALL: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"\bgit\s+(fetch|pull)\s+[^;&|]*--(?:all|multiple)\b[^;&|]*|\bgit\s+remote\s+update\b[^;&|]*",
        )
    });
    static BARE: LazyLock<Regex> =
        LazyLock::new(|| re(r"\bgit\s+(fetch|pull|push)((?:\s+-[^\s;&|]*)*)\s*($|[;&|])"));
    let out = ALL.replace_all(c, "git status ");
    let out = BARE.replace_all(&out, "git status $3");
    (out != c).then(|| out.into_owned())
}

/// A `perl -e` script judged by the shape of a substitution: a client that
/// recognises `s/…/…/` and never reads its flags, what its replacement
/// interpolates, its pattern's code blocks or the statements after it.
fn perl_substitution_shape(c: &str) -> Option<String> {
    static P: LazyLock<Regex> = LazyLock::new(|| re(r"(\bperl\b[^;&|]*?\s-[a-z]*e\s*)'s[^']*'"));
    P.is_match(c)
        .then(|| P.replace_all(c, "${1}'s/a/b/'").into_owned())
}

/// An argument spelled as an option whose name is known only at run time
/// read as an operand: a client that takes `"-$x"` for a file name, as it
/// takes `"$x"`.
fn run_time_option_as_operand(c: &str) -> Option<String> {
    static O: LazyLock<Regex> = LazyLock::new(|| re(r#"(\s)"-{1,2}(\$|`)"#));
    O.is_match(c)
        .then(|| O.replace_all(c, "${1}\"${2}").into_owned())
}

/// Every meta-command of a database client read as a printing one: a
/// client that knows `.tables` and `\dt` and takes any word starting
/// with `.` (sqlite3) or `\` (psql) for one of them, as a comment-like
/// aside to the SQL it judges.
fn meta_commands_as_listings(c: &str) -> Option<String> {
    static DOT: LazyLock<Regex> = LazyLock::new(|| re(r"'\.[^']*'|\s\.[a-z]+\b"));
    static SLASH: LazyLock<Regex> = LazyLock::new(|| re(r"'\\[^']*'"));
    let mut out = c.to_owned();
    if c.contains("sqlite3") {
        out = DOT.replace_all(&out, " '.tables'").into_owned();
    }
    if c.contains("psql") {
        out = SLASH.replace_all(&out, r"'\dt'").into_owned();
    }
    (out != c).then_some(out)
}

pub const ALL: &[Family] = &[
    family!(
        "shell: popd, cd - and pushd ±N go back to the workspace",
        "shell",
        ["shell/"],
        || blind("shell", after_stack_return)
    ),
    family!(
        "shell: ~login/… read as a relative name",
        "shell",
        ["shell/"],
        || blind("shell", tilde_login_relative)
    ),
    family!(
        "shell: a parameter's default word ignored",
        "shell",
        ["shell/"],
        || sees("shell", default_word_dropped)
    ),
    family!(
        "shell: a completion wordlist read as literal words",
        "shell",
        ["shell/"],
        || blind("shell", wordlist_literal)
    ),
    family!(
        "shell: git ls-remote read as a local read",
        "shell",
        ["shell/"],
        || blind("shell", ls_remote_local)
    ),
    family!(
        "shell: a function's body judged without the call's words",
        "shell",
        ["shell/"],
        || blind("shell", calls_without_words)
    ),
    family!(
        "shell: git fetch, pull, clone and archive judged without their address",
        "shell",
        ["shell/"],
        || blind("shell", contacted_as_configured)
    ),
    family!(
        "shell: a git remote's address set by configuration not followed",
        "shell",
        ["shell/"],
        || blind("shell", remote_config_unfollowed)
    ),
    family!(
        "shell: git fetch --all, --multiple, remote update and a default fetch judged by no remote",
        "shell",
        ["shell/"],
        || blind("shell", first_operand_only)
    ),
    family!(
        "shell: a perl substitution judged by its shape, not its code",
        "shell",
        ["shell/"],
        || sees("shell", perl_substitution_shape)
    ),
    family!(
        "shell: an option of run-time name read as an operand",
        "shell",
        ["shell/"],
        || sees("shell", run_time_option_as_operand)
    ),
    family!(
        "shell: a database client's meta-commands read as printing ones",
        "shell",
        ["shell/"],
        || blind("shell", meta_commands_as_listings)
    ),
];
