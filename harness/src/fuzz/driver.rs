//! The stable-toolchain driver behind `rbv fuzz`: the same targets as the
//! cargo-fuzz binaries, fed by a seeded RNG instead of libFuzzer's
//! coverage-guided mutation. A run is reproducible from its seed.

use super::finding::{Bug, Finding};
use super::minimize::{self, Budget};
use super::rng::SplitMix64;
use super::subject::Subject;
use super::targets::Target;
use arbitrary::Unstructured;
use std::collections::HashMap;
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Options {
    pub seed: u64,
    /// Stop after this long…
    pub time: Duration,
    /// …or after this many execs, whichever comes first.
    pub max_execs: u64,
    /// Stop at the first finding (CI smoke) or collect distinct findings.
    pub stop_at_first: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seed: 0,
            time: Duration::from_secs(60),
            max_execs: u64::MAX,
            stop_at_first: false,
        }
    }
}

/// One finding with the bytes that reproduce it.
#[derive(Clone, Debug)]
pub struct Found {
    pub finding: Finding,
    pub artifact: Vec<u8>,
    /// Execs and time until it was found.
    pub after_execs: u64,
    pub after: Duration,
    /// How many execs found this input (the same shrunk case), this one
    /// included; once a bug (`Finding::bug`, as found) has been shrunk
    /// [`SHRINKS_PER_BUG`] times, its further execs count on the input its
    /// last shrink became.
    pub count: u64,
    /// The length of the input that found it, before shrinking.
    pub found_len: usize,
    /// [`minimize::signature`] of the shrunk finding: what tells two apart.
    pub signature: [u8; 32],
}

/// How many findings of one bug (`Finding::bug`) are shrunk and compared;
/// past that, an exec that finds the bug again only counts. Each shrink
/// costs up to [`Budget::default`].
pub const SHRINKS_PER_BUG: u32 = 8;

#[derive(Clone, Debug)]
pub struct Outcome {
    /// Execs the implementation answered in full.
    pub execs: u64,
    pub elapsed: Duration,
    /// Distinct findings: each input shrunk, and kept when no earlier
    /// finding shrank to the same case (`minimize::signature`). Several
    /// may show one bug: `Outcome::groups` (`fuzz::group`) has one entry
    /// per bug.
    pub found: Vec<Found>,
    /// How often the implementation failed (crash, hang, garbage) and was
    /// started again.
    pub restarts: u32,
    /// Set when the run stopped because the implementation kept failing:
    /// its execs prove nothing past that point.
    pub died: Option<String>,
}

/// How often a failing implementation is started again before the run
/// gives up on it.
pub const MAX_RESTARTS: u32 = 3;

