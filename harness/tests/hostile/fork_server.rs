//! `--spawn-per-case` starts each case's child from a fork server (one
//! `rbv-launch --serve` per worker): the same guarantees as a launcher per
//! child, and an implementation that stops or kills its server neither
//! hangs the run nor outlives it.

use super::processes::{fake_command_without_sh, session_leader};
use super::*;
use rbv::transport::fork_server::ForkServer;
use rbv::transport::tree::descendants_of;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;

fn launcher() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_rbv-launch"))
}

/// Fields of /proc/PID/stat after the name: (pgrp, session, tty_nr).
fn group_session_tty(pid: i32) -> (i32, i32, i32) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("a /proc stat");
    let (_, rest) = stat.rsplit_once(')').expect("a /proc stat");
    let fields: Vec<i32> = rest
        .split_whitespace()
        .skip(1)
        .take(5)
        .map(|f| f.parse().expect("a number"))
        .collect();
    (fields[1], fields[2], fields[3])
}

fn pid(raw: i32) -> Pid {
    Pid::from_raw(raw).expect("a pid")
}

#[test]
fn a_served_child_runs_on_its_pipes_in_a_group_of_its_own_and_ends_with_all_it_started() {
    // A background child, and one in a session of its own (`setsid`).
    let command = "sleep 300 & setsid sleep 300 & echo ready; exec cat";
    let server = ForkServer::start(launcher(), command).expect("start the fork server");
    let server_pid = server.lock().unwrap().pid() as i32;
    for round in 0..2 {
        let (served, mut stdin, stdout, _stderr) = ForkServer::spawn(&server).expect("spawn");
        let mut stdout = BufReader::new(stdout);
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read");
        assert_eq!(line, "ready\n", "round {round}");
        // stdin reaches the child, its answer comes back on stdout.
        stdin.write_all(b"echoed\n").expect("write");
        line.clear();
        stdout.read_line(&mut line).expect("read");
        assert_eq!(line, "echoed\n", "round {round}");

        let child = served.pid();
        let (group, session, tty) = group_session_tty(child);
        assert_eq!(group, child, "a process group of its own");
        assert_eq!(session, server_pid, "in the server's session");
        assert_eq!(tty, 0, "no controlling terminal");
        let started = descendants_of(server_pid);
        // cat, the two sleeps (the escapee included).
        assert_eq!(started.len(), 3, "round {round}: {started:?}");

        drop(served);
        for p in started {
            assert!(gone(pid(p)), "round {round}: {p} outlived its case");
        }
        assert!(descendants_of(server_pid).is_empty());
    }
    drop(server);
    assert!(gone(pid(server_pid)), "the fork server outlived its owner");
}

