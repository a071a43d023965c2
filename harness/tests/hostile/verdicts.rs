//! Each misbehaviour of an implementation ends its cases with the verdict it
//! deserves.

use super::*;

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
    measured_alone(
        "verdicts::a_100_mb_line_without_newline_is_garbage_and_never_buffered_whole",
        || {
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
        },
    );
}

#[test]
fn a_50_mb_stderr_flood_does_not_block_or_bloat_and_the_cases_pass() {
    measured_alone(
        "verdicts::a_50_mb_stderr_flood_does_not_block_or_bloat_and_the_cases_pass",
        || {
            let outcome = run_bounded(
                Target::Process(fake("stderr-flood", Duration::from_secs(20))),
                Duration::from_secs(120),
            );
            for r in &outcome.results {
                assert!(r.verdict.is_pass(), "{}: {:?}", r.id, r.verdict);
            }
        },
    );
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
    // A run keeps no exchange of a passing case: the case runs once more,
    // on a transport of its own, for its whole record.
    let case = suite.case("hostile/pipelined").expect("the case");
    let target = Target::Process(fake("reverse", Duration::from_secs(5)));
    let mut transport = rbv::transport::Connect::connect(&target).expect("the fake starts");
    let run = rbv::case::execute(case, transport.as_mut(), "pipelined");
    assert!(run.verdict.is_pass(), "{:?}", run.verdict);
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
