//! The hostile battery: implementations that hang, crash, lie and flood.
//! Whatever they do, a run ends in bounded time, without a panic, with
//! bounded memory, and every case ends with the verdict it deserves.

use rbv::adapter::{ProcessConfig, Target};
use rbv::case::{load_files, Suite};
use rbv::runner::{run, RunOptions, RunOutcome};
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
        },
    );
    let took = started.elapsed();
    assert!(took < limit, "the run took {took:?} (limit {limit:?})");
    assert_eq!(outcome.results.len(), suite.cases.len());
    outcome
}

/// The harness never held the flood: its peak memory stays under the
/// 100 MB a buffered huge line would take on its own. (VmHWM is per
/// process: a panicking test elsewhere in this binary, symbolizing its
/// backtrace, can also raise it; look at the first failure.)
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

#[test]
fn a_well_behaved_fake_passes_everything() {
    let outcome = run_bounded(
        Target::Process(fake("well-behaved", Duration::from_secs(5))),
        Duration::from_secs(20),
    );
    for r in &outcome.results {
        assert!(r.verdict.is_pass(), "{}: {:?}", r.id, r.verdict);
    }
}

#[test]
fn a_hang_is_a_timeout_per_case() {
    let outcome = run_bounded(
        Target::Process(fake("hang", Duration::from_millis(500))),
        Duration::from_secs(20),
    );
    assert_all(&outcome, ErrorKind::Timeout);
}

#[test]
fn a_crash_mid_case_is_a_crash_with_the_stderr_tail_and_the_child_restarts() {
    let outcome = run_bounded(
        Target::Process(fake("crash-mid-case", Duration::from_secs(5))),
        Duration::from_secs(30),
    );
    // Requests are counted per child: a fresh child answers its first and
    // dies on its second, so every two-step case crashes on step 2.
    for id in ["hostile/two-steps-a", "hostile/two-steps-b"] {
        let e = error_of(&outcome, id);
        assert_eq!(e.kind, ErrorKind::Crash, "{id}: {e:?}");
        assert!(
            e.stderr_tail.contains("fake: crashing on request"),
            "{id}: {:?}",
            e.stderr_tail
        );
    }
    let crashed = error_kinds(&outcome)
        .iter()
        .filter(|(_, k)| k.is_some())
        .count();
    let passed = outcome
        .results
        .iter()
        .filter(|r| r.verdict.is_pass())
        .count();
    assert_eq!(crashed + passed, outcome.results.len());
}

#[test]
fn garbage_is_garbage_with_the_offending_line() {
    let outcome = run_bounded(
        Target::Process(fake("garbage", Duration::from_secs(5))),
        Duration::from_secs(20),
    );
    assert_all(&outcome, ErrorKind::Garbage);
    let e = error_of(&outcome, "hostile/one-step-a");
    assert_eq!(e.line.as_deref(), Some("this is not json at all"));
}

#[test]
fn a_wrong_id_a_wrong_session_and_an_unknown_type_are_protocol_errors() {
    for mode in ["wrong-id", "wrong-session", "unknown-type"] {
        let outcome = run_bounded(
            Target::Process(fake(mode, Duration::from_secs(5))),
            Duration::from_secs(20),
        );
        assert_all(&outcome, ErrorKind::Protocol);
        let e = error_of(&outcome, "hostile/one-step-b");
        assert!(
            e.line.is_some(),
            "{mode}: the offending line is kept: {e:?}"
        );
    }
}

#[test]
fn a_100_mb_line_without_newline_is_garbage_and_never_buffered_whole() {
    let outcome = run_bounded(
        Target::Process(fake("huge-line", Duration::from_secs(10))),
        Duration::from_secs(60),
    );
    assert_all(&outcome, ErrorKind::Garbage);
    let e = error_of(&outcome, "hostile/one-step-a");
    assert!(
        e.line
            .as_deref()
            .is_some_and(|l| l.starts_with("xxxx") && l.len() < 4096),
        "{e:?}"
    );
    assert_memory_bounded();
}

#[test]
fn a_50_mb_stderr_flood_does_not_block_or_bloat_and_the_cases_pass() {
    let outcome = run_bounded(
        Target::Process(fake("stderr-flood", Duration::from_secs(20))),
        Duration::from_secs(120),
    );
    for r in &outcome.results {
        assert!(r.verdict.is_pass(), "{}: {:?}", r.id, r.verdict);
    }
    assert_memory_bounded();
}

#[test]
fn an_exit_during_the_handshake_errors_every_case_without_hanging() {
    let outcome = run_bounded(
        Target::Process(fake("exit-in-handshake", Duration::from_secs(5))),
        Duration::from_secs(20),
    );
    assert_all(&outcome, ErrorKind::Crash);
    let e = error_of(&outcome, "hostile/two-steps-a");
    assert!(e.message.contains("cannot start"), "{e:?}");
    assert!(
        e.stderr_tail.contains("giving up during the handshake"),
        "{e:?}"
    );
}

