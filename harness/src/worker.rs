//! The worker pool: persistent connections, each case in a fresh session,
//! a connection replaced after any error, and every case ending exactly once.

use crate::case::{execute, Case, Exchange};
use crate::transport::Connect;
use crate::transport::{Identity, Transport, TransportError};
use crate::verdict::{ErrorKind, ErrorVerdict, Verdict};
use crossbeam_channel::unbounded;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

/// How often a worker tries to start the implementation before it gives up
/// on the cases it would have run.
pub const CONNECT_ATTEMPTS: usize = 3;

/// How one case ended, and where it ran.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub id: String,
    pub verdict: Verdict,
    /// The requests and answers a report shows (those of the deciding
    /// step, see `bounds::bound_result`: none for a pass); `None` when the
    /// case never reached an implementation.
    pub exchanges: Option<Vec<Exchange>>,
    /// `<worker>-<n>`; empty when no worker ran the case.
    pub session: String,
    pub duration: Duration,
}

/// What the pool returns: one result per case, in the order of the input.
#[derive(Debug)]
pub struct PoolOutcome {
    pub results: Vec<CaseResult>,
    /// The implementation's handshake, from the first connection that
    /// succeeded.
    pub identity: Option<Identity>,
}

/// Runs `cases` on `jobs` workers (at least one). A case not started by
/// `deadline` ends unrun, as a timeout.
pub fn run_pool(
    cases: &[&Case],
    connect: &dyn Connect,
    jobs: usize,
    deadline: Option<Instant>,
) -> PoolOutcome {
    let jobs = jobs.clamp(1, cases.len().max(1));
    let (job_tx, job_rx) = unbounded::<usize>();
    for index in 0..cases.len() {
        job_tx.send(index).expect("the receiver is alive");
    }
    drop(job_tx);
    let (result_tx, result_rx) = unbounded::<(usize, CaseResult)>();
    let identity: Mutex<Option<Identity>> = Mutex::new(None);
    let last_connect_error: Mutex<Option<TransportError>> = Mutex::new(None);

    let work = |worker: usize| {
        let (job_rx, result_tx) = (job_rx.clone(), result_tx.clone());
        let (identity, last_connect_error) = (&identity, &last_connect_error);
        let mut transport: Option<Box<dyn Transport + Send>> = None;
        // The last case that passed on this connection (or failed: any
        // verdict but an error), sent once the next case ended cleanly.
        let mut held: Option<(usize, CaseResult)> = None;
        let mut n = 0usize;
        for index in job_rx.iter() {
            let case = cases[index];
            if deadline.is_some_and(|d| Instant::now() >= d) {
                let _ = result_tx.send((index, past_deadline(case)));
                continue;
            }
            if transport.is_none() {
                match connect_with_retries(connect) {
                    Ok(t) => {
                        let mut first = identity.lock().unwrap_or_else(|e| e.into_inner());
                        first.get_or_insert_with(|| t.identity().clone());
                        transport = Some(t);
                    }
                    Err(error) => {
                        let result = unreached(case, &error, connect);
                        let _ = result_tx.send((index, result));
                        *last_connect_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(error);
                        // Give the remaining cases to workers that
                        // can still connect; the runner errors
                        // whatever nobody took.
                        return;
                    }
                }
            }
            n += 1;
            let session = format!("{worker}-{n}");
            let started = Instant::now();
            let mut restarted = false;
            let (mut verdict, exchanges) = loop {
                let live = transport.as_deref_mut().expect("connected above");
                let outcome = catch_unwind(AssertUnwindSafe(|| execute(case, live, &session)));
                let ran = match outcome {
                    Ok(run) => (run.verdict, Some(run.exchanges)),
                    Err(panic) => (harness_panic(panic), None),
                };
                // The one place a restart is attributed: a child that had
                // ended before this case's first request reached it died
                // of the case before (after its last answer), not of this
                // one, which runs once more on a fresh child. A crash
                // while the case is in flight stays its own.
                if restarted || !matches!(ran.0, Verdict::Error(_)) || !live.unreached() {
                    break ran;
                }
                restarted = true;
                match connect_with_retries(connect) {
                    Ok(fresh) => transport = Some(fresh),
                    Err(_) => break ran,
                }
            };
            let duration = started.elapsed();
            let live = transport.as_deref_mut().expect("connected above");
            if !matches!(verdict, Verdict::Error(_)) {
                // An answer that came after the case's last one is
                // this case's fault, not the next one's.
                if let Err(e) = live.drain() {
                    verdict = Verdict::Error(error_verdict(e));
                }
            }
            let mut exchanges = exchanges;
            crate::bounds::bound_result(&mut verdict, exchanges.as_mut());
            // One rule for answers that answer nothing in flight (late,
            // duplicate, early, foreign): the case that read one errs, and
            // so does the case before it on this connection, whose verdict
            // waited for this case to end cleanly. The last case's waits
            // for the end of the child's output (`settle`, below).
            if live.stray() {
                if let (Some((i, mut before)), Verdict::Error(e)) = (held.take(), &verdict) {
                    broke_after(&mut before, e.clone());
                    let _ = result_tx.send((i, before));
                }
            }
            if let Some(before) = held.take() {
                let _ = result_tx.send(before);
            }
            let result = CaseResult {
                id: case.id.clone(),
                verdict,
                exchanges,
                session,
                duration,
            };
            if matches!(result.verdict, Verdict::Error(_)) {
                // The stream may be out of step: kill (and reap)
                // the child, start another for the next case.
                transport = None;
                let _ = result_tx.send((index, result));
            } else {
                held = Some((index, result));
            }
        }
        if let Some((i, mut last)) = held.take() {
            if let Some(Err(e)) = transport.as_deref_mut().map(|t| t.settle()) {
                broke_after(&mut last, error_verdict(e));
            }
            let _ = result_tx.send((i, last));
        }
    };
    thread::scope(|scope| {
        let work = &work;
        for worker in 0..jobs {
            let spawned = thread::Builder::new()
                .name(format!("rbv-worker-{worker}"))
                .spawn_scoped(scope, move || work(worker));
            if spawned.is_err() {
                // Out of threads (an implementation may have used up the
                // process limit): fewer workers, or this thread alone.
                if worker == 0 {
                    work(0);
                }
                break;
            }
        }
    });
    drop(result_tx);

    let mut slots: Vec<Option<CaseResult>> = vec![None; cases.len()];
    for (index, result) in result_rx.iter() {
        assert!(
            slots[index].is_none(),
            "case {} ended twice",
            cases[index].id
        );
        slots[index] = Some(result);
    }
    // Cases no worker took: every worker gave up connecting.
    let error = last_connect_error
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    for index in job_rx.try_iter() {
        let error = error.clone().unwrap_or_else(|| TransportError {
            kind: ErrorKind::Crash,
            message: "no worker could start the implementation".into(),
            line: None,
            stderr_tail: String::new(),
        });
        slots[index] = Some(unreached(cases[index], &error, connect));
    }
    let results: Vec<CaseResult> = slots
        .into_iter()
        .enumerate()
        .map(|(i, r)| r.unwrap_or_else(|| panic!("case {} never ended", cases[i].id)))
        .collect();
    PoolOutcome {
        results,
        identity: identity.into_inner().unwrap_or_else(|e| e.into_inner()),
    }
}

