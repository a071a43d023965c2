//! In-process certification of a Rust implementation written with
//! `rbv-adapter`: the embedded suite as one libtest-mimic trial per case,
//! run in the client's own `cargo test`, with no subprocess.
//!
//! ```toml
//! [dev-dependencies]
//! rbv = "0.1"
//!
//! [[test]]
//! name = "rbv"
//! harness = false
//! ```
//!
//! ```ignore
//! // tests/rbv.rs
//! fn main() {
//!     rbv::certify::main::<my_client::MyImpl>()
//! }
//! ```
//!
//! `cargo test --test rbv -- tokens/` runs one area: libtest's arguments
//! (filters, `--exact`, `--skip`, `--list`, `--test-threads`) work as
//! usual. A case that needs a capability the implementation does not claim,
//! or another profile, is reported ignored with the reason. When every
//! case ran, [`main`] also prints the certificate the run earned, as
//! `rbv run --report` would compute it (docs/certification.md).
//!
//! Requests reach the implementation through `Dispatcher::handle_line`, the
//! function its stdio adapter (`rbv_adapter::serve_stdio`) runs on every
//! line, so the verdicts are those `rbv run --impl` gives the adapter. Like
//! `rbv run`, each case gets a fresh session on an instance that earlier
//! cases used, so state leaking between sessions shows; an instance is
//! dropped after an error verdict. `rbv run --impl` on the adapter binary
//! remains the run that earns a published certificate (PROTOCOL.md §5.1).

use crate::case::{execute, load_dir, load_files, Case, Suite};
use crate::reporting::{build_report, RunRecord};
use crate::runner::RunOutcome;
use crate::transport::sdk::{Factory, SdkInProcess};
use crate::transport::Identity;
use crate::verdict::Verdict;
use crate::worker::CaseResult;
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use rbv_adapter::Implementation;
use rbv_report::Report;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

/// Runs the suite on `I::default()` instances as this test binary's
/// `main`, honouring libtest's command line, and exits with its status.
pub fn main<I>() -> !
where
    I: Implementation + Default + Send + 'static,
    I::Session: Send,
{
    run(I::default)
}

/// [`main`] with instances made by `factory`.
pub fn run<I, F>(factory: F) -> !
where
    I: Implementation + Send + 'static,
    I::Session: Send,
    F: Fn() -> I + Send + Sync + 'static,
{
    let args = Arguments::from_args();
    let certification = Certification::new(factory);
    let conclusion = libtest_mimic::run(&args, certification.trials());
    if let Some(report) = certification.report() {
        eprintln!(
            "rbv (in process): {}",
            report.summary.certification.statement
        );
    }
    conclusion.exit()
}

/// The suite against one implementation, as libtest trials, remembering
/// each verdict so that a complete run yields its certificate.
pub struct Certification<I: Implementation> {
    pool: Arc<Pool<I>>,
}

impl<I> Certification<I>
where
    I: Implementation + Send + 'static,
    I::Session: Send,
{
    /// The suite is the corpus built into rbv, or the directory in
    /// `RBV_CASES` (as for `rbv run`).
    pub fn new<F>(factory: F) -> Self
    where
        F: Fn() -> I + Send + Sync + 'static,
    {
        Self::with_suite(suite(), factory)
    }

    pub fn with_suite<F>(suite: Suite, factory: F) -> Self
    where
        F: Fn() -> I + Send + Sync + 'static,
    {
        Certification {
            pool: Arc::new(Pool {
                factory: Arc::new(factory),
                suite,
                idle: Mutex::new(Vec::new()),
                identity: Mutex::new(None),
                results: Mutex::new(Vec::new()),
                sessions: AtomicU64::new(0),
                started: (Instant::now(), SystemTime::now()),
            }),
        }
    }

    /// One trial per case, named by its id.
    pub fn trials(&self) -> Vec<Trial> {
        (0..self.pool.suite.cases.len())
            .map(|index| {
                let pool = Arc::clone(&self.pool);
                let id = pool.suite.cases[index].id.clone();
                Trial::ignorable_test(id, move || pool.run_case(index))
            })
            .collect()
    }

    /// The report of the run, once every case of the suite has a verdict
    /// (not after a filtered run, which earns no level anyway).
    pub fn report(&self) -> Option<Report> {
        let pool = &self.pool;
        let mut results = pool
            .results
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if results.len() != pool.suite.cases.len() {
            return None;
        }
        results.sort_by(|a, b| a.id.cmp(&b.id));
        let outcome = RunOutcome {
            results,
            identity: pool
                .identity
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            target: "in process (rbv::certify)".into(),
            elapsed: pool.started.0.elapsed(),
        };
        Some(build_report(&RunRecord::new(
            &pool.suite,
            &outcome,
            pool.started.1,
        )))
    }
}

/// The suite: `RBV_CASES` when set, else the corpus built into rbv. A
/// suite that does not load is a broken setup: panic.
fn suite() -> Suite {
    let loaded = match std::env::var_os("RBV_CASES") {
        Some(dir) => load_dir(&PathBuf::from(dir)),
        None => load_files(&crate::embedded::files()),
    };
    loaded.unwrap_or_else(|errors| {
        let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!("the cases do not load:\n{}", lines.join("\n"))
    })
}

/// Instances idle between cases (trials run on libtest's threads), and
/// the verdicts so far.
struct Pool<I: Implementation> {
    factory: Factory<I>,
    suite: Suite,
    idle: Mutex<Vec<SdkInProcess<I>>>,
    identity: Mutex<Option<Identity>>,
    results: Mutex<Vec<CaseResult>>,
    sessions: AtomicU64,
    started: (Instant, SystemTime),
}

impl<I: Implementation> Pool<I> {
    fn run_case(&self, index: usize) -> Result<Completion, Failed> {
        let case: &Case = &self.suite.cases[index];
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut instance = match idle {
            Some(instance) => instance,
            None => SdkInProcess::connect(Arc::clone(&self.factory)).map_err(|e| {
                format!(
                    "the handshake failed: {}: {}",
                    e.message,
                    e.line.unwrap_or_default()
                )
            })?,
        };
        self.identity
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(|| crate::transport::Transport::identity(&instance).clone());
        let n = self.sessions.fetch_add(1, Ordering::Relaxed);
        let session = format!("certify-{n}");
        let started = Instant::now();
        let run = execute(case, &mut instance, &session);
        let verdict = run.verdict.clone();
        self.results
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(CaseResult {
                id: case.id.clone(),
                verdict: verdict.clone(),
                exchanges: None,
                session,
                duration: started.elapsed(),
            });
        // After an error the instance may be out of step, as a child
        // would be: the next case gets a fresh one.
        if !matches!(verdict, Verdict::Error(_)) {
            self.idle
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(instance);
        }
        outcome(verdict)
    }
}

/// A verdict as libtest reports it: a failure's message says what was
/// expected and what came back, at which step.
pub fn outcome(verdict: Verdict) -> Result<Completion, Failed> {
    let label = verdict.label();
    match verdict {
        Verdict::Pass => Ok(Completion::Completed),
        Verdict::Skip { reason } => Ok(Completion::ignored_with(reason)),
        Verdict::Fail(f) => Err(format!(
            "{label} at step {}: {}\nexpected: {}\nobserved: {}\n{}",
            f.step, f.message, f.expected, f.observed, f.diff
        )
        .into()),
        Verdict::Error(e) => Err(format!(
            "error ({}) at step {:?}: {}\nline: {}",
            e.kind.as_str(),
            e.step,
            e.message,
            e.line.unwrap_or_default()
        )
        .into()),
    }
}
