//! The bash oracle, live: lines run in the sandbox and are seen to run the
//! programs they run and change the files they change, and nothing else;
//! the limits hold; a planted mutant's shell finding is confirmed through
//! `rbv fuzz --bash`. Where this machine has no sandbox (no `unshare`,
//! user namespaces refused), the live tests are SKIPPED LOUDLY, unless
//! `RBV_REQUIRE_SANDBOX` is set (a CI that knows it has one).

use rbv::oracle::shell::{confirm, ChangeKind, Confirmation, Observation, Sandbox};
use rbv_protocol::Band;
use std::process::Command;

fn sandbox() -> Option<Sandbox> {
    match Sandbox::start() {
        Ok(s) => Some(s),
        Err(e) if std::env::var_os("RBV_REQUIRE_SANDBOX").is_some() => {
            panic!("RBV_REQUIRE_SANDBOX is set, but: {e}")
        }
        Err(e) => {
            eprintln!("\nWARNING: SKIPPED: bash oracle tests: {e}\n");
            None
        }
    }
}

fn programs(o: &Observation) -> Vec<String> {
    o.ran
        .iter()
        .map(|r| format!("{} {}", r.program, r.args.join(" ")))
        .collect()
}

fn changed(o: &Observation) -> Vec<(&str, ChangeKind)> {
    o.changes
        .iter()
        .map(|c| (c.path.as_str(), c.kind))
        .collect()
}

#[test]
fn rm_runs_and_deletes_and_a_read_changes_nothing() {
    let Some(sb) = sandbox() else { return };
    let rm = sb.observe("rm -rf data").unwrap();
    assert_eq!(programs(&rm), ["rm -rf data"], "{rm:?}");
    assert!(rm.ran[0].real && rm.parsed && !rm.timed_out);
    assert_eq!(
        changed(&rm),
        [
            ("/home/user/data", ChangeKind::Deleted),
            ("/home/user/data/a.txt", ChangeKind::Deleted),
            ("/home/user/data/b.txt", ChangeKind::Deleted),
            ("/home/user/data/c.txt", ChangeKind::Deleted),
        ]
    );
    let v = confirm(&rm, Band::Auto);
    assert!(v.confirmed(), "{v}");
    assert!(v.to_string().contains("deleted 4 paths"), "{v}");

    // Each line gets a fresh copy: data/ is back, and cat really reads it.
    let cat = sb.observe("cat notes.txt data/a.txt").unwrap();
    assert_eq!(programs(&cat), ["cat notes.txt data/a.txt"], "{cat:?}");
    assert!(cat.changes.is_empty(), "{cat:?}");
    assert!(cat.output.starts_with("meeting notes\n"), "{cat:?}");
    assert_eq!(confirm(&cat, Band::Auto).label(), "not_confirmed");
    assert!(confirm(&cat, Band::Escalate).confirmed());
}

#[test]
fn builtins_run_for_real_and_substitutions_are_seen() {
    let Some(sb) = sandbox() else { return };
    let redirect = sb.observe("echo hi > out.txt").unwrap();
    assert!(redirect.ran.is_empty(), "echo is a builtin: {redirect:?}");
    assert_eq!(
        changed(&redirect),
        [("/home/user/out.txt", ChangeKind::Created)]
    );
    assert!(confirm(&redirect, Band::Auto).confirmed());

    let hidden = sb.observe("$(printf rm) -f notes.txt").unwrap();
    assert_eq!(programs(&hidden), ["rm -f notes.txt"], "{hidden:?}");
    assert_eq!(
        changed(&hidden),
        [("/home/user/notes.txt", ChangeKind::Deleted)]
    );

    // Through eval, a nested shell and xargs: every program is logged.
    let nested = sb
        .observe("eval 'bash -c \"ls | xargs -r touch\"'")
        .unwrap();
    let names: Vec<&str> = nested.ran.iter().map(|r| r.program.as_str()).collect();
    for name in ["bash", "ls", "xargs", "touch"] {
        assert!(names.contains(&name), "{name} missing: {nested:?}");
    }
    assert!(
        changed(&nested).contains(&("/home/user/notes.txt", ChangeKind::Modified)),
        "{nested:?}"
    );

    // A word bash finds nowhere is recorded too, as not installed.
    let missing = sb.observe("frobnicate --all && chmod 600 a.txt").unwrap();
    assert!(
        missing
            .ran
            .iter()
            .any(|r| r.program == "frobnicate" && !r.installed),
        "{missing:?}"
    );
    assert_eq!(
        changed(&missing),
        [("/home/user/a.txt", ChangeKind::Modified)]
    );
}

#[test]
fn curl_is_logged_and_the_network_is_out_of_reach() {
    let Some(sb) = sandbox() else { return };
    let curl = sb.observe("curl http://x").unwrap();
    assert_eq!(programs(&curl), ["curl http://x"]);
    assert!(!curl.ran[0].real, "curl is a stub");
    let v = confirm(&curl, Band::Auto);
    assert!(v.to_string().contains("network program"), "{v}");

    // A listener on the host's loopback: the sandbox has a loopback of its
    // own, down, so bash's /dev/tcp cannot reach it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let probe = sb
        .observe(&format!(
            "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected; echo > /dev/tcp/1.1.1.1/80 && echo out"
        ))
        .unwrap();
    assert!(
        !probe.output.contains("connected") && !probe.output.contains("out\n"),
        "{probe:?}"
    );
    assert!(listener.accept().is_err(), "the sandbox reached the host");
}

