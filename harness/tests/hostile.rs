//! The hostile battery: implementations that hang, crash, lie and flood,
//! case files that point elsewhere, and text meant to fool a reader.
//! Whatever they do, a run ends in bounded time, without a panic, with
//! bounded memory, nothing of theirs outlives rbv, and every case ends
//! with the verdict it deserves.
//!
//! One file per theme under `hostile/`; the shared fixtures are here.

#[path = "hostile/fork_server.rs"]
mod fork_server;
#[path = "hostile/interrupt.rs"]
mod interrupt;
#[path = "hostile/loading.rs"]
mod loading;
#[path = "hostile/memory.rs"]
mod memory;
#[path = "hostile/processes.rs"]
mod processes;
#[path = "hostile/runs.rs"]
mod runs;
#[path = "hostile/text.rs"]
mod text;
#[path = "hostile/verdicts.rs"]
mod verdicts;
#[path = "hostile/writes.rs"]
mod writes;

use rbv::case::{load_files, Suite};
use rbv::runner::{run, RunOptions, RunOutcome};
use rbv::transport::{ProcessConfig, Target};
use rbv::verdict::{ErrorKind, Verdict};
use rustix::process::{kill_process, test_kill_process, Pid, Signal};
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A tiny suite of its own, so the battery does not depend on the corpus:
/// one-step cases and two-step cases (the second step is where
/// `crash-mid-case` dies).
const CASES: &str = r#"
id: hostile/one-step-a
requirements: [RBV-PRJ-001]
source: {note: hostile battery}
steps:
  - project: {reversibility: irreversible, scope: local, trust: trusted}
    expect: {band: escalate}
---
id: hostile/one-step-b
requirements: [RBV-PRJ-001]
source: {note: hostile battery}
steps:
  - project: {reversibility: reversible, scope: external, trust: trusted}
    expect: {band: escalate}
---
id: hostile/two-steps-a
requirements: [RBV-PRJ-001]
source: {note: hostile battery}
steps:
  - project: {reversibility: irreversible, scope: external, trust: untrusted}
    expect: {band: escalate}
  - project: {reversibility: hard-to-reverse, scope: external, trust: trusted}
    expect: {band: escalate}
---
id: hostile/two-steps-b
requirements: [RBV-PRJ-001]
source: {note: hostile battery}
steps:
  - project: {reversibility: irreversible, scope: shared-remote, trust: trusted}
    expect: {band: escalate}
  - project: {reversibility: irreversible, scope: local, trust: untrusted}
    expect: {band: escalate}
"#;

const REQUIREMENTS: &str = r#"
requirements:
  - id: RBV-PRJ-001
    title: The bands project from the axes
    rule: Irreversible or external projects to escalate.
    section: "§2.2"
    level: MUST
"#;

/// Three requests written before any answer is read.
const PIPELINED: &str = r#"
id: hostile/pipelined
requirements: [RBV-PRJ-001]
source: {note: hostile battery}
steps:
  - concurrent:
      - project: {reversibility: reversible, scope: local, trust: trusted}
      - project: {reversibility: irreversible, scope: local, trust: trusted}
      - project: {reversibility: reversible, scope: external, trust: trusted}
  - project: {scope: external, trust: untrusted}
    expect: {band: escalate}
"#;

fn suite() -> Suite {
    suite_of(&[CASES])
}

