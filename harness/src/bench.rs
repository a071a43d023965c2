//! `rbv bench`: how fast the harness drives an implementation.
//!
//! (a) cases/s of the suite against the built-in reference over the protocol;
//! (b) the same requests, batch for batch, answered by `rbv serve --echo`
//!     over the same pipes: the floor that pipes and the harness's transport
//!     cost; the ratio says what judging and the reference add;
//! (c) persistent workers against `--spawn-per-case` on the same adapter;
//! (d) the reference linked in (no pipes): the reference's and the judge's share;
//! (e) the reference alone: the request lines of (a) fed straight to its
//!     server (decode, work, encode), no harness: with (b) and (d), it
//!     splits (a) into pipes, the implementation and the harness's judging.

use crate::cli::cases::CasesArgs;
use crate::cli::run::self_adapter;
use crate::runner::{self, RunOptions, Summary};
use crate::transport::{Connect, ProcessConfig, ProcessTransport, Target};
use crate::transport::{Identity, Observation, Transport, TransportError};
use clap::Args;
use crossbeam_channel::{unbounded, Receiver};
use rbv_protocol::RequestBody;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub cases: CasesArgs,
    /// Measurements per figure; medians are reported.
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Workers; default: one per core.
    #[arg(long, short = 'j', default_value_t = 0, hide_default_value = true)]
    pub jobs: usize,
}

/// Requests sent, per session, batch by batch.
type Log = Arc<Mutex<BTreeMap<String, Vec<Vec<RequestBody>>>>>;

/// Records every batch a transport sends.
struct Recorder {
    inner: Box<dyn Transport + Send>,
    log: Log,
}

impl Transport for Recorder {
    fn identity(&self) -> &Identity {
        self.inner.identity()
    }

    fn exchange(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Result<Vec<Observation>, TransportError> {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.entry(session.to_owned())
            .or_default()
            .push(bodies.clone());
        drop(log);
        self.inner.exchange(session, bodies)
    }

    fn begin_case(&mut self) {
        self.inner.begin_case();
    }

    // Raw lines (the protocol area) pass through unrecorded: the raw floor
    // replays typed batches, and a raw line is one line either way.
    fn raw(
        &mut self,
        session: &str,
        template: &str,
    ) -> Result<crate::transport::RawObservation, TransportError> {
        self.inner.raw(session, template)
    }

    fn before_handshake(
        &mut self,
        session: &str,
        template: &str,
    ) -> Result<crate::transport::RawObservation, TransportError> {
        self.inner.before_handshake(session, template)
    }

    fn drain(&mut self) -> Result<(), TransportError> {
        self.inner.drain()
    }

    fn stderr_tail(&self) -> String {
        self.inner.stderr_tail()
    }
}

struct Recording<'a> {
    target: &'a Target,
    log: Log,
}

impl Connect for Recording<'_> {
    fn connect(&self) -> Result<Box<dyn Transport + Send>, TransportError> {
        Ok(Box::new(Recorder {
            inner: self.target.connect()?,
            log: Arc::clone(&self.log),
        }))
    }

    fn describe(&self) -> String {
        self.target.describe()
    }
}

/// Hands `items` out to `jobs` workers as each frees up, the way the runner
/// hands out cases; returns each worker's result.
fn on_workers<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    work: impl Fn(usize, Receiver<&T>) -> R + Sync,
) -> Vec<R> {
    let (tx, rx) = unbounded::<&T>();
    for item in items {
        tx.send(item).expect("the receiver is alive");
    }
    drop(tx);
    let work = &work;
    thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|w| {
                let rx = rx.clone();
                scope.spawn(move || work(w, rx))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a bench worker panicked"))
            .collect()
    })
}

/// Sends every recorded batch to fresh children of `config` on `jobs`
/// workers, one session after another, as the runner would.
fn replay(
    config: &ProcessConfig,
    sessions: &[Vec<Vec<RequestBody>>],
    jobs: usize,
) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let results = on_workers(sessions, jobs, |w, rx| -> Result<(), TransportError> {
        let mut child = ProcessTransport::spawn(config)?;
        for (n, batches) in rx.iter().enumerate() {
            let session = format!("{w}-{n}");
            for batch in batches {
                child.exchange(&session, batch.clone())?;
            }
        }
        Ok(())
    });
    let elapsed = started.elapsed();
    if let Some(error) = results.into_iter().find_map(Result::err) {
        anyhow::bail!("echo replay failed: {}", error.message);
    }
    Ok(elapsed)
}

