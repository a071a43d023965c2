//! Option syntax, one model per parser family: which
//! spellings a program accepts for one of its options. A reader asks for
//! "option X of program P"; [`Parser::of`] is the only table saying which
//! parser P uses, and [`Rules`] the only place saying what that parser
//! accepts. Where a spelling is ambiguous the program refuses the command
//! line, so reading it as the option never misreads a command that runs.

/// The command-line parser a program is built on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parser {
    /// glibc and BSD getopt_long(3), also argp: a unique prefix of a long
    /// option is that option (`--forc`), `--opt=v` and `--opt v`, short
    /// clusters `-rf` and attached values `-ofile`.
    GetoptLong,
    /// POSIX getopt(3) (OpenSSH): short options only, clustered, values
    /// attached or in the next word.
    Getopt,
    /// git's parse-options.c: unique prefixes (`parse_long_opt` keeps an
    /// `abbrev_option`), `--no-opt` negates, clusters and attached values.
    Git,
    /// curl's src/tool_getparam.c: clusters and attached values
    /// (`-d@file`, `-ofile`), `--no-opt` for booleans. Up to 8.4 the lookup
    /// loop took a unique prefix (`numhits`, PARAM_OPTION_AMBIGUOUS); 8.5
    /// looks the full name up and refuses the rest before any transfer.
    /// Up to 8.15 `--opt=v` was looked up as a name and refused; 8.16
    /// splits it ("is there an '=' ?", commit 9f9fecc, PR #17789). Every
    /// one of these is in use (LTS distributions ship 7.x), so each
    /// spelling is read as the option where some curl reads it so: the
    /// others run nothing.
    Curl,
    /// Python's argparse: `allow_abbrev` defaults to true, so unique
    /// prefixes; `--opt=v`, `-o=v`, clusters and attached values.
    Argparse,
    /// Python's optparse (pip): `_match_abbrev` takes a unique prefix;
    /// `--opt=v`, clusters and attached values.
    Optparse,
    /// npm's nopt: unique prefixes of the known keys (`abbrev`), `--opt=v`,
    /// `--no-opt`, single-dash clusters of shorthands.
    Nopt,
    /// Go's flag package: one or two dashes alike (`-exec`, `--exec`),
    /// `-flag=v` and `-flag v`; no clusters, no attached values, no
    /// abbreviation (flag.go looks `f.formal[name]` up).
    GoFlag,
    /// spf13/pflag (cobra), popt, clap and commander: GNU-style spellings
    /// but a long option is found by its full name only; `-o=v` is `-o v`.
    FullName,
    /// Programs whose long options take one dash and are matched exactly
    /// (find's primaries, java).
    SingleDash,
    /// Emacs's `argmatch` (emacs.c): `-eval` and `--eval` alike, `--eval=x`,
    /// a long option abbreviated down to a minimum length; no clusters.
    Emacs,
}

/// What a parser family accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rules {
    /// The dashes that introduce a long option: `--` (and `-` as well
    /// when `single_dash`).
    single_dash: bool,
    /// Also `--` for a single-dash family (Go).
    double_dash: bool,
    /// A unique prefix of a long option is that option.
    abbreviate: bool,
    /// `--opt=value` gives the value in the same word.
    inline: bool,
    /// `-abc` is `-a -b -c`; a value-taking letter takes the rest of the
    /// word (`-ofile`).
    cluster: bool,
    /// `-o=value` is `-o value` (pflag, argparse), not `-o =value`.
    short_equals: bool,
    /// `--no-opt` turns `--opt` off.
    negate: bool,
}

