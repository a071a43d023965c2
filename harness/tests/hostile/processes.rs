//! Nothing an implementation starts outlives rbv, none of it reaches rbv's
//! terminal, and running out of processes is a verdict, not a crash.

use super::interrupt::hung_run;
use super::*;

#[test]
fn an_answer_given_twice_is_the_protocol_error_of_the_case_that_caused_it() {
    let outcome = run_bounded(
        Target::Process(fake("duplicate", Duration::from_secs(5))),
        Duration::from_secs(20),
    );
    // Each case's duplicate is its own error, the last case's included:
    // none passes and leaves its duplicate to the next.
    assert_all(&outcome, ErrorKind::Protocol);
    for id in ["hostile/one-step-a", "hostile/one-step-b"] {
        let e = error_of(&outcome, id);
        assert!(e.message.contains("nobody asked for"), "{id}: {e:?}");
        assert!(e.line.as_deref().is_some_and(|l| l.contains("projection")));
    }
}

#[test]
fn a_child_that_leaves_its_group_does_not_outlive_the_run() {
    let corpus = corpus();
    let pids = tempfile::tempdir().expect("temp dir");
    let mode = format!("escape '{}'", pids.path().display());
    let out = rbv_run(&mode, corpus.path(), &["--spawn-per-case", "--jobs", "2"]);
    let escaped = pids_in(pids.path());
    let survivors: Vec<Pid> = escaped.iter().copied().filter(|&p| !gone(p)).collect();
    for &p in &survivors {
        let _ = kill_process(p, Signal::KILL);
    }
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // One escapee per case, each started by its own child.
    assert_eq!(escaped.len(), 4, "{escaped:?}");
    assert!(survivors.is_empty(), "outlived rbv: {survivors:?}");
}

#[test]
fn sigkill_to_rbv_takes_every_implementation_with_it() {
    let mut run = hung_run("");
    kill_process(Pid::from_child(&run.rbv), Signal::KILL).expect("kill rbv");
    let _ = run.rbv.wait();
    for &pid in &run.implementations {
        assert!(
            poll_until(Duration::from_secs(5), || gone(pid)),
            "implementation {pid:?} outlived rbv"
        );
    }
}

/// What the `tty` fake found when it opened /dev/tty, run by rbv inside
/// a pseudo-terminal (`script`), or `None` when `script` is missing.
fn tty_seen_by_implementation() -> Option<String> {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: util-linux `script` is not installed; no pty to test with");
        return None;
    }
    let corpus = corpus();
    let dir = tempfile::tempdir().expect("temp dir");
    let seen = dir.path().join("seen");
    let inner = format!(
        "'{}' run --impl \"{} '{}'\" --cases '{}' --filter one-step-a",
        env!("CARGO_BIN_EXE_rbv"),
        fake_command("tty"),
        seen.display(),
        corpus.path().display()
    );
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &inner, "/dev/null"])
        .env_remove("RBV_IMPL")
        .env_remove("RBV_CASES")
        .stdin(Stdio::null())
        .output()
        .expect("run script");
    let transcript = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        !transcript.contains("forged on /dev/tty"),
        "the implementation wrote to rbv's terminal: {transcript}"
    );
    Some(std::fs::read_to_string(&seen).unwrap_or_else(|e| panic!("{e}: {transcript}")))
}

#[test]
fn the_implementation_has_no_controlling_terminal() {
    if let Some(seen) = tty_seen_by_implementation() {
        assert!(seen.starts_with("refused"), "{seen}");
    }
}

#[test]
fn running_out_of_processes_gives_error_verdicts_not_a_panic() {
    // RLIMIT_NPROC does not bind root: run rbv as `nobody` under a limit.
    let root = rustix::process::getuid().is_root();
    let tools = ["setpriv", "prlimit"]
        .iter()
        .all(|t| Command::new(t).arg("--version").output().is_ok());
    if !root || !tools {
        eprintln!("SKIPPED: needs root and util-linux setpriv/prlimit to bind RLIMIT_NPROC");
        return;
    }
    let corpus = corpus();
    // `nobody` must read the corpus (a private temp dir by default).
    let open = |p: &Path, mode| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    open(corpus.path(), 0o755);
    open(&corpus.path().join("hostile"), 0o755);
    // So few tasks that rbv's own threads or the implementation's start
    // fail (rbv has a main, a signal and a worker thread).
    for nproc in [3, 4, 5] {
        let out = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg("prlimit")
            .arg(format!("--nproc={nproc}"))
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_rbv"))
            .args(["run", "--jobs", "1", "--timeout", "3000", "--impl"])
            .arg(fake_command("well-behaved"))
            .arg("--cases")
            .arg(corpus.path())
            .env_remove("RBV_IMPL")
            .env_remove("RBV_CASES")
            .env("HOME", "/tmp")
            .stdin(Stdio::null())
            .output()
            .expect("run rbv as nobody");
        check_no_panic(nproc, &out);
    }
}

fn check_no_panic(nproc: u32, out: &std::process::Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(
        out.status.code(),
        Some(101),
        "{nproc}: rbv panicked: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{nproc}: {stderr}");
    assert_eq!(out.status.code(), Some(1), "{nproc}: {stdout}\n{stderr}");
    assert!(
        stdout.contains("Resource temporarily unavailable")
            && stdout.ends_with("rbv: 0 passed, 4 failed, 0 skipped\n"),
        "{nproc}: every case is an error verdict: {stdout}"
    );
}
