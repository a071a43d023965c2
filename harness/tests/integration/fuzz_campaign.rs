//! `rbv run --fuzz`: the campaign after the cases is part of
//! the certificate. A client that has learned the corpus passes every case
//! and earns Precise from them; the campaign, whose inputs no list holds,
//! takes Precise away from the capability it bypasses. The reference keeps
//! Precise under the same campaign, and a bad budget is a usage error.

use rbv::fuzz::{campaign, OverTransport};
use rbv::reporting::{build_report, RunRecord};
use rbv::runner::{self, RunOptions};
use rbv::transport::{Connect, InProcess};
use rbv::transport::{Identity, Observation, RawObservation, Transport, TransportError};
use rbv_protocol::{OperationKind, RequestBody, Response};
use rbv_report::{CapabilityStatus, Level, Report, BASE};
use serde_json::Value;
use std::collections::HashSet;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// "A certificate that can be learned": a client whose developer ran the
/// suite and fixed what each case showed. While it learns, it is the
/// reference and remembers every shell line and URL it was asked about;
/// afterwards it answers those as the reference does, and `auto` for any
/// other.
struct Learned {
    reference: InProcess,
    seen: Arc<Mutex<HashSet<String>>>,
    learning: bool,
    /// Dies on what it did not learn instead of answering `auto`.
    dies: bool,
}

impl Learned {
    /// Whether the client answers `body` from outside what it learned.
    fn unseen(&self, body: &RequestBody) -> bool {
        let RequestBody::Evaluate(e) = body else {
            return false;
        };
        let key = match e.operation.kind {
            Some(OperationKind::Shell) => "command",
            Some(OperationKind::Fetch) => "url",
            _ => return false,
        };
        let Some(text) = e.operation.arguments.get(key).and_then(Value::as_str) else {
            return false;
        };
        let mut seen = self.seen.lock().unwrap();
        if self.learning {
            seen.insert(text.to_owned());
            return false;
        }
        !seen.contains(text)
    }
}

impl Transport for Learned {
    fn identity(&self) -> &Identity {
        self.reference.identity()
    }

    fn exchange(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Result<Vec<Observation>, TransportError> {
        let unseen: Vec<bool> = bodies.iter().map(|b| self.unseen(b)).collect();
        if self.dies && unseen.contains(&true) {
            return Err(TransportError {
                kind: rbv::verdict::ErrorKind::Crash,
                message: "the child exited".into(),
                line: None,
                stderr_tail: String::new(),
            });
        }
        let mut out = self.reference.exchange(session, bodies)?;
        for (o, lowered) in out.iter_mut().zip(unseen) {
            if lowered && o.value["type"] == "evaluation" {
                o.value["band"] = "auto".into();
                o.value["decision"] = "allow".into();
                if o.value["audit"].is_object() {
                    o.value["audit"]["band"] = "auto".into();
                    o.value["audit"]["decision"] = "allow".into();
                }
                o.line = o.value.to_string();
                o.response = Response::from_json(&o.value).map_err(|e| e.to_string());
            }
        }
        Ok(out)
    }

    fn raw(&mut self, session: &str, template: &str) -> Result<RawObservation, TransportError> {
        self.reference.raw(session, template)
    }

    fn before_handshake(
        &mut self,
        session: &str,
        template: &str,
    ) -> Result<RawObservation, TransportError> {
        self.reference.before_handshake(session, template)
    }
}

struct LearnedConnect {
    seen: Arc<Mutex<HashSet<String>>>,
    learning: bool,
    dies: bool,
}

impl Connect for LearnedConnect {
    fn connect(&self) -> Result<Box<dyn Transport + Send>, TransportError> {
        Ok(Box::new(Learned {
            reference: InProcess::new(None),
            seen: self.seen.clone(),
            learning: self.learning,
            dies: self.dies,
        }))
    }