impl Parser {
    /// The parser `program` (or `git push`: a program and its
    /// subcommand) is built on: the one table of them.
    pub fn of(program: &str) -> Parser {
        match program.split(' ').next().unwrap_or(program) {
            // A subcommand's options; git's own (`-C`, `--exec-path=`,
            // `--config-env`) are matched whole by git.c's handle_options,
            // which git.rs reads word by word.
            "git" => Parser::Git,
            "curl" => Parser::Curl,
            // OpenBSD getopt(3) in ssh.c, scp.c, sftp.c.
            "ssh" | "scp" | "sftp" | "ssh-agent" | "ssh-keygen" | "ssh-add" => Parser::Getopt,
            // pip/_internal/cli/parser.py subclasses optparse.OptionParser.
            "pip" | "pip3" => Parser::Optparse,
            // argparse.ArgumentParser with the default allow_abbrev.
            "twine" | "tox" | "nox" | "ansible" | "ansible-playbook" | "pipx" => Parser::Argparse,
            // npm's config parsing is nopt (pnpm keeps a fork of it).
            "npm" | "npx" | "pnpm" => Parser::Nopt,
            // Go's flag package: the go command, terraform's mitchellh/cli.
            "go" | "terraform" | "tofu" | "terragrunt" | "packer" => Parser::GoFlag,
            // sqlite3's shell.c matches whole names after one dash and
            // skips a second (`--cmd` is `-cmd`); it has no clusters.
            "sqlite3" => Parser::GoFlag,
            // cobra/pflag (gh, docker, kubectl, helm), popt (rsync),
            // clap (cargo, fd, uv), lexopt (rg), commander/clipanion (yarn).
            "gh" | "docker" | "podman" | "nerdctl" | "kubectl" | "oc" | "helm" | "rsync"
            | "cargo" | "fd" | "fdfind" | "uv" | "uvx" | "rg" | "yarn" | "bun" | "bunx"
            | "deno" => Parser::FullName,
            // pytest's parser is argparse with `allow_abbrev=False` since
            // pytest 6.0 (changelog, #1149: prefixes of long options are
            // no longer accepted): full names, clusters, `-o=v`.
            "pytest" | "py.test" => Parser::FullName,
            // find's primaries and the JVM's options are words of their own.
            "find" | "java" => Parser::SingleDash,
            // CPython's _PyOS_GetOpt (Python/getopt.c): short options in
            // clusters, `-mjson.tool` and `-Im json.tool`.
            p if is_python(p) => Parser::Getopt,
            "emacs" | "emacsclient" => Parser::Emacs,
            // bash's internal_getopt for its builtins (clusters, attached
            // values); vim's main.c reads `-c{command}` and `-c {command}`.
            "mapfile" | "readarray" | "compgen" | "complete" | "hash" | "fc" | "enable" => {
                Parser::Getopt
            }
            "vim" | "vi" | "nvim" | "view" | "vimdiff" | "ex" | "gvim" => Parser::FullName,
            // GNU coreutils, findutils, tar (argp), wget, sed, make, man-db
            // (argp), util-linux, procps, sudo: getopt_long.
            _ => Parser::GetoptLong,
        }
    }

    fn rules(self) -> Rules {
        let gnu = Rules {
            single_dash: false,
            double_dash: true,
            abbreviate: true,
            inline: true,
            cluster: true,
            short_equals: false,
            negate: false,
        };
        if spelling() == Spelling::FamilyBlind {
            return gnu;
        }
        match self {
            Parser::GetoptLong | Parser::Optparse => gnu,
            Parser::Getopt => Rules {
                double_dash: false,
                abbreviate: false,
                inline: false,
                ..gnu
            },
            Parser::Git | Parser::Nopt => Rules {
                negate: true,
                ..gnu
            },
            Parser::Curl => Rules {
                negate: true,
                ..gnu
            },
            Parser::Argparse => Rules {
                short_equals: true,
                ..gnu
            },
            Parser::FullName => Rules {
                abbreviate: false,
                short_equals: true,
                ..gnu
            },
            Parser::GoFlag => Rules {
                single_dash: true,
                abbreviate: false,
                cluster: false,
                ..gnu
            },
            Parser::Emacs => Rules {
                single_dash: true,
                cluster: false,
                ..gnu
            },
            Parser::SingleDash => Rules {
                single_dash: true,
                double_dash: false,
                abbreviate: false,
                inline: false,
                cluster: false,
                ..gnu
            },
        }
    }

