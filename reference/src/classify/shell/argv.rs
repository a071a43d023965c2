//! Reading argument vectors: options, operands, paths that hold secrets.

use super::word::Arg;

use super::syntax::{value_letters, Parser};

/// The operands after the leading options of `program`: skips option
/// words, the values of options listed in `with_value` (`-s`, `--signal`:
/// the next word unless the value is in the same word) and a `--`. Stops
/// at the first operand, so a wrapped command keeps its own options.
pub fn after_options<'a>(program: &str, args: &'a [Arg], with_value: &[&str]) -> &'a [Arg] {
    let (p, values) = (Parser::of(program), value_letters(program));
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if !arg.resolved {
            break;
        }
        if text == "--" {
            return &args[i + 1..];
        }
        if !p.is_option(text) {
            break;
        }
        let takes_next = with_value
            .iter()
            .any(|listed| spelled(p, program, values, text, listed) == Some(None));
        i += if takes_next { 2 } else { 1 };
    }
    args.get(i..).unwrap_or(&[])
}

/// Whether `word` spells the option `listed` of a program parsed by `p`
/// (`-o`: a short letter, `--out`: a long option, `-TT`: a word of its
/// own), and the value it holds in the same word (`None`: the value, if
/// the option takes one, is the next word).
fn spelled<'t>(
    p: Parser,
    program: &str,
    values: &str,
    word: &'t str,
    listed: &str,
) -> Option<Option<&'t str>> {
    let attached = |v: &'t str| (!v.is_empty()).then_some(v);
    if listed.starts_with("--") {
        return p.long_of(program, word, listed);
    }
    let name = listed.strip_prefix('-')?;
    let mut letters = name.chars();
    match (letters.next(), letters.next()) {
        (Some(letter), None) => p.short(word, letter, values).map(attached),
        // A multi-letter single-dash option (zip's `-TT`, find's `-exec`):
        // the family's long spellings, or the word with the value attached.
        _ => p
            .long(word, name)
            .or_else(|| word.strip_prefix(listed).map(attached)),
    }
}

/// Whether `args` of `program` set a short option letter (also inside a
/// cluster such as `-rf`) or one of the long options (`--force`,
/// `--force=…`, and the other spellings its parser accepts); a later
/// `--no-force` turns it off where the parser negates.
pub fn has_flag(program: &str, args: &[Arg], short: Option<char>, long: &[&str]) -> bool {
    let (p, values) = (Parser::of(program), value_letters(program));
    let mut set = false;
    for a in args.iter().take_while(|a| a.text != "--") {
        let t = a.text.as_str();
        if long.iter().any(|l| p.long(t, l).is_some())
            || short.is_some_and(|c| p.short(t, c, values).is_some())
        {
            set = true;
        } else if long.iter().any(|l| p.negates(t, l)) {
            set = false;
        }
    }
    set
}

/// The value of option `short`/`long` of `program`, in any spelling its
/// parser accepts (`-o v`, `-ov`, `-sSLo v`, `--out v`, `--out=v`,
/// `--ou=v`): `None` when the option is absent.
pub fn option_value(
    program: &str,
    args: &[Arg],
    short: Option<&str>,
    long: Option<&str>,
) -> Option<String> {
    option_arg(program, args, short, long).map(|a| a.text)
}

/// Like [`option_value`], but the value's word: it tells whether
/// expansion may change the value.
pub fn option_arg(
    program: &str,
    args: &[Arg],
    short: Option<&str>,
    long: Option<&str>,
) -> Option<Arg> {
    option_values(program, args, short, long).into_iter().next()
}

/// Every value given to option `short`/`long` of `program` (`ssh -o`,
/// `cargo --config` may be repeated), each as its word.
pub fn option_values(
    program: &str,
    args: &[Arg],
    short: Option<&str>,
    long: Option<&str>,
) -> Vec<Arg> {
    option_positions(
        program,
        args,
        &[short, long].into_iter().flatten().collect::<Vec<_>>(),
    )
    .into_iter()
    .map(|(at, inline)| match inline {
        Some(v) => Arg {
            text: v.to_owned(),
            ..args[at].clone()
        },
        None => args
            .get(at + 1)
            .cloned()
            .unwrap_or_else(|| Arg::literal("")),
    })
    .collect()
}