    fn describe(&self) -> String {
        "a client that learned the corpus".to_owned()
    }
}

fn level(report: &Report, capability: &str) -> Option<Level> {
    let c = report
        .summary
        .certification
        .capabilities
        .iter()
        .find(|c| c.capability == capability)
        .unwrap_or_else(|| panic!("no {capability}"));
    assert_eq!(c.status, CapabilityStatus::Certified, "{capability}");
    c.level
}

/// A client that learned the corpus, and the outcome of its cases.
fn learned(dies: bool) -> (rbv::case::Suite, LearnedConnect, runner::RunOutcome) {
    let suite = rbv::case::load_files(&rbv::embedded::files()).expect("the corpus loads");
    let options = RunOptions {
        filters: Vec::new(),
        jobs: 2,
        deadline: None,
    };
    let mut connect = LearnedConnect {
        seen: Arc::default(),
        learning: true,
        dies,
    };
    runner::run(&suite.cases, &connect, &options);
    connect.learning = false;
    let outcome = runner::run(&suite.cases, &connect, &options);
    (suite, connect, outcome)
}

#[test]
fn a_client_that_learned_the_cases_loses_precise_to_the_campaign() {
    let (suite, connect, outcome) = learned(false);
    let mut record = RunRecord::new(&suite, &outcome, SystemTime::now());
    let cases_only = build_report(&record);
    // The cases alone certify it: every one of them is in what it learned.
    assert_eq!(
        cases_only.summary.counts.fail, 0,
        "{:?}",
        cases_only.summary
    );
    assert_eq!(level(&cases_only, "shell"), Some(Level::Precise));
    assert_eq!(level(&cases_only, "fetch"), Some(Level::Precise));

    let (ran, fuzzed) = fuzz_learned(&suite, &connect, &mut record);
    let campaign = fuzzed.campaign.as_ref().expect("recorded");
    for t in &ran.targets {
        if let Some(first) = t.outcome.found.iter().min_by_key(|f| f.after_execs) {
            eprintln!(
                "{}: first finding after {} execs ({:.1} ms), {} in all",
                t.target.name,
                first.after_execs,
                first.after.as_secs_f64() * 1000.0,
                t.outcome.found.len()
            );
        }
    }
    let shell: Vec<_> = campaign
        .findings
        .iter()
        .filter(|f| f.result.needs == ["shell"])
        .collect();
    assert!(!shell.is_empty(), "{:#?}", campaign.targets);
    // One failing result per bug: each target's distinct findings are
    // counted behind its bugs, none of them twice.
    for t in &campaign.targets {
        let results: Vec<_> = campaign
            .findings
            .iter()
            .filter(|f| f.target == t.name && !f.result.id.ends_with("/stopped"))
            .collect();
        assert_eq!(
            results.len(),
            t.bugs,
            "{}: {:#?}",
            t.name,
            results
                .iter()
                .map(|f| (&f.result.id, &f.result.message, f.cases))
                .collect::<Vec<_>>()
        );
        assert_eq!(
            results.iter().map(|f| f.cases).sum::<usize>(),
            t.findings,
            "{}",
            t.name
        );
        assert!(t.bugs <= t.findings, "{}", t.name);
    }
    // Each finding fails its capability and can be promoted as it is.
    for f in &shell {
        // A finding fails the way its input broke the rule, and the
        // report tells it from a case by its area.
        assert_eq!(f.result.verdict.label(), "under");
        assert!(rbv_report::FuzzFinding::is_finding(&f.result));
        assert!(f.result.guards.unsafe_side, "{:?}", f.result);
        assert!(f.reproduction.contains("source: {fuzz: shell_bypass"));
        assert!(rbv::case::load_files(&[("f.yaml".into(), f.reproduction.clone())]).is_ok());
    }
    assert!(level(&fuzzed, "shell") < Some(Level::Precise));
    assert!(level(&fuzzed, "fetch") < Some(Level::Precise));
    // What it did not learn wrong keeps its level; the findings are not
    // counted as cases.
    assert_eq!(level(&fuzzed, "sql"), Some(Level::Precise));
    assert_eq!(fuzzed.summary.counts.total, cases_only.summary.counts.total);
    assert!(fuzzed.summary.run_failed);
    let shell_blockers = &fuzzed
        .summary
        .certification
        .capabilities
        .iter()
        .find(|c| c.capability == "shell")
        .unwrap()
        .blockers;
    assert!(shell_blockers[0]
        .cases
        .iter()
        .all(|id| id.starts_with("fuzz/")));
}

/// The campaign the learned-client tests run (400 execs, seed 1) over a
/// connection that is not restarted, and the report with it.
fn fuzz_learned(
    suite: &rbv::case::Suite,
    connect: &LearnedConnect,
    record: &mut RunRecord,
) -> (campaign::Run, Report) {
    let plan = campaign::Plan {
        budget: Duration::from_secs(60),
        max_execs: Some(400),
        seed: 1,
        deadline: None,
    };
    let mut subject = OverTransport::new(connect.connect().expect("connects"));
    let ran = campaign::run(&plan, &mut subject, &mut |_, _| {});
    record.campaign = Some(ran.to_report(&suite.catalogue, "2026-12-04"));
    let fuzzed = build_report(record);
    (ran, fuzzed)
}

#[test]
fn a_client_that_dies_on_what_it_did_not_learn_loses_its_level() {
    let (suite, connect, outcome) = learned(true);
    let mut record = RunRecord::new(&suite, &outcome, SystemTime::now());
    assert_eq!(level(&build_report(&record), BASE), Some(Level::Precise));
    // Not restartable (`fuzz_learned`): the first death ends the target.
    let (_, fuzzed) = fuzz_learned(&suite, &connect, &mut record);
    let campaign = fuzzed.campaign.as_ref().unwrap();
    assert!(campaign.incomplete());
    let stopped = campaign
        .findings
        .iter()
        .find(|f| f.result.id == "fuzz/shell_bypass/stopped")
        .expect("the stopped target is a finding");
    assert_eq!(stopped.result.requirements[0].id, "RBV-PRO-001");
    // Dying is no way out of the campaign: the protocol's own level falls.
    assert_eq!(level(&fuzzed, BASE), Some(Level::None));
    assert!(fuzzed
        .summary
        .certification
        .campaign
        .as_deref()
        .unwrap()
        .contains("incomplete"));
}

fn rbv(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(args)
        .env("CI", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_reference_keeps_precise_under_the_campaign() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report");
    let (code, out, err) = rbv(&[
        "run",
        "--in-process",
        "--fuzz",
        "60s",
        "--fuzz-execs",
        "800",
        "--seed",
        "1",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let r =
        Report::from_json(&std::fs::read_to_string(report.join("report.json")).unwrap()).unwrap();
    let c = r.campaign.as_ref().expect("a campaign");
    assert!(c.findings.is_empty(), "{:#?}", c.findings);
    assert_eq!(c.execs(), 800);
    assert_eq!((c.seed, c.max_execs), (1, Some(800)));
    assert_eq!(r.summary.level, Level::Precise);
    let clause = r.summary.certification.campaign.as_deref().unwrap();
    assert!(
        clause.starts_with("fuzzed 60 s (800 execs, seed 1), 0 findings"),
        "{clause}"
    );
    assert!(out.contains(clause), "{out}");
    // Every capability has a target that reaches it, audit included.
    assert!(c.not_fuzzed.is_empty(), "{:?}", c.not_fuzzed);
    assert!(!clause.contains("not fuzzed"), "{clause}");
}

/// A capability whose targets ran no exec (a budget smaller than the
/// number of targets) is named in the certificate, not passed silently.
#[test]
fn a_capability_no_exec_reached_is_named_not_fuzzed() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report");
    let (code, out, err) = rbv(&[
        "run",
        "--in-process",
        "--fuzz",
        "60s",
        "--fuzz-execs",
        "3",
        "--seed",
        "1",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let r =
        Report::from_json(&std::fs::read_to_string(report.join("report.json")).unwrap()).unwrap();
    let c = r.campaign.as_ref().expect("a campaign");
    assert_eq!(c.execs(), 3);
    // The audit target comes last: its share of three execs is none.
    assert!(
        c.targets.iter().any(|t| t.name == "audit" && t.execs == 0),
        "{:?}",
        c.targets
            .iter()
            .map(|t| (&t.name, t.execs))
            .collect::<Vec<_>>()
    );
    assert!(
        c.not_fuzzed.iter().any(|n| n == "audit"),
        "{:?}",
        c.not_fuzzed
    );
    let clause = r.summary.certification.campaign.as_deref().unwrap();
    assert!(
        clause.contains("not fuzzed: no target reaches "),
        "{clause}"
    );
    assert!(clause.contains("audit"), "{clause}");
}

#[test]
fn a_bad_budget_is_a_usage_error() {
    for args in [
        &["run", "--fuzz", "0s"][..],
        &["run", "--fuzz", "3 fortnights"],
        &["run", "--fuzz", "1m", "--fuzz-execs", "0"],
        &["run", "--seed", "3"],
    ] {
        let (code, _, err) = rbv(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("--fuzz") || err.contains("--seed"),
            "{args:?}: {err}"
        );
    }
    let (_, _, err) = rbv(&["run", "--fuzz", "0s"]);
    assert!(err.contains("above zero"), "{err}");
}