#[test]
fn endless_lines_are_killed_at_the_time_limit() {
    let Some(mut sb) = sandbox() else { return };
    sb.limit = std::time::Duration::from_millis(1500);
    let started = std::time::Instant::now();
    let looped = sb.observe("while :; do :; done").unwrap();
    assert!(looped.timed_out && looped.exit == 137, "{looped:?}");
    assert!(matches!(
        confirm(&looped, Band::Auto),
        Confirmation::Inconclusive(_)
    ));
    let bomb = sb.observe(":(){ :|:& };:").unwrap();
    assert!(bomb.timed_out, "{bomb:?}");
    // A job left running in the background holds the sandbox open too.
    let orphan = sb
        .observe("(while :; do :; done) & disown; echo bye")
        .unwrap();
    assert!(orphan.timed_out, "{orphan:?}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    // Nothing of them is left: the next line runs as usual.
    let after = sb.observe("touch fine").unwrap();
    assert!(!after.timed_out && after.exit == 0, "{after:?}");
    assert_eq!(changed(&after), [("/home/user/fine", ChangeKind::Created)]);
    // Sizes are capped: `yes` stops at the file size limit.
    let big = sb.observe("yes > big").unwrap();
    assert!(!big.timed_out && big.exit != 0, "{big:?}");
}

#[test]
fn nothing_outside_the_sandbox_changes() {
    let Some(sb) = sandbox() else { return };
    let name = format!("rbv-shell-oracle-escape-{}", std::process::id());
    let host_tmp = std::env::temp_dir().join(&name);
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(&name);
    let line = format!(
        "echo x > /tmp/{name}; mkdir -p {ws}; touch {ws}/f; cd / && echo y > ../../tmp/{name}.2; cp /tmp/{name} /{name}",
        ws = workspace.display()
    );
    let o = sb.observe(&line).unwrap();
    assert!(
        changed(&o).contains(&(format!("/tmp/{name}").as_str(), ChangeKind::Created)),
        "{o:?}"
    );
    for host in [
        host_tmp.clone(),
        host_tmp.with_file_name(format!("{name}.2")),
        workspace.clone(),
        std::path::Path::new("/").join(&name),
    ] {
        assert!(!host.exists(), "{} escaped the sandbox", host.display());
    }
}

fn rbv(args: &[&str], envs: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(args)
        .envs(envs.iter().copied())
        .env("CI", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A planted mutant's findings, both ways: an `auto` for a mode change is
/// a bypass bash confirms; an escalation of quoted data is a needless
/// prompt bash confirms.
#[test]
fn planted_mutants_findings_are_confirmed_through_rbv_fuzz() {
    if sandbox().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let artifacts = dir.path().to_str().unwrap();
    for (mutant, word) in [
        (
            "mode-change-as-edit",
            "# bash confirms a bypass: answered auto",
        ),
        ("quoted-string-blind", "# bash confirms a needless escalate"),
    ] {
        let (code, out, err) = rbv(
            &[
                "fuzz",
                "--target",
                "shell_bypass",
                "--mutant",
                mutant,
                "--bash",
                "--max-execs",
                "3000",
                // Not only the first: a line that runs a stub (`git commit
                // -m …`) is no needless prompt, whichever comes first.
                "--max-findings",
                "4",
                "--artifact-dir",
                artifacts,
            ],
            &[],
        );
        assert_eq!(code, 1, "{mutant}: {out}\n{err}");
        assert!(out.contains(word), "{mutant}: {out}\n{err}");
    }

    let (code, out, _) = rbv(
        &["oracle", "shell", "--band", "auto", "rm a.txt", "ls"],
        &[],
    );
    assert_eq!(code, 0);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0]["observed"]["ran"][0]["program"], "rm");
    assert_eq!(lines[0]["observed"]["changes"][0]["kind"], "deleted");
    assert_eq!(lines[0]["verdict"]["label"], "confirmed");
    assert_eq!(lines[1]["effects"], false);
    assert_eq!(lines[1]["verdict"]["label"], "not_confirmed");
}

/// Without a sandbox, `--bash` says so under each finding and on stderr,
/// and `rbv oracle shell` fails: never a silent pass. Needs no sandbox.
#[test]
fn a_missing_sandbox_is_said_loudly() {
    let dir = tempfile::tempdir().unwrap();
    let nowhere = [("RBV_UNSHARE", "/nonexistent/unshare")];
    let (code, out, err) = rbv(
        &[
            "fuzz",
            "--target",
            "shell_bypass",
            "--mutant",
            "quoted-string-blind",
            "--bash",
            "--max-execs",
            "3000",
            "--stop-at-first",
            "--artifact-dir",
            dir.path().to_str().unwrap(),
        ],
        &nowhere,
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        err.contains("WARNING: the bash sandbox is unavailable"),
        "{err}"
    );
    assert!(out.contains("# not judged by bash:"), "{out}");
    let (code, _, err) = rbv(&["oracle", "shell", "true"], &nowhere);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/nonexistent/unshare"), "{err}");
    let (code, _, err) = rbv(&["fuzz", "--target", "sql_bypass", "--bash"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("--bash judges shell_bypass findings"), "{err}");
}