fn error_verdict(e: TransportError) -> ErrorVerdict {
    ErrorVerdict {
        kind: e.kind,
        step: None,
        message: e.message,
        line: e.line,
        stderr_tail: e.stderr_tail,
    }
}

/// `result`'s verdict becomes the protocol error `e` the implementation
/// made after its last answer: an error of no step, which shows no
/// exchange.
fn broke_after(result: &mut CaseResult, e: ErrorVerdict) {
    result.verdict = Verdict::Error(ErrorVerdict {
        kind: ErrorKind::Protocol,
        step: None,
        message: format!(
            "the implementation broke the protocol after this case's last answer: {}",
            e.message
        ),
        ..e
    });
    crate::bounds::bound_result(&mut result.verdict, result.exchanges.as_mut());
}

fn connect_with_retries(
    connect: &dyn Connect,
) -> Result<Box<dyn Transport + Send>, TransportError> {
    let mut last = None;
    for attempt in 0..CONNECT_ATTEMPTS {
        if attempt > 0 {
            // A short, growing pause: a child may have lost a race for a
            // resource that frees up.
            thread::sleep(Duration::from_millis(20 << attempt));
        }
        match connect.connect() {
            Ok(transport) => return Ok(transport),
            Err(error) => last = Some(error),
        }
    }
    Err(last.expect("at least one attempt"))
}