#[test]
fn a_served_child_s_exit_status_is_its_own() {
    let server = ForkServer::start(launcher(), "exit 7").expect("start");
    let (mut served, ..) = ForkServer::spawn(&server).expect("spawn");
    let status = served.exit_status(Duration::from_secs(5)).expect("ended");
    assert_eq!(status.code(), Some(7));

    let server = ForkServer::start(launcher(), "kill -SEGV $$").expect("start");
    let (mut served, ..) = ForkServer::spawn(&server).expect("spawn");
    let status = served.exit_status(Duration::from_secs(5)).expect("ended");
    assert_eq!(status.signal(), Some(11), "{status}");

    // Still running: no status, and the wait is bounded.
    let server = ForkServer::start(launcher(), "exec sleep 300").expect("start");
    let (mut served, ..) = ForkServer::spawn(&server).expect("spawn");
    let started = Instant::now();
    assert_eq!(served.exit_status(Duration::from_millis(200)), None);
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn a_program_that_cannot_start_is_an_error_from_the_shell_not_a_hang() {
    let server = ForkServer::start(launcher(), "/nonexistent/impl --x").expect("start");
    // stderr stays open: `sh` writes why to it (a closed pipe would kill
    // it with SIGPIPE first).
    let (mut served, _stdin, _stdout, _stderr) = ForkServer::spawn(&server).expect("spawn");
    // The direct start failed, so `sh` ran it and said why (127).
    let status = served.exit_status(Duration::from_secs(5)).expect("ended");
    assert_eq!(status.code(), Some(127));
}

#[test]
fn a_crash_under_the_fork_server_is_a_crash_verdict_with_the_child_s_status() {
    let mut config = fake("crash-mid-case", Duration::from_secs(5));
    config.launcher = Some(launcher().to_path_buf());
    let outcome = run_bounded(Target::SpawnPerCase(config), Duration::from_secs(30));
    for r in &outcome.results {
        let two_steps = r.id.contains("two-steps");
        match &r.verdict {
            Verdict::Error(e) if two_steps => {
                assert_eq!(e.kind, ErrorKind::Crash);
                assert!(e.message.contains("exit status: 3"), "{}: {e:?}", r.id);
                assert!(e.stderr_tail.contains("crashing on request"), "{e:?}");
            }
            Verdict::Pass if !two_steps => {}
            other => panic!("{}: {other:?}", r.id),
        }
    }
}

/// `rbv run --spawn-per-case` of the battery's four cases with an
/// implementation that sends `signal` to the fork server it runs under.
fn run_killing_the_server(signal: &str) -> (std::process::Output, Duration, Vec<Pid>) {
    let corpus = corpus();
    let pids = tempfile::tempdir().expect("temp dir");
    let command = fake_command_without_sh(&format!(
        "kill-launcher {signal} '{}'",
        pids.path().display()
    ));
    let started = Instant::now();
    let out = rbv_run_per_case(&command, corpus.path());
    (out, started.elapsed(), pids_in(pids.path()))
}

#[test]
fn an_implementation_that_kills_or_stops_its_fork_server_leaves_nothing_behind() {
    // SIGTERM lets the server answer the case's end and then exit: the
    // next spawn finds it gone (a race, half the runs here); four runs.
    for signal in ["KILL", "STOP", "TERM", "TERM", "TERM", "TERM"] {
        let (out, took, children) = run_killing_the_server(signal);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let survivors = killed_survivors(&children);
        assert!(
            survivors.is_empty(),
            "{signal}: outlived rbv: {survivors:?}"
        );
        // A fresh server for every case after one was lost, also when the
        // loss shows only at the next spawn: each case started its child.
        assert_eq!(children.len(), 4, "{signal}: {children:?}\n{stdout}");
        // Every case ended once.
        let summary = stdout.lines().last().unwrap_or_default();
        let counted: u32 = summary
            .trim_start_matches("rbv: ")
            .split(", ")
            .filter_map(|part| part.split(' ').next()?.parse::<u32>().ok())
            .sum();
        assert_eq!(counted, 4, "{signal}: {stdout}");
        match signal {
            // The child lives on, answering: the case passes; the server's
            // loss is noticed when the case ends.
            "KILL" | "STOP" => assert_eq!(out.status.code(), Some(0), "{signal}: {stdout}"),
            // The server ends its child: that case may fail, as a crash.
            _ => assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{signal}: {out:?}"
            ),
        }
        // A stopped server costs its answer timeout (5 s) once per case,
        // two cases per worker; nothing waits for longer.
        assert!(took < Duration::from_secs(25), "{signal}: took {took:?}");
    }
}

#[test]
fn spawn_per_case_children_run_in_the_fork_server_s_session() {
    let mut run = super::interrupt::hung_run_with(
        "",
        fake_command_without_sh,
        Path::new(env!("CARGO_BIN_EXE_rbv")),
        &["--spawn-per-case"],
    );
    for &p in &run.implementations {
        assert_eq!(session_leader(p), "rbv-launch");
        let (group, session, _) = group_session_tty(p.as_raw_nonzero().get());
        assert_eq!(group, p.as_raw_nonzero().get(), "a group of its own");
        assert_ne!(session, group, "not a session of its own");
    }
    kill_process(Pid::from_child(&run.rbv), Signal::TERM).expect("terminate rbv");
    let _ = run.rbv.wait();
}