/// Where any of the options `listed` of `program` is given (before a
/// `--`), with the value its word holds (`--exec=cmd`, `-xcmd`) if any.
pub fn option_positions<'a>(
    program: &str,
    args: &'a [Arg],
    listed: &[&str],
) -> Vec<(usize, Option<&'a str>)> {
    let (p, values) = (Parser::of(program), value_letters(program));
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if t == "--" {
            break;
        }
        match listed
            .iter()
            .find_map(|l| spelled(p, program, values, t, l))
        {
            Some(inline) => {
                found.push((i, inline));
                // The next word is this option's value, not an option.
                i += if inline.is_none() { 2 } else { 1 };
            }
            None => i += 1,
        }
    }
    found
}

/// Operands (non-option arguments) of a command whose options take no value.
pub fn operands(args: &[Arg]) -> Vec<&Arg> {
    let mut out = Vec::new();
    let mut options_done = false;
    for a in args {
        if !options_done && a.text == "--" {
            options_done = true;
        } else if options_done || !a.text.starts_with('-') || a.text == "-" {
            out.push(a);
        }
    }
    out
}

/// Whether any argument is unresolved (its value may be anything, also an option).
pub fn any_unresolved(args: &[Arg]) -> bool {
    args.iter().any(|a| !a.resolved)
}

/// Paths of keys, credentials and other secrets.
pub fn is_sensitive(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    let t = t.trim_start_matches("file://");
    // `-d@.env`, `file=@.env`: the path follows the last `@` or `=`.
    let base = t.rsplit(['/', '@', '=']).next().unwrap_or(t);
    const CONTAINS: &[&str] = &[
        ".ssh/",
        "id_rsa",
        "id_ed25519",
        "id_ecdsa",
        "id_dsa",
        "/etc/shadow",
        "/etc/gshadow",
        "/etc/sudoers",
        "/etc/master.passwd",
        ".aws/credentials",
        ".aws/config",
        ".netrc",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
        ".docker/config.json",
        ".kube/config",
        ".gnupg",
        "gh/hosts.yml",
        ".pgpass",
        ".htpasswd",
        "/environ",
        ".vault-token",
        "/etc/passwd",
        "gcloud/application_default_credentials.json",
        "gcloud/credentials.db",
        "gcloud/access_tokens.db",
        ".azure/accesstokens.json",
        ".azure/msal_token_cache",
        ".terraform.d/credentials",
        ".cargo/credentials",
        ".gem/credentials",
        ".m2/settings.xml",
        ".my.cnf",
        "/run/secrets/",
        ".password-store",
        ".config/hub",
    ];
    const SUFFIX: &[&str] = &[
        ".pem",
        ".key",
        ".p12",
        ".pfx",
        ".keystore",
        ".jks",
        ".tfstate",
        "_history",
        ".ppk",
    ];
    const TEMPLATES: &[&str] = &["example", "sample", "template", "dist"];
    let env_file = base == ".env"
        || base
            .strip_prefix(".env.")
            .is_some_and(|rest| !TEMPLATES.contains(&rest));
    // A public key is published on purpose.
    if base.ends_with(".pub") {
        return false;
    }
    env_file
        || base == ".envrc"
        || t.ends_with("/.ssh")
        || t.ends_with("/.aws")
        || t == ".ssh"
        || t == "~/.ssh"
        || CONTAINS.iter().any(|c| t.contains(c))
        || SUFFIX
            .iter()
            .any(|s| base.ends_with(s) && base.len() > s.len())
        || matches!(
            base,
            "credentials.json" | "secrets.json" | "secrets.yaml" | "secrets.yml"
        )
}