impl Outcome {
    pub fn execs_per_second(&self) -> f64 {
        self.execs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// The bytes of exec `i` of a run seeded with `seed`.
pub fn artifact(seed: u64, i: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed ^ i.wrapping_mul(0xA24B_AED4_963E_E407));
    let len = 64 + (rng.next_u64() % 960) as usize;
    rng.bytes(len)
}

/// What a progress display shows, a few times a second.
#[derive(Clone, Copy, Debug)]
pub struct Tick {
    pub execs: u64,
    pub elapsed: Duration,
    pub findings: usize,
}

pub fn drive(target: &Target, subject: &mut dyn Subject, options: &Options) -> Outcome {
    drive_with(target, subject, options, &mut |_| {})
}

/// [`drive`], calling `tick` about every 200 ms.
pub fn drive_with(
    target: &Target,
    subject: &mut dyn Subject,
    options: &Options,
    tick: &mut dyn FnMut(Tick),
) -> Outcome {
    const EVERY: Duration = Duration::from_millis(200);
    let start = Instant::now();
    let mut found: Vec<Found> = Vec::new();
    let mut execs = 0;
    let mut attempt = 0;
    let mut restarts = 0;
    let mut died = None;
    let mut last_tick = Duration::ZERO;
    let mut shrunk: HashMap<Bug, (u32, usize)> = HashMap::new();
    while execs < options.max_execs && start.elapsed() < options.time {
        let elapsed = start.elapsed();
        if elapsed - last_tick >= EVERY {
            last_tick = elapsed;
            tick(Tick {
                execs,
                elapsed,
                findings: found.len(),
            });
        }
        // The input stream goes on past an exec the implementation failed:
        // the next input is tried on the restarted child.
        let bytes = artifact(options.seed, attempt);
        attempt += 1;
        let checked = (target.check)(&mut Unstructured::new(&bytes), subject);
        subject.end_exec();
        let failure = subject.take_failure();
        let judged = judged_failure(target, &checked, failure.is_some());
        if let Some(why) = failure.as_deref() {
            if judged {
                // The failure is the finding: shrinking and the next input
                // need a live implementation, and get one without it
                // counting against MAX_RESTARTS.
                died = revive(subject, why).err();
            } else {
                // Nothing was judged against a dead or hung implementation.
                died = restart(subject, &mut restarts, why);
                if died.is_some() {
                    break;
                }
                continue;
            }
        }
        execs += 1;
        let Ok(Some(finding)) = checked else {
            continue;
        };
        let after = start.elapsed();
        // Shrinking may change the family (`minimize`), so the bug as found
        // remembers which entry its last shrink became.
        let (shrinks, became) = shrunk.entry(finding.bug()).or_insert((0, 0));
        if *shrinks >= SHRINKS_PER_BUG {
            found[*became].count += 1;
            continue;
        }
        *shrinks += 1;
        let found_len = bytes.len();
        let small = if died.is_some() {
            minimize::unshrunk(bytes, finding)
        } else {
            minimize::shrink(target, subject, bytes, finding, Budget::default())
        };
        let signature = minimize::signature(&small.finding);
        if let Some(same) = found.iter().position(|f| f.signature == signature) {
            found[same].count += 1;
            *became = same;
        } else {
            *became = found.len();
            found.push(Found {
                finding: small.finding,
                artifact: small.artifact,
                after_execs: execs,
                after,
                count: 1,
                found_len,
                signature,
            });
        }
        if died.is_some() {
            break;
        }
        if let Some(why) = small.failed {
            died = restart(subject, &mut restarts, &why);
            if died.is_some() {
                break;
            }
        }
        if options.stop_at_first {
            break;
        }
    }
    Outcome {
        execs,
        elapsed: start.elapsed(),
        found,
        restarts: restarts.min(MAX_RESTARTS),
        died,
    }
}

/// Whether the implementation's failure during an exec is the exec's
/// finding (`Target::judges_failures`) rather than noise that voids it.
pub(super) fn judged_failure(
    target: &Target,
    checked: &arbitrary::Result<Option<Finding>>,
    failed: bool,
) -> bool {
    failed && target.judges_failures && matches!(checked, Ok(Some(_)))
}

/// Starts the implementation again after a failure that was a finding;
/// why the run must stop when it cannot be started.
pub(super) fn revive(subject: &mut dyn Subject, why: &str) -> Result<(), String> {
    subject
        .restart()
        .map_err(|e| format!("{why}; cannot restart it: {e}"))
}

/// Starts a failed implementation again, counting the failure; why the run
/// must stop when it failed too often or cannot be started.
fn restart(subject: &mut dyn Subject, restarts: &mut u32, why: &str) -> Option<String> {
    *restarts += 1;
    if *restarts > MAX_RESTARTS {
        return Some(format!("failed {restarts} times; last: {why}"));
    }
    subject
        .restart()
        .err()
        .map(|e| format!("{why}; cannot restart it: {e}"))
}

/// The seed corpus of a target: seeded random inputs, plus, for the
/// targets whose generators draw on the real-world corpora, one input per
/// record they can pick. Written to `corpora/<target>/` by
/// `rbv fuzz --target T --write-seeds corpora/T`.
pub fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    use super::gen::corpus;
    let mut out: Vec<(String, Vec<u8>)> = (0..32u64)
        .map(|i| (format!("seed-{i:02}"), artifact(0x5eed, i)))
        .collect();
    let records = match target {
        "sql_bypass" => corpus::pg_writes().len(),
        "url_loopback" => corpus::http_urls().len(),
        _ => 0,
    };
    out.extend((0..records).map(|i| (format!("real-{i:03}"), corpus::seed_for(i))));
    out
}
