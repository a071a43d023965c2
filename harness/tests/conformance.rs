//! Every case against the reference, through the real protocol: one test
//! per case, named `reference/<case-id>`, so that
//! `cargo test -p rbv --test conformance -- projection/` runs one area and
//! `cargo nextest run` runs each case in a process of its own.
//!
//! Listing loads the cases and spawns nothing. Running a case borrows an
//! idle `rbv serve` child (or starts one) and gives it back afterwards, so
//! that `cargo test` uses a few persistent children, not one per case. A
//! case written for another profile (`profile:`) borrows a child started
//! with that profile, so that no case is skipped for its profile.

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use rbv::case::{execute, load_dir, Case};
use rbv::transport::{ProcessConfig, ProcessTransport};
use rbv::verdict::Verdict;
use rbv_reference::Profile;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Children idle between cases, by the `--profile` flags they run with.
static IDLE: Mutex<BTreeMap<String, Vec<ProcessTransport>>> = Mutex::new(BTreeMap::new());
static SESSIONS: AtomicU64 = AtomicU64::new(0);

fn cases_dir() -> PathBuf {
    std::env::var_os("RBV_CASES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../cases")))
}

/// `--profile KEY=VALUE` for every key where the case's profile differs
/// from the reference's default.
fn profile_flags(case: &Case) -> String {
    let default = Profile::default().to_handshake_map();
    let wanted = Profile::from_values(&case.profile)
        .unwrap_or_default()
        .to_handshake_map();
    wanted
        .into_iter()
        .filter(|(k, v)| default.get(k) != Some(v))
        .map(|(k, v)| {
            format!(
                " --profile {k}={}",
                v.as_str().map_or_else(|| v.to_string(), str::to_owned)
            )
        })
        .collect()
}

fn config(flags: &str) -> ProcessConfig {
    ProcessConfig::new(format!("exec '{}' serve{flags}", env!("CARGO_BIN_EXE_rbv")))
}

fn give_back(flags: String, child: ProcessTransport) {
    IDLE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(flags)
        .or_default()
        .push(child);
}

fn run_case(case: &Case) -> Result<Completion, Failed> {
    let flags = profile_flags(case);
    let idle = IDLE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_mut(&flags)
        .and_then(Vec::pop);
    let mut child = match idle {
        Some(child) => child,
        None => ProcessTransport::spawn(&config(&flags)).map_err(|e| {
            format!(
                "cannot start the reference adapter: {} {}",
                e.message, e.stderr_tail
            )
        })?,
    };
    let session = format!("conformance-{}", SESSIONS.fetch_add(1, Ordering::Relaxed));
    let run = execute(case, &mut child, &session);
    let label = run.verdict.label();
    match run.verdict {
        Verdict::Pass => {
            give_back(flags, child);
            Ok(Completion::Completed)
        }
        Verdict::Skip { reason } => {
            give_back(flags, child);
            Ok(Completion::ignored_with(reason))
        }
        // The child is dropped (killed) after an error: its stream may be
        // out of step.
        Verdict::Fail(f) => Err(format!(
            "{} at step {}: {}\nexpected: {}\nobserved: {}\n{}",
            label, f.step, f.message, f.expected, f.observed, f.diff
        )
        .into()),
        Verdict::Error(e) => Err(format!(
            "error ({:?}) at step {:?}: {}\nline: {}\nstderr:\n{}",
            e.kind,
            e.step,
            e.message,
            e.line.unwrap_or_default(),
            e.stderr_tail
        )
        .into()),
    }
}

fn main() {
    let args = Arguments::from_args();
    let dir = cases_dir();
    let suite = match load_dir(&dir) {
        Ok(suite) => suite,
        Err(errors) => {
            for e in &errors {
                eprintln!("{e}");
            }
            eprintln!("{} load errors in {}", errors.len(), dir.display());
            std::process::exit(2);
        }
    };
    let trials = suite
        .cases
        .into_iter()
        .map(|case| {
            let case = Arc::new(case);
            Trial::ignorable_test(format!("reference/{}", case.id), move || run_case(&case))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