/// The verdict of a case the run's deadline left unrun.
fn past_deadline(case: &Case) -> CaseResult {
    CaseResult {
        id: case.id.clone(),
        verdict: Verdict::Error(ErrorVerdict {
            kind: ErrorKind::Timeout,
            step: None,
            message: "not run: the run's deadline (--deadline) had passed".into(),
            line: None,
            stderr_tail: String::new(),
        }),
        exchanges: None,
        session: String::new(),
        duration: Duration::ZERO,
    }
}

/// The verdict of a case whose implementation could not be started.
fn unreached(case: &Case, error: &TransportError, connect: &dyn Connect) -> CaseResult {
    let verdict = Verdict::Error(ErrorVerdict {
        kind: error.kind,
        step: None,
        message: format!(
            "cannot start `{}` ({CONNECT_ATTEMPTS} attempts): {}",
            connect.describe(),
            error.message
        ),
        line: error.line.clone(),
        stderr_tail: error.stderr_tail.clone(),
    });
    CaseResult {
        id: case.id.clone(),
        verdict,
        exchanges: None,
        session: String::new(),
        duration: Duration::ZERO,
    }
}

fn harness_panic(panic: Box<dyn std::any::Any + Send>) -> Verdict {
    let what = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "unknown panic".into());
    Verdict::Error(ErrorVerdict {
        kind: ErrorKind::Protocol,
        step: None,
        message: format!("rbv itself failed on this case (a bug in rbv): {what}"),
        line: None,
        // rbv's own failure: the implementation's stderr would mislead.
        stderr_tail: String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{load_files, Suite};
    use crate::transport::Observation;
    use rbv_protocol::{
        HandshakeResponse, ImplementationInfo, ProjectionResponse, RequestBody, Response,
        ResponseBody,
    };
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn suite(n: usize) -> Suite {
        let catalogue =
            "requirements:\n  - {id: R-1, title: t, rule: r, section: \"§2.2\", level: MUST}\n";
        let cases: String = (0..n)
            .map(|i| {
                format!(
                    "---\nid: pool/case-{i:03}\nrequirements: [R-1]\nsource: {{note: pool test}}\n\
                     steps:\n  - project: {{reversibility: irreversible}}\n    expect: {{band: escalate}}\n"
                )
            })
            .collect();
        let files = vec![
            ("REQUIREMENTS.yaml".into(), catalogue.into()),
            ("pool.yaml".into(), cases),
        ];
        load_files(&files).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// Answers `project` with escalate; fails every `fail_every`-th exchange
    /// with a timeout (0: never).
    struct Scripted {
        identity: Identity,
        exchanges: usize,
        fail_every: usize,
    }

    impl Transport for Scripted {
        fn identity(&self) -> &Identity {
            &self.identity
        }

        fn exchange(
            &mut self,
            session: &str,
            bodies: Vec<RequestBody>,
        ) -> Result<Vec<Observation>, TransportError> {
            self.exchanges += 1;
            if self.fail_every > 0 && self.exchanges.is_multiple_of(self.fail_every) {
                return Err(TransportError {
                    kind: ErrorKind::Timeout,
                    message: "scripted".into(),
                    line: None,
                    stderr_tail: String::new(),
                });
            }
            Ok(bodies
                .iter()
                .enumerate()
                .map(|(i, _)| {
                    let response = Response {
                        id: Some(i as u64),
                        session: session.to_owned(),
                        body: ResponseBody::Projection(ProjectionResponse {
                            band: rbv_protocol::Band::Escalate,
                        }),
                    };
                    let value = response.to_value();
                    Observation {
                        line: value.to_string(),
                        value,
                        response: Ok(response),
                    }
                })
                .collect())
        }
    }

    /// Connects `allowed` times, then refuses; counts connections.
    struct Scripts {
        connects: AtomicUsize,
        allowed: usize,
        fail_every: usize,
    }

    impl Connect for Scripts {
        fn connect(&self) -> Result<Box<dyn Transport + Send>, TransportError> {
            if self.connects.fetch_add(1, Ordering::SeqCst) >= self.allowed {
                return Err(TransportError {
                    kind: ErrorKind::Crash,
                    message: "refused".into(),
                    line: None,
                    stderr_tail: "scripted stderr".into(),
                });
            }
            let identity = Identity::from_handshake(HandshakeResponse {
                protocol_version: 1,
                implementation: ImplementationInfo {
                    name: "scripted".into(),
                    version: "0".into(),
                },
                capabilities: vec!["projection".into()],
                profile: Default::default(),
            });
            Ok(Box::new(Scripted {
                identity,
                exchanges: 0,
                fail_every: self.fail_every,
            }))
        }

        fn describe(&self) -> String {
            "scripted".into()
        }
    }

    fn run(connect: &Scripts, n: usize, jobs: usize) -> PoolOutcome {
        let suite = suite(n);
        let cases: Vec<&Case> = suite.cases.iter().collect();
        let outcome = run_pool(&cases, connect, jobs, None);
        assert_eq!(outcome.results.len(), n);
        for (case, result) in cases.iter().zip(&outcome.results) {
            assert_eq!(case.id, result.id, "results come back in input order");
        }
        outcome
    }

    #[test]
    fn every_case_passes_in_a_fresh_session_on_persistent_connections() {
        let connect = Scripts {
            connects: AtomicUsize::new(0),
            allowed: usize::MAX,
            fail_every: 0,
        };
        let outcome = run(&connect, 40, 3);
        assert!(outcome.results.iter().all(|r| r.verdict.is_pass()));
        let sessions: std::collections::BTreeSet<_> =
            outcome.results.iter().map(|r| &r.session).collect();
        assert_eq!(sessions.len(), 40, "one session per case");
        // Workers connect when they take their first case: at most one
        // connection each (a fast worker may run every case alone).
        let connects = connect.connects.load(Ordering::SeqCst);
        assert!((1..=3).contains(&connects), "{connects} connections");
        assert_eq!(
            outcome.identity.unwrap().handshake.implementation.name,
            "scripted"
        );
    }

    #[test]
    fn an_error_replaces_the_connection_before_the_next_case() {
        let connect = Scripts {
            connects: AtomicUsize::new(0),
            allowed: usize::MAX,
            fail_every: 3,
        };
        let outcome = run(&connect, 30, 1);
        let errors = outcome
            .results
            .iter()
            .filter(|r| matches!(r.verdict, Verdict::Error(_)))
            .count();
        // A fresh connection fails its third case: cases 3, 6, ..., 30;
        // after each error but the last, a new connection.
        assert_eq!(errors, 10);
        assert_eq!(connect.connects.load(Ordering::SeqCst), errors);
    }

    #[test]
    fn when_no_connection_can_be_made_every_case_errors_once() {
        let connect = Scripts {
            connects: AtomicUsize::new(0),
            allowed: 0,
            fail_every: 0,
        };
        let outcome = run(&connect, 25, 4);
        for r in &outcome.results {
            match &r.verdict {
                Verdict::Error(e) => {
                    assert_eq!(e.kind, ErrorKind::Crash);
                    assert!(
                        e.message.contains("cannot start `scripted`"),
                        "{}",
                        e.message
                    );
                    assert_eq!(e.stderr_tail, "scripted stderr");
                }
                other => panic!("{}: {other:?}", r.id),
            }
        }
        assert!(outcome.identity.is_none());
        assert_eq!(
            connect.connects.load(Ordering::SeqCst),
            4 * CONNECT_ATTEMPTS,
            "bounded retries"
        );
    }

    #[test]
    fn workers_that_cannot_reconnect_leave_their_cases_to_the_others() {
        // Two workers connect; the first error ends one worker's connection
        // for good (no more connections allowed), the other finishes.
        let connect = Scripts {
            connects: AtomicUsize::new(0),
            allowed: 2,
            fail_every: 4,
        };
        let outcome = run(&connect, 20, 2);
        let passed = outcome
            .results
            .iter()
            .filter(|r| r.verdict.is_pass())
            .count();
        let errors = outcome.results.len() - passed;
        assert!(
            passed >= 3 && errors >= 2,
            "passed {passed}, errors {errors}"
        );
    }
}