    /// Whether `typed` spells the long option `listed` (given with or
    /// without its dashes), and the value given in the same word if any.
    /// A prefix that ends where a word of the option ends (`--checkpoint`
    /// of `--checkpoint-action`, `--force` of `--force-with-lease`) is not
    /// read as it: such a prefix is usually an option of its own, which
    /// getopt_long prefers to any abbreviation.
    pub fn long<'t>(self, typed: &'t str, listed: &str) -> Option<Option<&'t str>> {
        let rules = self.rules();
        let body = self.long_body(typed)?;
        let (name, value) = match body.split_once('=') {
            Some((n, v)) if rules.inline => (n, Some(v)),
            _ => (body, None),
        };
        let listed = listed.trim_start_matches('-');
        if name == listed {
            return Some(value);
        }
        let rest = listed.strip_prefix(name)?;
        // Abbreviations are of the double-dash form (Emacs matches its
        // single-dash names whole).
        let abbreviate =
            rules.abbreviate && typed.starts_with("--") && spelling() != Spelling::PrefixExact;
        (abbreviate && !name.is_empty() && !rest.starts_with('-')).then_some(value)
    }

    /// [`Parser::long`] for an option of `program`: where the reader
    /// knows every long option of the program ([`long_options`]), a
    /// prefix is decided as the parser decides it, the one option that
    /// starts with it (optparse's `_match_abbrev`, argparse's
    /// `_get_option_tuples`), not by `long`'s word-boundary guess.
    pub fn long_of<'t>(
        self,
        program: &str,
        typed: &'t str,
        listed: &str,
    ) -> Option<Option<&'t str>> {
        let all = match long_options(program) {
            Some(all) if spelling() == Spelling::Family && self.rules().abbreviate => all,
            _ => return self.long(typed, listed),
        };
        let body = typed.strip_prefix("--")?;
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (body, None),
        };
        let listed = listed.trim_start_matches('-');
        if name == listed {
            return Some(value);
        }
        if name.is_empty() || all.contains(&name) {
            return None;
        }
        let mut starting = all.iter().filter(|o| o.starts_with(name));
        match (starting.next(), starting.next()) {
            (Some(only), None) if *only == listed => Some(value),
            _ => None,
        }
    }

    /// Whether `typed` turns the long option `listed` off (`--no-force`,
    /// also abbreviated where the family abbreviates).
    pub fn negates(self, typed: &str, listed: &str) -> bool {
        let listed = listed.trim_start_matches('-');
        self.rules().negate
            && typed.starts_with("--no-")
            && self.long(typed, &format!("no-{listed}")) == Some(None)
    }

    /// The name part of a word that may be a long option: after `--`, or
    /// after `-` in a single-dash family.
    fn long_body(self, typed: &str) -> Option<&str> {
        let rules = self.rules();
        match typed.strip_prefix("--") {
            Some(body) if rules.double_dash => Some(body),
            Some(_) => None,
            None if rules.single_dash => typed.strip_prefix('-').filter(|b| !b.is_empty()),
            None => None,
        }
    }

    /// Whether `typed` is a word of short options holding `letter`, and
    /// what follows the letter in that word (empty when it ends the word):
    /// a value-taking letter takes it as its value (`-ofile`, `-sSLo f`).
    /// A letter after one of `values` (the program's value-taking letters)
    /// is part of that value, not an option: `git push -on` is `-o n`.
    /// A family without clusters has one-letter long options instead.
    pub fn short<'t>(self, typed: &'t str, letter: char, values: &str) -> Option<&'t str> {
        let rules = self.rules();
        if !rules.cluster {
            let mut name = [0; 4];
            return match self.long(typed, letter.encode_utf8(&mut name))? {
                Some(value) => Some(value),
                None => Some(""),
            };
        }
        let cluster = typed.strip_prefix('-').filter(|c| !c.starts_with('-'))?;
        for (at, c) in cluster.char_indices() {
            if !c.is_ascii_alphanumeric() {
                return None;
            }
            if c == letter {
                let rest = &cluster[at + c.len_utf8()..];
                return Some(match rest.strip_prefix('=') {
                    Some(value) if rules.short_equals => value,
                    _ => rest,
                });
            }
            if values.contains(c) {
                return None;
            }
        }
        None
    }

    /// Whether `typed` is a word the parser reads as options (not an
    /// operand): anything after a dash but `-` itself.
    pub fn is_option(self, typed: &str) -> bool {
        typed.starts_with('-') && typed != "-"
    }
}

/// Every long option of `program`, where a reader needs a prefix decided
/// exactly: pip's install, download and wheel commands with pip's general
/// options (`pip install --help`, pip 24): `--index-u`, `--extra-index`
/// and `--trusted` are unique prefixes pip accepts.
pub fn long_options(program: &str) -> Option<&'static [&'static str]> {
    match program {
        "pip" | "pip3" => Some(PIP_LONG),
        "cp" => Some(CP_LONG),
        "mv" => Some(MV_LONG),
        "ln" => Some(LN_LONG),
        "install" => Some(INSTALL_LONG),
        _ => None,
    }
}

