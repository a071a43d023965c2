//! Sensitive data on the shell (RBV-SH-014): Rule-of-Two's second boolean.
//! A command touches secrets when it reads, prints, copies, links or
//! archives a file that holds them (also through a glob or brace pattern
//! that can name one), prints the environment or the shell history, or
//! expands a variable whose name says it holds a credential. Touching is
//! not a band by itself: it counts with the other two booleans of the run.

use globset::GlobBuilder;

use super::argv::is_sensitive;
use super::word::Arg;
use crate::mutant::Mutant;

/// Why `name args` touches sensitive data, if it does.
pub fn touched(mutant: Option<Mutant>, name: &str, args: &[Arg]) -> Option<String> {
    if let Some(var) = args.iter().find_map(|a| secret_variable(&a.text)) {
        return Some(format!("expands `${var}`, which holds a credential"));
    }
    let reads_only = mutant == Some(Mutant::SensitiveReadsOnly);
    if let Some(why) = dump(name, args).filter(|_| !reads_only) {
        return Some(why.to_owned());
    }
    if reads_only && !PRINTERS.contains(&name) {
        return None;
    }
    let paths: Vec<&Arg> = match name {
        // Their words are messages, or text printed as it is.
        "gh" | "echo" | "printf" | "env" => return None,
        "git" => git_paths(args),
        _ => args.iter().collect(),
    };
    paths
        .into_iter()
        .find(|a| names_secret(a))
        .map(|a| format!("`{}` holds secrets", a.text))
}

/// Programs that print a file (the only ones the `sensitive-reads-only`
/// mutant still sees).
#[rustfmt::skip]
const PRINTERS: &[&str] = &[
    "cat", "less", "more", "head", "tail", "bat", "batcat", "grep", "rg", "strings", "xxd",
    "od", "hexdump", "base64", "nl", "tac", "awk", "sed", "jq",
];

/// Commands that print the environment, the shell's variables or its history.
fn dump(name: &str, args: &[Arg]) -> Option<&'static str> {
    let bare = args.is_empty();
    let flag = |f: &str| args.iter().any(|a| a.text == f);
    match name {
        // `printenv NAME` prints only the named variables.
        "printenv"
            if !bare
                && args
                    .iter()
                    .all(|a| a.resolved && PLAIN_VARS.contains(&a.text.as_str())) =>
        {
            None
        }
        "printenv" => Some("the environment holds tokens"),
        "set" if bare => Some("`set` prints every shell variable, the environment's tokens too"),
        "export" | "declare" | "typeset" | "readonly" if bare || flag("-p") || flag("-x") => {
            Some("printing the shell's variables prints the environment's tokens")
        }
        "history" => Some("the shell history holds what was typed, secrets too"),
        "fc" if flag("-l") => Some("the shell history holds what was typed, secrets too"),
        // BSD-style `ps e`/`ps auxe`/`ps eww` prints each process's environment.
        "ps" if args
            .iter()
            .any(|a| !a.text.starts_with('-') && a.text.contains('e')) =>
        {
            Some("`ps e` prints the environment of processes")
        }
        "getent"
            if args
                .first()
                .is_some_and(|a| matches!(a.text.as_str(), "shadow" | "gshadow" | "passwd")) =>
        {
            Some("`getent` prints the account databases")
        }
        _ => None,
    }
}

/// Variables that hold no credential.
#[rustfmt::skip]
const PLAIN_VARS: &[&str] = &[
    "HOME", "PATH", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "LANG", "LC_ALL", "TERM",
    "EDITOR", "VISUAL", "PAGER", "TMPDIR", "HOSTNAME", "TZ", "DISPLAY", "XDG_CONFIG_HOME",
    "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "GOPATH", "CARGO_HOME", "RUSTUP_HOME",
    "JAVA_HOME", "NODE_ENV", "VIRTUAL_ENV", "CI", "SHLVL",
];

/// A `$NAME`/`${NAME…}` whose name says it holds a credential.
fn secret_variable(text: &str) -> Option<&str> {
    const MARKS: &[&str] = &[
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "API_KEY",
        "APIKEY",
        "PRIVATE_KEY",
        "ACCESS_KEY",
        "CREDENTIAL",
        "DATABASE_URL",
        "AUTH",
    ];
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        let after = rest[at + 1..].trim_start_matches('{');
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let var = &after[..len];
        if MARKS.iter().any(|m| var.to_ascii_uppercase().contains(m)) {
            return Some(var);
        }
        rest = &after[len..];
    }
    None
}

/// The words of a git command that name files: not the values of message,
/// search and format options; `REV:path` names `path`.
fn git_paths(args: &[Arg]) -> Vec<&Arg> {
    const VALUED: &[&str] = &[
        "-m",
        "--message",
        "--grep",
        "--author",
        "--committer",
        "-S",
        "-G",
        "--format",
        "--pretty",
        "-c",
        "-C",
        "-b",
        "-B",
    ];
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if std::mem::take(&mut skip) {
            continue;
        }
        let t = a.text.as_str();
        if VALUED.contains(&t) {
            skip = true;
        } else if !t.starts_with('-') {
            out.push(a);
        }
    }
    out
}

/// Whether a word names a secret, literally or as a pattern that can match one.
pub(super) fn names_secret(a: &Arg) -> bool {
    // `${f:-/etc/shadow}` may expand to its default word.
    if let Some(text) = super::word::default_word(&a.text) {
        if names_secret(&Arg { text, ..a.clone() }) {
            return true;
        }
    }
    let path = a
        .text
        .rsplit_once(':')
        .filter(|(rev, _)| !rev.contains('/') && !rev.is_empty())
        .map_or(a.text.as_str(), |(_, p)| p);
    if is_sensitive(path) || is_sensitive(&a.text) {
        return true;
    }
    a.pattern && (pattern_names_secret(path) || pattern_names_secret(&a.text))
}

/// Representative paths of secrets, for glob and brace patterns.
const SAMPLES: &[&str] = &[
    "~/.ssh/id_rsa",
    "~/.ssh/id_ed25519",
    "~/.aws/credentials",
    "~/.netrc",
    "~/.git-credentials",
    "~/.kube/config",
    "~/.docker/config.json",
    "~/.pgpass",
    "~/.npmrc",
    "~/.pypirc",
    "~/.bash_history",
    "~/.zsh_history",
    "~/.config/gcloud/application_default_credentials.json",
    "/etc/shadow",
    "/etc/passwd",
    "app/.env",
    "app/.env.local",
    "app/server.key",
    "app/server.pem",
];

/// Whether the pattern can match a representative secret: an absolute or
/// home pattern against whole paths, a relative one against their tails.
pub fn pattern_names_secret(pattern: &str) -> bool {
    let pattern = pattern
        .strip_prefix("$HOME")
        .or_else(|| pattern.strip_prefix("${HOME}"))
        .map_or_else(|| pattern.to_owned(), |rest| format!("~{rest}"));
    let Ok(glob) = GlobBuilder::new(&pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
    else {
        return false;
    };
    let glob = glob.compile_matcher();
    let anchored = pattern.starts_with(['/', '~']);
    let depth = pattern.trim_end_matches('/').split('/').count();
    SAMPLES.iter().any(|sample| {
        if anchored {
            return glob.is_match(sample);
        }
        let parts: Vec<&str> = sample.split('/').collect();
        parts.len() >= depth && glob.is_match(parts[parts.len() - depth..].join("/"))
    })
}