/// Time the reference spent per kind of request: count and total.
type ByKind = BTreeMap<String, (u32, Duration)>;

/// A request's kind for the breakdown: its wire type, and for operations
/// the payload kind (`evaluate sql`), which decides the inspector.
fn kind_of(body: &RequestBody) -> String {
    let operation = match body {
        RequestBody::Evaluate(r) => Some(&r.operation),
        RequestBody::Approve(r) => Some(&r.operation),
        RequestBody::Invoke(r) => Some(&r.operation),
        _ => None,
    };
    match operation.and_then(|o| o.kind) {
        Some(kind) => format!(
            "{} {}",
            body.kind(),
            serde_json::json!(kind).as_str().unwrap_or("?")
        ),
        None => body.kind().to_owned(),
    }
}

/// Feeds the recorded requests, as wire lines, straight to a reference
/// server per worker: the implementation's own share of (a). Adds each
/// request's time to `by_kind`.
fn reference_alone(lines: &[Vec<(String, String)>], jobs: usize, by_kind: &mut ByKind) -> Duration {
    let started = Instant::now();
    let per_worker = on_workers(lines, jobs, |_, rx| {
        let mut server = rbv_reference::server(None, rbv_reference::Profile::default());
        let mut mine = ByKind::new();
        for session in rx.iter() {
            for (kind, line) in session {
                let start = Instant::now();
                std::hint::black_box(server.handle_line(line));
                let entry = mine.entry(kind.clone()).or_default();
                entry.0 += 1;
                entry.1 += start.elapsed();
            }
        }
        mine
    });
    let elapsed = started.elapsed();
    for (kind, (n, took)) in per_worker.into_iter().flatten() {
        let entry = by_kind.entry(kind).or_default();
        entry.0 += n;
        entry.1 += took;
    }
    elapsed
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let suite = args.cases.load()?;
    let runs = args.runs.max(1);
    let options = RunOptions {
        filters: Vec::new(),
        jobs: args.jobs,
        deadline: None,
    };
    let jobs = options.jobs();
    // Started as `rbv run` starts them: under the launcher.
    let launcher = crate::transport::launch::launcher();
    let mut reference = ProcessConfig::new(self_adapter(None, false)?);
    reference.launcher.clone_from(&launcher);
    let mut echo = ProcessConfig::new(self_adapter(None, true)?);
    echo.launcher = launcher;
    let cases = suite.cases.len();
    println!(
        "rbv bench: {cases} cases, {jobs} workers, {runs} rounds, load average {}",
        load_average()
    );

    // (a) the suite against the reference, persistent workers.
    let persistent = Target::Process(reference.clone());
    let log: Log = Arc::default();
    let recording = Recording {
        target: &persistent,
        log: Arc::clone(&log),
    };
    let first = runner::run(&suite.cases, &recording, &options);
    let summary = Summary::of(&first.results);
    if summary.errors > 0 {
        anyhow::bail!(
            "the reference errored on {} cases; fix that before measuring",
            summary.errors
        );
    }
    let sessions: Vec<Vec<Vec<RequestBody>>> =
        std::mem::take(&mut *log.lock().unwrap_or_else(|e| e.into_inner()))
            .into_values()
            .collect();
    let requests: usize = sessions.iter().flatten().map(Vec::len).sum();
    let mut id = 0;
    let lines: Vec<Vec<(String, String)>> = sessions
        .iter()
        .enumerate()
        .map(|(n, batches)| {
            batches
                .iter()
                .flatten()
                .map(|body| {
                    id += 1;
                    let session = format!("s-{n}");
                    let kind = kind_of(body);
                    let line = rbv_protocol::Request {
                        id,
                        session,
                        body: body.clone(),
                    }
                    .to_line();
                    (kind, line)
                })
                .collect()
        })
        .collect();
    let per_case = Target::SpawnPerCase(reference);
    let in_process = Target::InProcess(None, Default::default());

    // Rounds interleave the figures, so that a load change on a shared
    // machine shifts a whole round, and ratios are taken within a round.
    let mut rounds = Vec::new();
    let mut by_kind = ByKind::new();
    for round in 0..runs {
        let a = runner::run(&suite.cases, &persistent, &options).elapsed;
        let b = replay(&echo, &sessions, jobs)?;
        let c = runner::run(&suite.cases, &per_case, &options).elapsed;
        let d = runner::run(&suite.cases, &in_process, &options).elapsed;
        let e = reference_alone(&lines, jobs, &mut by_kind);
        println!(
            "    round {}: (a) {:.1} ms  (b) {:.1} ms  (c) {:.1} ms  (d) {:.1} ms  (e) {:.1} ms  load {}",
            round + 1,
            ms(a),
            ms(b),
            ms(c),
            ms(d),
            ms(e),
            load_average()
        );
        rounds.push([a, b, c, d, e]);
    }
    let [a, b, c, d, e] =
        [0, 1, 2, 3, 4].map(|i| median(rounds.iter().map(|r| r[i].as_secs_f64()).collect()));
    let floor_ratio = median(
        rounds
            .iter()
            .map(|r| r[0].as_secs_f64() / r[1].as_secs_f64())
            .collect(),
    );
    let spawn_ratio = median(
        rounds
            .iter()
            .map(|r| r[2].as_secs_f64() / r[0].as_secs_f64())
            .collect(),
    );
    // What (a) ÷ (b) would be if the harness cost nothing: the floor plus
    // the implementation's own work. Above the target, no harness meets it
    // against this implementation.
    let bound_ratio = median(
        rounds
            .iter()
            .map(|r| (r[1] + r[4]).as_secs_f64() / r[1].as_secs_f64())
            .collect(),
    );
    let harness_share = median(
        rounds
            .iter()
            .map(|r| r[0].as_secs_f64() - r[1].as_secs_f64() - r[4].as_secs_f64())
            .collect(),
    );
    println!("medians of {runs} rounds:");
    println!(
        "(a) suite against the reference: {:.0} cases/s ({cases} cases in {:.1} ms, {requests} requests; {})",
        cases as f64 / a,
        a * 1e3,
        summary.final_line()
    );
    println!(
        "(b) raw floor, echo adapter, same {requests} requests: {:.1} ms ({:.0} requests/s); suite/floor = {floor_ratio:.2}x (target <= 1.3x)",
        b * 1e3,
        requests as f64 / b
    );
    println!(
        "(c) spawn per case: {:.0} cases/s ({:.1} ms); persistent/spawn-per-case = {spawn_ratio:.1}x (target >= 20x)",
        cases as f64 / c,
        c * 1e3
    );
    println!(
        "(d) the reference in process, no pipes: {:.0} cases/s ({:.1} ms): judging and the reference's own work",
        cases as f64 / d,
        d * 1e3
    );
    println!(
        "(e) the reference alone, the same request lines, no harness: {:.1} ms: the implementation's own share of (a)",
        e * 1e3
    );
    println!(
        "bound: ((b) + (e)) / (b) = {bound_ratio:.2}x: suite/floor with a harness that cost nothing; the harness's own share, (a) - (b) - (e), is {:.1} ms",
        harness_share * 1e3
    );
    let total: Duration = by_kind.values().map(|v| v.1).sum();
    let mut rows: Vec<_> = by_kind.into_iter().collect();
    rows.sort_by_key(|(_, (_, took))| std::cmp::Reverse(*took));
    println!("    (e) by request, all rounds: kind, requests per round, mean µs, share of (e)");
    for (kind, (n, took)) in rows {
        println!(
            "        {kind:<24} {:>5} {:>7.1} {:>5.1}%",
            n as usize / runs,
            took.as_secs_f64() * 1e6 / f64::from(n.max(1)),
            took.as_secs_f64() / total.as_secs_f64().max(1e-12) * 100.0
        );
    }
    println!("load average after: {}", load_average());
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::InProcess;

    /// The reference with a stderr of its own, as a child would have.
    struct Noisy(InProcess);

    impl Transport for Noisy {
        fn identity(&self) -> &Identity {
            self.0.identity()
        }

        fn exchange(
            &mut self,
            session: &str,
            bodies: Vec<RequestBody>,
        ) -> Result<Vec<Observation>, TransportError> {
            self.0.exchange(session, bodies)
        }

        fn stderr_tail(&self) -> String {
            "Traceback: boom".into()
        }
    }

    #[test]
    fn the_recorder_passes_the_stderr_tail_through() {
        let recorder = Recorder {
            inner: Box::new(Noisy(InProcess::new(None))),
            log: Log::default(),
        };
        assert_eq!(recorder.stderr_tail(), "Traceback: boom");
    }
}
