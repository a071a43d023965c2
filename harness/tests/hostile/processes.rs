//! Nothing an implementation starts outlives rbv, none of it reaches rbv's
//! terminal, and running out of processes is a verdict, not a crash.

use super::interrupt::hung_run_with;
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

/// `fake_command(mode)` with python3 named by its path: the launcher
/// starts such a command itself, without `sh` (`launch::exec_only`).
pub(super) fn fake_command_without_sh(mode: &str) -> String {
    let python = std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("python3"))
                .find(|p| p.is_file())
        })
        .expect("python3 on PATH");
    let command = fake_command(mode);
    let args = command.strip_prefix("python3 ").expect("python3 …");
    format!("exec '{}' {args}", python.display())
}

#[test]
fn a_child_that_leaves_its_group_does_not_outlive_the_run() {
    let corpus = corpus();
    for through_sh in [true, false] {
        let pids = tempfile::tempdir().expect("temp dir");
        let mode = format!("escape '{}'", pids.path().display());
        let command = if through_sh {
            fake_command(&mode)
        } else {
            fake_command_without_sh(&mode)
        };
        let out = rbv_run_per_case(&command, corpus.path());
        let escaped = pids_in(pids.path());
        let survivors = killed_survivors(&escaped);
        assert_eq!(out.status.code(), Some(0), "{command}: {out:?}");
        // One escapee per case, each started by its own child.
        assert_eq!(escaped.len(), 4, "{command}: {escaped:?}");
        assert!(
            survivors.is_empty(),
            "{command}: outlived rbv: {survivors:?}"
        );
    }
}

/// The name of the leader of `pid`'s session: the launcher it runs under.
pub(super) fn session_leader(pid: Pid) -> String {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.as_raw_nonzero()))
        .expect("the implementation's /proc stat");
    // After the name: state, ppid, pgrp, session.
    let (_, rest) = stat.rsplit_once(')').expect("a /proc stat");
    let session = rest.split_whitespace().nth(3).expect("a session id");
    let comm = std::fs::read_to_string(format!("/proc/{session}/comm")).unwrap_or_default();
    comm.trim_end().to_owned()
}

#[test]
fn sigkill_to_rbv_takes_every_implementation_with_it() {
    // The same binary without `rbv-launch` beside it: it falls back to
    // `rbv launch`. (A hard link: `current_exe` would see through a
    // symbolic one.)
    let alone = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    let fallback = alone.path().join("rbv");
    std::fs::hard_link(env!("CARGO_BIN_EXE_rbv"), &fallback).expect("a hard link to rbv");
    let rbv = Path::new(env!("CARGO_BIN_EXE_rbv"));
    // With `--spawn-per-case` the implementations run under each worker's
    // fork server (`rbv-launch --serve`, or `rbv launch --serve`).
    let per_case: &[&str] = &["--spawn-per-case"];
    for (command, rbv, launcher, extra) in [
        (
            fake_command as fn(&str) -> String,
            rbv,
            "rbv-launch",
            &[][..],
        ),
        (fake_command_without_sh, rbv, "rbv-launch", &[]),
        (fake_command, &fallback, "rbv", &[]),
        (fake_command, rbv, "rbv-launch", per_case),
        (fake_command_without_sh, rbv, "rbv-launch", per_case),
        (fake_command, &fallback, "rbv", per_case),
    ] {
        let mut run = hung_run_with("", command, rbv, extra);
        let what = format!("{} under {launcher} {extra:?}", command("stubborn DIR"));
        for &pid in &run.implementations {
            assert_eq!(session_leader(pid), launcher, "{what}");
        }
        kill_process(Pid::from_child(&run.rbv), Signal::KILL).expect("kill rbv");
        let _ = run.rbv.wait();
        for &pid in &run.implementations {
            assert!(
                poll_until(Duration::from_secs(5), || gone(pid)),
                "implementation {pid:?} ({what}) outlived rbv"
            );
        }
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
    // With `--spawn-per-case`, the fork server's start or its spawns fail.
    let modes: [&[&str]; 2] = [&[], &["--spawn-per-case"]];
    for (nproc, mode) in [3, 4, 5].into_iter().flat_map(|n| modes.map(|m| (n, m))) {
        let out = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg("prlimit")
            .arg(format!("--nproc={nproc}"))
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_rbv"))
            .args(["run", "--jobs", "1", "--timeout", "3s", "--impl"])
            .arg(fake_command("well-behaved"))
            .arg("--cases")
            .arg(corpus.path())
            .args(mode)
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

/// An implementation that broke the protocol during or after a case (an
/// endless flood of foreign answers after a valid one, each answer again
/// late, answers before their requests) leaves no case of it passing: the
/// last case's verdict waits for the end of the child's output, every
/// other's for the next case on its connection.
///
/// With `--spawn-per-case` each case's child is settled when the case ends:
/// what it writes after the case's last answer is that case's error.
#[test]
fn no_case_passes_during_or_before_a_protocol_violation() {
    for mode in ["flood-after", "duplicate-late", "early"] {
        for round in 0..3 {
            let config = fake(mode, Duration::from_secs(5));
            let target = match round {
                2 => Target::SpawnPerCase(config),
                _ => Target::Process(config),
            };
            let outcome = run_bounded(target, Duration::from_secs(30));
            let passed: Vec<&str> = outcome
                .results
                .iter()
                .filter(|r| matches!(r.verdict, Verdict::Pass))
                .map(|r| r.id.as_str())
                .collect();
            assert!(
                passed.is_empty(),
                "{mode} (round {round}): passed {passed:?}"
            );
            assert_all(&outcome, ErrorKind::Protocol);
        }
    }
}

/// A child that exits after a case's last answer (here after each first
/// answer of its life) is restarted for the next case, which runs on the
/// fresh one: a crash errors only the case in flight, never the cases
/// after it.
#[test]
fn a_child_that_ends_between_cases_costs_only_the_cases_in_flight() {
    let one_step: Vec<String> = (0..6)
        .map(|i| {
            format!(
                "id: hostile/one-step-{i}\nrequirements: [RBV-PRJ-001]\nsource: {{note: hostile battery}}\n\
                 steps:\n  - project: {{reversibility: irreversible, scope: local, trust: trusted}}\n    \
                 expect: {{band: escalate}}\n"
            )
        })
        .collect();
    let one_step = one_step.join("---\n");
    let suite = suite_of(&[&one_step, CASES]);
    for round in 0..3 {
        let outcome = run_suite(
            &suite,
            Target::Process(fake("exit-after 1", Duration::from_secs(5))),
            Duration::from_secs(30),
        );
        for (id, kind) in error_kinds(&outcome) {
            // A two-step case is in flight when its child ends.
            let expected = id.contains("two-steps").then_some(ErrorKind::Crash);
            assert_eq!(kind, expected, "{id} (round {round})");
        }
    }
}
