//! Reading argument vectors: options, operands, paths that hold secrets.

use super::word::Arg;

/// The operands after the leading options: skips `-x` clusters, long
/// options, the values of options listed in `with_value`, and a `--`.
/// Stops at the first operand, so a wrapped command keeps its own options.
pub fn after_options<'a>(args: &'a [Arg], with_value: &[&str]) -> &'a [Arg] {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if !arg.resolved {
            break;
        }
        if text == "--" {
            return &args[i + 1..];
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        i += if with_value.contains(&text) { 2 } else { 1 };
    }
    args.get(i..).unwrap_or(&[])
}

/// Whether `args` set a short option letter (also inside a cluster such
/// as `-rf`) or one of the long options (`--force`, `--force=…`).
pub fn has_flag(args: &[Arg], short: Option<char>, long: &[&str]) -> bool {
    args.iter().take_while(|a| a.text != "--").any(|a| {
        let t = a.text.as_str();
        if t.starts_with("--") {
            long.iter().any(|l| {
                let l = format!("--{}", l.trim_start_matches('-'));
                long_match(t, &l).is_some()
            })
        } else if let (Some(cluster), Some(c)) = (t.strip_prefix('-'), short) {
            !cluster.is_empty()
                && cluster.chars().all(|x| x.is_ascii_alphanumeric())
                && cluster.contains(c)
        } else {
            false
        }
    })
}

thread_local! {
    /// The `option-prefix-exact` mutant, for the inspection running on this
    /// thread.
    static EXACT_LONG: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with long options matched by their full spelling only (the
/// `option-prefix-exact` mutant) when `exact`; restored afterwards, also on
/// a panic.
pub fn spelled<R>(exact: bool, f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            EXACT_LONG.set(self.0);
        }
    }
    let _restore = Restore(EXACT_LONG.replace(exact));
    f()
}

/// Whether the word `typed` (`--name` or `--name=value`) spells the long
/// option `listed` (with or without its dashes), and the inline value if
/// any. GNU getopt_long, git's parse-options, argp and nopt accept any
/// unambiguous prefix (`--forc` is `--force`); an ambiguous one makes the
/// program refuse the command line, so reading a prefix as the option
/// never misreads a command that runs. A prefix that ends where a word of
/// the option ends (`--checkpoint` of `--checkpoint-action`, `--force` of
/// `--force-with-lease`) is not read as it: such a prefix is usually an
/// option of its own, which getopt_long prefers to any abbreviation.
pub fn long_match<'t>(typed: &'t str, listed: &str) -> Option<Option<&'t str>> {
    if EXACT_LONG.get() {
        let body = typed.strip_prefix("--")?;
        let name = body.split_once('=').map_or(body, |(n, _)| n);
        if name != listed.trim_start_matches('-') {
            return None;
        }
    }
    let body = typed.strip_prefix("--")?;
    let (name, value) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (body, None),
    };
    let listed = listed.strip_prefix("--")?;
    let rest = listed.strip_prefix(name)?;
    (!name.is_empty() && !rest.starts_with('-')).then_some(value)
}

/// The value of an option given as `-o v`, `-ov`, `--out v` or `--out=v`.
pub fn option_value(args: &[Arg], short: Option<&str>, long: Option<&str>) -> Option<String> {
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        let t = a.text.as_str();
        if t == "--" {
            break;
        }
        if Some(t) == short || Some(t) == long {
            return Some(iter.next().map(|v| v.text.clone()).unwrap_or_default());
        }
        let exact_inline = long.and_then(|l| t.strip_prefix(l)?.strip_prefix('='));
        match long.and_then(|l| long_match(t, l)) {
            _ if exact_inline.is_some() => return exact_inline.map(str::to_owned),
            Some(Some(v)) => return Some(v.to_owned()),
            Some(None) => return Some(iter.next().map(|v| v.text.clone()).unwrap_or_default()),
            None => {}
        }
        if let Some(s) = short {
            if let Some(v) = t
                .strip_prefix(s)
                .filter(|v| !v.is_empty() && !t.starts_with("--"))
            {
                return Some(v.to_owned());
            }
        }
    }
    None
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

/// Like [`option_value`], but the value's word: `None` when the option is
/// absent; the word tells whether expansion may change the value.
pub fn option_arg(args: &[Arg], short: Option<&str>, long: Option<&str>) -> Option<Arg> {
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        let t = a.text.as_str();
        if t == "--" {
            break;
        }
        let long_form = long.and_then(|l| long_match(t, l));
        if Some(t) == short || Some(t) == long || long_form == Some(None) {
            return Some(iter.next().cloned().unwrap_or_else(|| Arg::literal("")));
        }
        let inline = long_form
            .flatten()
            .or_else(|| long.and_then(|l| t.strip_prefix(l)?.strip_prefix('=')))
            .or_else(|| {
                short.and_then(|s| {
                    t.strip_prefix(s)
                        .filter(|v| !v.is_empty() && !t.starts_with("--"))
                })
            });
        if let Some(v) = inline {
            return Some(Arg {
                text: v.to_owned(),
                ..a.clone()
            });
        }
    }
    None
}