#[rustfmt::skip]
const PIP_LONG: &[&str] = &[
    "requirement", "constraint", "no-deps", "pre", "editable", "dry-run", "target",
    "platform", "python-version", "implementation", "abi", "user", "root", "prefix",
    "src", "upgrade", "upgrade-strategy", "force-reinstall", "ignore-installed",
    "ignore-requires-python", "no-build-isolation", "use-pep517",
    "check-build-dependencies", "break-system-packages", "config-settings",
    "global-option", "compile", "no-compile", "no-warn-script-location",
    "no-warn-conflicts", "no-binary", "only-binary", "prefer-binary", "require-hashes",
    "progress-bar", "root-user-action", "report", "no-clean", "index-url",
    "extra-index-url", "no-index", "find-links", "dest", "wheel-dir", "build-option",
    "help", "debug", "isolated", "require-virtualenv", "python", "verbose", "version",
    "quiet", "log", "no-input", "keyring-provider", "proxy", "retries", "timeout",
    "exists-action", "trusted-host", "cert", "client-cert", "cache-dir",
    "no-cache-dir", "disable-pip-version-check", "no-color",
    "no-python-version-warning", "use-feature", "use-deprecated", "resume-retries",
];

// GNU coreutils' long_opts arrays (src/cp.c, src/mv.c, src/ln.c,
// src/install.c, 9.x): with the whole list a prefix is what getopt_long
// makes of it. `--target` is `--target-directory` there, since no option
// is called `target`; the word-boundary guess of `Parser::long` would
// read it as an option of its own and miss the destination.
#[rustfmt::skip]
const CP_LONG: &[&str] = &[
    "archive", "attributes-only", "backup", "copy-contents", "debug", "dereference",
    "force", "interactive", "link", "no-clobber", "no-dereference", "no-preserve",
    "no-target-directory", "one-file-system", "parents", "path", "preserve",
    "recursive", "reflink", "remove-destination", "sparse", "strip-trailing-slashes",
    "suffix", "symbolic-link", "target-directory", "update", "verbose",
    "keep-directory-symlink", "context", "help", "version",
];

#[rustfmt::skip]
const MV_LONG: &[&str] = &[
    "backup", "context", "debug", "exchange", "force", "interactive", "no-clobber",
    "no-copy", "no-target-directory", "strip-trailing-slashes", "suffix",
    "target-directory", "update", "verbose", "help", "version",
];

#[rustfmt::skip]
const LN_LONG: &[&str] = &[
    "backup", "directory", "force", "interactive", "logical", "no-dereference",
    "no-target-directory", "physical", "relative", "suffix", "symbolic",
    "target-directory", "verbose", "help", "version",
];

#[rustfmt::skip]
const INSTALL_LONG: &[&str] = &[
    "backup", "compare", "context", "debug", "directory", "group", "mode",
    "no-target-directory", "owner", "preserve-timestamps", "preserve-context", "strip",
    "strip-program", "suffix", "target-directory", "verbose", "help", "version",
];

/// The short options of `program` (`git push`: of that subcommand) that
/// take a value, as getopt's optstring marks them with `:`: in a cluster,
/// what follows one is its value. Listed where a letter after them would
/// otherwise be read as an option that lowers the band; elsewhere a letter
/// is taken as a flag, which only reads more options.
pub fn value_letters(program: &str) -> &'static str {
    match program {
        // builtin/push.c: -o/--push-option <string>.
        "git push" => "o",
        // builtin/clean.c: -e/--exclude <pattern>.
        "git clean" => "e",
        // builtin/tag.c: -m <msg>, -F <file>, -u <key-id>.
        "git tag" => "mFu",
        // builtin/branch.c: -u/--set-upstream-to <upstream>.
        "git branch" => "u",
        // cronie's crontab.c: getopt "u:lerisncx:".
        "crontab" => "ux",
        // gh pr create's and gh api's pflag letters that take a value.
        "gh" => "tbBHalmprTFRXfq",
        // Maven's and Gradle's property and profile options take the rest
        // of the word (`-Dmaven.test.skip=true`, `-Pci`, `-T4`).
        "mvn" | "gradle" => "DPT",
        // CPython's optstring "bBc:dEhiIJm:OPqRsStuvVW:xX:?".
        p if is_python(p) => "cmWX",
        _ => "",
    }
}

fn is_python(program: &str) -> bool {
    program.starts_with("python") || program.starts_with("pypy")
}