#[test]
fn an_answer_just_under_the_timeout_passes_and_just_over_times_out() {
    let timeout = Duration::from_millis(1500);
    let mut under = fake("slow", timeout);
    under.command.push_str(" 1.0");
    let outcome = run_bounded(Target::Process(under), Duration::from_secs(30));
    for r in &outcome.results {
        assert!(r.verdict.is_pass(), "{}: {:?}", r.id, r.verdict);
    }
    let mut over = fake("slow", Duration::from_millis(300));
    over.command.push_str(" 1.0");
    let outcome = run_bounded(Target::Process(over), Duration::from_secs(30));
    assert_all(&outcome, ErrorKind::Timeout);
}

#[test]
fn spawn_per_case_survives_the_same_hostility() {
    let outcome = run_bounded(
        Target::SpawnPerCase(fake("crash-mid-case", Duration::from_secs(5))),
        Duration::from_secs(30),
    );
    // A fresh child per case: every two-step case dies on step 2, every
    // one-step case passes.
    for r in &outcome.results {
        let two_steps = r.id.contains("two-steps");
        match &r.verdict {
            Verdict::Error(e) if two_steps => assert_eq!(e.kind, ErrorKind::Crash),
            Verdict::Pass if !two_steps => {}
            other => panic!("{}: {other:?}", r.id),
        }
    }
}

#[test]
fn when_no_worker_can_restart_the_implementation_every_remaining_case_still_ends() {
    let dir = tempfile::tempdir().expect("temp dir");
    let marker = dir.path().join("started");
    let mut config = fake("one-life", Duration::from_secs(5));
    config.command.push_str(&format!(" '{}'", marker.display()));
    let outcome = run_bounded(Target::Process(config), Duration::from_secs(30));
    // The one life ends at the first crash; every later start dies in its
    // handshake, so no worker can go on and the rest are errored unrun.
    let unstartable = outcome
        .results
        .iter()
        .filter(|r| matches!(&r.verdict, Verdict::Error(e) if e.message.contains("cannot start")))
        .count();
    assert!(unstartable >= 1, "{:?}", error_kinds(&outcome));
    for r in &outcome.results {
        assert!(
            matches!(r.verdict, Verdict::Pass | Verdict::Error(_)),
            "{}: {:?}",
            r.id,
            r.verdict
        );
    }
}

#[test]
fn pipelined_answers_out_of_order_are_matched_by_id() {
    let suite = suite_of(&[CASES, PIPELINED]);
    let outcome = run_suite(
        &suite,
        Target::Process(fake("reverse", Duration::from_secs(5))),
        Duration::from_secs(20),
    );
    for r in &outcome.results {
        assert!(r.verdict.is_pass(), "{}: {:?}", r.id, r.verdict);
    }
    let run = outcome
        .results
        .iter()
        .find(|r| r.id == "hostile/pipelined")
        .and_then(|r| r.run.as_ref())
        .unwrap();
    // Each answer is paired with its own request: only the first asks
    // for reversible-local-trusted, the one `auto`, and it came last.
    let bands: Vec<_> = run
        .exchanges
        .iter()
        .filter_map(|e| e.response.as_ref()?.get("band")?.as_str())
        .collect();
    assert_eq!(
        bands,
        ["auto", "escalate", "escalate", "escalate"],
        "answers in request order"
    );
}

#[test]
fn protocol_validation_reports_the_schema_violation() {
    // Without validation the typed parse already refuses `Escalate`.
    let lenient = run_bounded(
        Target::Process(fake("bad-band", Duration::from_secs(5))),
        Duration::from_secs(20),
    );
    assert_all(&lenient, ErrorKind::Protocol);
    assert!(!error_of(&lenient, "hostile/one-step-a")
        .message
        .contains("protocol violation"));
    // With it, the schema names what is wrong, before any parse.
    let validator = rbv_protocol::schema::ProtocolValidator::new();
    let mut strict = fake("bad-band", Duration::from_secs(5));
    strict.validate = Some(std::sync::Arc::new(move |v| validator.validate_response(v)));
    let outcome = run_bounded(Target::Process(strict), Duration::from_secs(20));
    assert_all(&outcome, ErrorKind::Protocol);
    let e = error_of(&outcome, "hostile/one-step-a");
    assert!(
        e.message.contains("protocol violation") && e.message.contains("/band"),
        "{e:?}"
    );
    assert!(
        e.line.as_deref().is_some_and(|l| l.contains("Escalate")),
        "{e:?}"
    );
}