fn suite_of(documents: &[&str]) -> Suite {
    let mut files = vec![("REQUIREMENTS.yaml".to_owned(), REQUIREMENTS.to_owned())];
    for (i, text) in documents.iter().enumerate() {
        files.push((format!("hostile/cases-{i}.yaml"), (*text).to_owned()));
    }
    load_files(&files).unwrap_or_else(|errors| {
        panic!(
            "the battery's own cases load: {}",
            errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

fn fake(mode: &str, timeout: Duration) -> ProcessConfig {
    let mut config = ProcessConfig::new(fake_command(mode));
    config.timeout = timeout;
    config
}

fn fake_command(mode: &str) -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/hostile/fake_adapter.py");
    format!("python3 '{script}' {mode}")
}

/// Runs the battery suite and checks the invariants every hostile run
/// shares: bounded time, bounded memory, every case ended once.
fn run_bounded(target: Target, limit: Duration) -> RunOutcome {
    run_suite(&suite(), target, limit)
}

fn run_suite(suite: &Suite, target: Target, limit: Duration) -> RunOutcome {
    let started = Instant::now();
    let outcome = run(
        &suite.cases,
        &target,
        &RunOptions {
            filters: Vec::new(),
            jobs: 2,
            deadline: None,
        },
    );
    let took = started.elapsed();
    assert!(took < limit, "the run took {took:?} (limit {limit:?})");
    assert_eq!(outcome.results.len(), suite.cases.len());
    outcome
}

/// Runs `body`, a test of this binary named `test` (its path from the
/// crate root), in a process of its own, then checks that process's peak
/// memory: VmHWM is per process, and the other tests here (a megabyte
/// answer parsed in-process, a backtrace symbolized) raise it.
fn measured_alone(test: &str, body: impl FnOnce()) {
    const ALONE: &str = "RBV_HOSTILE_MEASURED_ALONE";
    if std::env::var_os(ALONE).is_some() {
        body();
        assert_memory_bounded();
        return;
    }
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args([test, "--exact", "--test-threads=1", "--nocapture"])
        .env(ALONE, "1")
        .output()
        .expect("run the test alone");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{test} alone: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The harness never held the flood: its peak memory stays under the
/// 100 MB a buffered huge line would take on its own.
fn assert_memory_bounded() {
    let hwm = peak_rss_kib();
    assert!(hwm < 96 * 1024, "the harness peaked at {hwm} KiB");
}

/// The harness's own peak resident memory (VmHWM), in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM present");
    line.split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a number of kB")
}

fn error_kinds(outcome: &RunOutcome) -> Vec<(String, Option<ErrorKind>)> {
    outcome
        .results
        .iter()
        .map(|r| match &r.verdict {
            Verdict::Error(e) => (r.id.clone(), Some(e.kind)),
            _ => (r.id.clone(), None),
        })
        .collect()
}

fn assert_all(outcome: &RunOutcome, kind: ErrorKind) {
    for (id, got) in error_kinds(outcome) {
        assert_eq!(
            got,
            Some(kind),
            "{id}: {:?}",
            outcome.results.iter().find(|r| r.id == id).unwrap().verdict
        );
    }
}

fn error_of(outcome: &RunOutcome, id: &str) -> rbv::verdict::ErrorVerdict {
    match &outcome
        .results
        .iter()
        .find(|r| r.id == id)
        .expect("case ran")
        .verdict
    {
        Verdict::Error(e) => e.clone(),
        other => panic!("{id}: expected an error, got {other:?}"),
    }
}

fn poll_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

fn wait_within(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let mut status = None;
    poll_until(limit, || {
        status = child.try_wait().expect("wait for rbv");
        status.is_some()
    });
    status
}

/// The pids the `stubborn` fakes wrote into `dir`.
fn pids_in(dir: &Path) -> Vec<Pid> {
    std::fs::read_dir(dir)
        .expect("the pid directory")
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(Pid::from_raw)
        .collect()
}

/// Dead, or a zombie nobody reaped yet (the init of a container may not).
fn gone(pid: Pid) -> bool {
    if test_kill_process(pid).is_err() {
        return true;
    }
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.as_raw_nonzero()));
    stat.map_or(true, |s| {
        s.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

/// A cases directory holding the battery's suite.
fn corpus() -> tempfile::TempDir {
    let corpus = tempfile::tempdir().expect("temp dir");
    std::fs::write(corpus.path().join("REQUIREMENTS.yaml"), REQUIREMENTS).unwrap();
    std::fs::create_dir(corpus.path().join("hostile")).unwrap();
    std::fs::write(corpus.path().join("hostile/cases.yaml"), CASES).unwrap();
    corpus
}

/// The rbv binary, without the environment's implementation or cases.
fn rbv() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rbv"));
    command.env_remove("RBV_IMPL").env_remove("RBV_CASES");
    command
}

/// `rbv run --spawn-per-case --jobs 2 --impl COMMAND --cases CORPUS`, to
/// its end.
fn rbv_run_per_case(command: &str, corpus: &Path) -> std::process::Output {
    rbv()
        .args(["run", "--spawn-per-case", "--jobs", "2", "--impl", command])
        .arg("--cases")
        .arg(corpus)
        .stdin(Stdio::null())
        .output()
        .expect("run rbv")
}

/// Those of `pids` still alive, each SIGKILLed now: a failing test leaves
/// nothing running.
fn killed_survivors(pids: &[Pid]) -> Vec<Pid> {
    let survivors: Vec<Pid> = pids.iter().copied().filter(|&p| !gone(p)).collect();
    for &p in &survivors {
        let _ = kill_process(p, Signal::KILL);
    }
    survivors
}

/// `rbv run --impl "fake MODE" --cases CORPUS ARGS…`, to its end.
fn rbv_run(mode: &str, corpus: &Path, args: &[&str]) -> std::process::Output {
    rbv()
        .args(["run", "--impl", &fake_command(mode), "--cases"])
        .arg(corpus)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run rbv")
}