/// How the inspection on this thread spells options: by each program's
/// family, or as one of the planted mutants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// Each program's own parser rules.
    Family,
    /// `option-prefix-exact`: long options by their full spelling only.
    PrefixExact,
    /// `option-family-blind`: every program read as getopt_long.
    FamilyBlind,
}

thread_local! {
    static SPELLING: std::cell::Cell<Spelling> = const { std::cell::Cell::new(Spelling::Family) };
}

fn spelling() -> Spelling {
    SPELLING.get()
}

/// Runs `f` with options spelled as `how` says; restored afterwards, also
/// on a panic.
pub fn spelled<R>(how: Spelling, f: impl FnOnce() -> R) -> R {
    struct Restore(Spelling);
    impl Drop for Restore {
        fn drop(&mut self) {
            SPELLING.set(self.0);
        }
    }
    let _restore = Restore(SPELLING.replace(how));
    f()
}

#[cfg(test)]
mod tests {
    use super::{spelled, Parser, Spelling};

    fn long(p: Parser, typed: &str, listed: &str) -> Option<Option<String>> {
        p.long(typed, listed).map(|v| v.map(str::to_owned))
    }

    #[test]
    fn pip_prefixes_are_decided_against_its_option_table() {
        let pip = Parser::of("pip");
        let of = |typed: &str, listed: &str| {
            pip.long_of("pip", typed, listed)
                .map(|v| v.map(str::to_owned))
        };
        // Unique prefixes, also where they end at a word of the option.
        assert_eq!(of("--extra-index", "--extra-index-url"), Some(None));
        assert_eq!(of("--trusted", "--trusted-host"), Some(None));
        assert_eq!(of("--index=x", "--index-url"), Some(Some("x".to_owned())));
        // Ambiguous (`--e`: editable, extra-index-url, exists-action) or
        // another option's own name (`--pre` of `--prefix`).
        assert_eq!(of("--e", "--editable"), None);
        assert_eq!(of("--pre", "--prefix"), None);
        // Under the mutants the word-boundary guess and exact names return.
        assert_eq!(
            spelled(Spelling::FamilyBlind, || of(
                "--extra-index",
                "--extra-index-url"
            )),
            None
        );
        assert_eq!(
            spelled(Spelling::PrefixExact, || of("--index-u", "--index-url")),
            None
        );
        // Programs without a table keep `long`.
        let make = Parser::of("make");
        assert_eq!(
            make.long_of("make", "--direc=x", "--directory"),
            Some(Some("x"))
        );
    }

    #[test]
    fn getopt_long_takes_prefixes_inline_values_and_clusters() {
        let p = Parser::of("tar");
        assert_eq!(p, Parser::GetoptLong);
        assert_eq!(
            long(p, "--to-comm=x", "--to-command"),
            Some(Some("x".into()))
        );
        assert_eq!(long(p, "--to-comm", "to-command"), Some(None));
        assert_eq!(long(p, "--checkpoint", "--checkpoint-action"), None);
        assert_eq!(long(p, "-to-command", "--to-command"), None);
        assert_eq!(p.short("-xvf", 'v', ""), Some("f"));
        assert_eq!(p.short("-Ozstd", 'O', ""), Some("zstd"));
        assert_eq!(p.short("-o=f", 'o', ""), Some("=f"));
        assert_eq!(p.short("--verbose", 'v', ""), None);
        assert!(!p.negates("--no-recursion", "--recursion"));
    }

    #[test]
    fn git_negates_and_abbreviates() {
        let p = Parser::of("git");
        assert_eq!(long(p, "--forc", "force"), Some(None));
        assert!(p.negates("--no-force", "force"));
        assert!(p.negates("--no-forc", "force"));
        assert!(!p.negates("--force", "force"));
        assert_eq!(p.short("-fd", 'd', ""), Some(""));
    }

    #[test]
    fn curl_reads_every_spelling_some_version_reads() {
        let p = Parser::of("curl");
        assert_eq!(long(p, "--data=x", "--data"), Some(Some("x".into())));
        assert_eq!(long(p, "--data-b", "--data-binary"), Some(None));
        assert_eq!(p.short("-d@file", 'd', ""), Some("@file"));
        assert_eq!(p.short("-sSLofile", 'o', ""), Some("file"));
        assert!(p.negates("--no-progress-meter", "--progress-meter"));
    }