#[test]
fn an_answer_the_engine_refuses_carries_the_stderr_printed_before_it() {
    let cases = [
        ("traceback", "not a valid answer"),
        (
            "traceback-unsupported",
            "claims projection but answered unsupported",
        ),
    ];
    for (mode, refusal) in cases {
        let config = fake(mode, Duration::from_secs(5));
        for target in [
            Target::Process(config.clone()),
            Target::SpawnPerCase(config),
        ] {
            let outcome = run_bounded(target, Duration::from_secs(20));
            assert_all(&outcome, ErrorKind::Protocol);
            let e = error_of(&outcome, "hostile/one-step-a");
            // The case engine refused the answer, not the transport.
            assert!(e.message.contains(refusal), "{mode}: {e:?}");
            assert!(e.stderr_tail.contains("boom-7f3a"), "{mode}: {e:?}");
        }
    }
}

#[test]
fn a_child_that_stops_reading_cannot_block_a_large_write() {
    // One request far larger than a pipe's buffer (64 KiB): the write
    // itself would block forever on a child that reads nothing.
    let big = format!(
        "id: hostile/big-request\nrequirements: [RBV-PRJ-001]\nsource: {{note: hostile battery}}\n\
         steps:\n  - validate_manifest:\n      manifest: {{name: big, description: \"{}\"}}\n",
        "d".repeat(300_000)
    );
    let suite = suite_of(&[&big]);
    let outcome = run_suite(
        &suite,
        Target::Process(fake("deaf", Duration::from_millis(500))),
        Duration::from_secs(20),
    );
    assert_all(&outcome, ErrorKind::Timeout);
}

/// `rbv run` with two workers, each stuck on a `stubborn` implementation
/// that only SIGKILL ends. Dropping it kills whatever a failing test left.
struct HungRun {
    rbv: Child,
    implementations: Vec<Pid>,
    dirs: [tempfile::TempDir; 2],
}

impl Drop for HungRun {
    fn drop(&mut self) {
        let _ = self.rbv.kill();
        let _ = self.rbv.wait();
        for &pid in &self.implementations {
            if !gone(pid) {
                let _ = kill_process(pid, Signal::KILL);
            }
        }
    }
}

/// Starts the run through `sh -c "{prelude}exec rbv …"` and waits until
/// both implementations hang on a request, in groups of their own.
fn hung_run(prelude: &str) -> HungRun {
    let corpus = tempfile::tempdir().expect("temp dir");
    std::fs::write(corpus.path().join("REQUIREMENTS.yaml"), REQUIREMENTS).unwrap();
    std::fs::create_dir(corpus.path().join("hostile")).unwrap();
    std::fs::write(corpus.path().join("hostile/cases.yaml"), CASES).unwrap();
    let pids = tempfile::tempdir().expect("temp dir");
    let implementation = format!("{} '{}'", fake_command("stubborn"), pids.path().display());
    let rbv = Command::new("sh")
        .arg("-c")
        .arg(format!("{prelude}exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_rbv"))
        .args(["run", "--jobs", "2", "--timeout", "60000", "--impl"])
        .arg(&implementation)
        .arg("--cases")
        .arg(corpus.path())
        .env_remove("RBV_IMPL")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rbv");
    let mut run = HungRun {
        rbv,
        implementations: Vec::new(),
        dirs: [corpus, pids],
    };
    let hung = poll_until(Duration::from_secs(10), || {
        run.implementations = pids_in(run.dirs[1].path());
        run.implementations.len() == 2
    });
    assert!(hung, "implementations hung: {:?}", run.implementations);
    run
}

/// Sends SIGINT to rbv: it must exit 130 at once, saying so, and take
/// both implementations with it.
fn interrupt(run: &mut HungRun) {
    kill_process(Pid::from_child(&run.rbv), Signal::INT).expect("interrupt rbv");
    let status = wait_within(&mut run.rbv, Duration::from_secs(5));
    let mut stderr = String::new();
    if status.is_some() {
        let mut pipe = run.rbv.stderr.take().expect("stderr is piped");
        pipe.read_to_string(&mut stderr).expect("read stderr");
    }
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(130),
        "{status:?}, stderr: {stderr}"
    );
    assert!(
        stderr.contains("rbv: interrupted (SIGINT); stopped 2 implementation processes"),
        "{stderr}"
    );
    for &pid in &run.implementations {
        assert!(
            poll_until(Duration::from_secs(5), || gone(pid)),
            "implementation {pid:?} outlived rbv"
        );
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

#[test]
fn an_interrupted_run_kills_every_implementation_and_exits_130() {
    let mut run = hung_run("");
    interrupt(&mut run);
}

#[test]
fn a_hangup_rbv_was_started_ignoring_stays_ignored() {
    // What `nohup rbv run …` does.
    let mut run = hung_run("trap '' HUP; ");
    kill_process(Pid::from_child(&run.rbv), Signal::HUP).expect("hang up on rbv");
    let status = wait_within(&mut run.rbv, Duration::from_millis(500));
    assert_eq!(status, None, "rbv died of an ignored SIGHUP");
    interrupt(&mut run);
}
