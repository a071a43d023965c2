//! The parts below the walk: word reading, the substitution scanner, the
//! guard and path checks.

use super::argv::{has_flag, is_sensitive};
use super::guard::{self, Refusal};
use super::tests::{auto, escalate};
use super::word::{ansi_c, read, Arg, Embedded};
use super::{scripts, subst};
use brush_parser::ParserOptions;

fn word(raw: &str) -> (Arg, Vec<Embedded>) {
    read(raw, &ParserOptions::default()).expect("a word")
}

#[test]
fn words_resolve_after_quote_removal() {
    for (raw, value) in [
        ("r''m", "rm"),
        (r"\rm", "rm"),
        (r#""r"'m'"#, "rm"),
        (r"$'\x72\155'", "rm"),
        (r#""a b""#, "a b"),
        (r#""\$x""#, "$x"),
        (r#""\q""#, r"\q"),
        ("~/.ssh/id_rsa", "~/.ssh/id_rsa"),
    ] {
        let (arg, embedded) = word(raw);
        assert_eq!(arg.value(), Some(value), "{raw}");
        assert!(embedded.is_empty() && !arg.pattern, "{raw}");
    }
    for raw in ["$X", "${X}y", "$(ls)", "`ls`", "$((1+2))", "\"$HOME\""] {
        assert_eq!(word(raw).0.value(), None, "{raw}");
    }
    for raw in ["*.rs", "a?", "{a,b}", "x{1..3}"] {
        let (arg, _) = word(raw);
        assert!(arg.resolved && arg.pattern, "{raw}");
    }
    assert!(!word("'*.rs'").0.pattern);
}

#[test]
fn a_bracket_is_a_pattern_only_when_a_bracket_closes_it() {
    // POSIX XCU 2.13.1: a `[` that does not start a bracket expression
    // matches itself, so `[`, the test command, is its own name.
    for raw in ["[", "a[", "[!"] {
        let (arg, _) = word(raw);
        assert_eq!(arg.value(), Some(raw), "{raw}");
        assert!(!arg.pattern, "{raw}");
    }
    // Closed in the same piece, or by a `]` in a later one (failing safe
    // for a quoted `]`, which bash would not let close it).
    for raw in ["[ab]", "r[m]", "x[!a]y", "a[\"x\"]", "a['x']", "a[$x]"] {
        assert!(word(raw).0.pattern, "{raw}");
    }
    auto(&[
        "[ -f Cargo.toml ] && echo present",
        "[ -z \"$CI\" ]",
        "[ ! -d data ]",
    ]);
    escalate(&[
        "/usr/bin/r[m] -rf build",
        "[[ -f x ]] || /bin/[r]m -rf data",
    ]);
}

#[test]
fn words_report_the_code_they_run() {
    let bodies = |raw: &str| -> Vec<Embedded> { word(raw).1 };
    assert_eq!(
        bodies("\"$(rm x)\""),
        vec![Embedded::Substitution("rm x".into())]
    );
    assert_eq!(
        bodies(r"`echo \`rm x\``"),
        vec![Embedded::Substitution("echo `rm x`".into())]
    );
    assert_eq!(
        bodies("${X:-$(rm y)}"),
        vec![Embedded::Substitution("rm y".into())]
    );
    assert!(bodies("'$(rm x)'").is_empty());
    assert!(bodies(r"\$(rm x)").is_empty());
}

#[test]
fn ansi_c_escapes() {
    assert_eq!(ansi_c(r"\x72m"), "rm");
    assert_eq!(ansi_c(r"\162\155"), "rm");
    assert_eq!(ansi_c(r"\u0072\U0000006d"), "rm");
    assert_eq!(ansi_c(r"a\tb\n"), "a\tb\n");
    assert_eq!(ansi_c(r"\'\\"), "'\\");
    assert_eq!(ansi_c(r"\cA"), "\u{1}");
    assert_eq!(ansi_c(r"\xZ"), r"\xZ");
}

#[test]
fn substitution_scanner_skips_here_document_bodies() {
    let found = subst::bodies("\"$(cat <<'EOF'\n1) a \" b\nEOF\n)\"").expect("readable");
    assert_eq!(found, vec!["cat <<'EOF'\n1) a \" b\nEOF\n".to_owned()]);
    let two = subst::bodies("$(a <<X\n)\nX\n)$(b)").expect("readable");
    assert_eq!(two, vec!["a <<X\n)\nX\n".to_owned(), "b".to_owned()]);
    assert_eq!(subst::bodies("$(cat <<EOF\nno end\n)"), None);
    // A here-string is not a here-document: no lines are skipped.
    assert_eq!(
        subst::bodies("$(cat <<< x\n)<<"),
        Some(vec!["cat <<< x\n".to_owned()])
    );
    assert_eq!(subst::bodies("$((1 << 2))"), None);
    assert_eq!(subst::bodies("$(case x in a) ;; esac <<E\nE\n)"), None);
}

#[test]
fn deep_nesting_is_inspected_from_a_small_stack() {
    // 200 levels of `{` need about 4.5 MiB of stack in a debug build; the
    // caller's thread has 256 KiB, so the walker must grow onto a segment
    // of its own instead of overflowing (which would abort the process).
    let deep = format!("{}rm x{}", "{ ".repeat(200), "; }".repeat(200));
    let found = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || super::inspect(&deep, None))
        .expect("spawn")
        .join()
        .expect("no panic");
    assert_eq!(
        found.reversibility,
        rbv_protocol::Reversibility::Irreversible
    );
}

#[test]
fn guard_bounds() {
    assert_eq!(guard::check("ls -la"), Ok(0));
    assert_eq!(guard::check("if [ -f x ]; then (ls); fi"), Ok(3));
    let deep = "(".repeat(guard::MAX_OPENERS + 1);
    assert!(matches!(guard::check(&deep), Err(Refusal::Nested(_))));
    let words = "if ".repeat(guard::MAX_OPENERS + 1);
    assert!(matches!(guard::check(&words), Err(Refusal::Nested(_))));
    // Words that merely contain a keyword do not count.
    assert_eq!(guard::check(&"iffy ".repeat(guard::MAX_OPENERS + 1)), Ok(0));
    let long = "a".repeat(guard::MAX_LEN + 1);
    assert!(matches!(guard::check(&long), Err(Refusal::Long(_))));
}

#[test]
fn sed_scripts() {
    for quiet in [
        "s/a/b/g",
        "1,5p",
        "/^#/d",
        "y/abc/xyz/",
        "s|/|\\\\|g",
        "$d",
        "1i\\header",
        "s/e/w/2",
    ] {
        assert!(!scripts::sed_runs_or_writes(quiet), "{quiet}");
    }
    for loud in [
        "s/a/b/e",
        "s/a/b/w out",
        "1e date",
        "w out",
        "/x/W out",
        "s/a/b/;e",
        "Z",
    ] {
        assert!(scripts::sed_runs_or_writes(loud), "{loud}");
    }
}

#[test]
fn flags_and_secret_paths() {
    let args: Vec<Arg> = ["-rf", "--force-with-lease=main", "x"]
        .map(Arg::literal)
        .into();
    assert!(has_flag("git", &args, Some('f'), &[]));
    assert!(has_flag("git", &args, None, &["force-with-lease"]));
    assert!(!has_flag("git", &args, Some('d'), &["delete"]));
    for secret in [
        "~/.ssh/id_rsa",
        ".env",
        "app/.env.local",
        "/etc/shadow",
        "key.pem",
        "@.env",
        "x=@~/.aws/credentials",
    ] {
        assert!(is_sensitive(secret), "{secret}");
    }
    for plain in [
        ".env.example",
        "src/env.rs",
        "README.md",
        "pem",
        ".envrc-docs/x.md",
    ] {
        assert!(!is_sensitive(plain), "{plain}");
    }
}

#[test]
fn comments_and_empty_commands_are_data() {
    auto(&["", "   ", "# rm -rf /", "ls # ; rm -rf /"]);
    escalate(&["ls; # comment\nrm x"]);
}