    #[test]
    fn full_name_parsers_refuse_prefixes() {
        for program in ["gh", "docker", "kubectl", "rsync", "cargo", "fd"] {
            let p = Parser::of(program);
            assert_eq!(long(p, "--pu", "--push"), None, "{program}");
            assert_eq!(long(p, "--push", "--push"), Some(None), "{program}");
            assert_eq!(long(p, "--rsh=ssh", "--rsh"), Some(Some("ssh".into())));
            assert_eq!(p.short("-Xpost", 'X', ""), Some("post"));
            assert_eq!(p.short("-X=POST", 'X', ""), Some("POST"));
        }
    }

    #[test]
    fn go_flag_takes_one_or_two_dashes_whole_names_only() {
        let p = Parser::of("go");
        assert_eq!(long(p, "-exec", "exec"), Some(None));
        assert_eq!(long(p, "--exec=x", "-exec"), Some(Some("x".into())));
        assert_eq!(long(p, "-ex", "exec"), None);
        assert_eq!(p.short("-o", 'o', ""), Some(""));
        assert_eq!(p.short("-o=bin", 'o', ""), Some("bin"));
        assert_eq!(p.short("-ofile", 'o', ""), None);
        assert_eq!(p.short("-vx", 'x', ""), None);
    }

    #[test]
    fn python_and_npm_parsers_abbreviate() {
        let argparse = Parser::of("tox");
        assert_eq!(
            long(argparse, "--conf=x", "--config"),
            Some(Some("x".into()))
        );
        assert_eq!(argparse.short("-c=x", 'c', ""), Some("x"));
        let optparse = Parser::of("pip");
        assert_eq!(long(optparse, "--index-u", "--index-url"), Some(None));
        let nopt = Parser::of("npm");
        assert_eq!(
            long(nopt, "--script-sh=bash", "--script-shell"),
            Some(Some("bash".into()))
        );
        assert!(nopt.negates("--no-script-shell", "script-shell"));
    }

    #[test]
    fn single_dash_programs_match_whole_words() {
        let p = Parser::of("find");
        assert_eq!(long(p, "-exec", "-exec"), Some(None));
        assert_eq!(long(p, "-exe", "-exec"), None);
        assert_eq!(long(p, "--exec", "-exec"), None);
        assert_eq!(p.short("-xdev", 'x', ""), None);
    }

    #[test]
    fn emacs_takes_either_dash_and_abbreviations() {
        let p = Parser::of("emacs");
        assert_eq!(long(p, "-eval", "eval"), Some(None));
        assert_eq!(long(p, "--ev=(x)", "eval"), Some(Some("(x)".into())));
        assert_eq!(long(p, "-nw", "eval"), None);
        assert_eq!(long(p, "-s", "script"), None);
    }

    #[test]
    fn a_letter_after_a_value_taking_one_is_its_value() {
        let p = Parser::of("git push");
        let values = super::value_letters("git push");
        assert_eq!(p, Parser::Git);
        assert_eq!(p.short("-on", 'n', values), None);
        assert_eq!(p.short("-no", 'n', values), Some("o"));
        assert_eq!(p.short("-fu", 'u', values), Some(""));
        assert_eq!(p.short("-on", 'n', ""), Some(""));
    }

    #[test]
    fn python_reads_its_module_attached_or_bundled() {
        let p = Parser::of("python3.12");
        let values = super::value_letters("python3.12");
        assert_eq!(p.short("-mjson.tool", 'm', values), Some("json.tool"));
        assert_eq!(p.short("-Im", 'm', values), Some(""));
        assert_eq!(p.short("-cm", 'm', values), None);
    }

    #[test]
    fn ssh_has_short_options_only() {
        let p = Parser::of("ssh");
        assert_eq!(p.short("-oProxyCommand=x", 'o', ""), Some("ProxyCommand=x"));
        assert_eq!(long(p, "--proxy", "--proxy"), None);
    }

    #[test]
    fn the_mutants_change_the_rules_on_their_thread_only() {
        let gh = Parser::of("gh");
        assert_eq!(
            spelled(Spelling::FamilyBlind, || gh.long("--dra", "--draft")),
            Some(None)
        );
        assert_eq!(gh.long("--dra", "--draft"), None);
        let git = Parser::of("git");
        assert_eq!(
            spelled(Spelling::PrefixExact, || git.long("--forc", "--force")),
            None
        );
        assert_eq!(git.long("--forc", "--force"), Some(None));
    }
}
