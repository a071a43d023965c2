//! Shrinking a finding's input before anyone reads it, and the signature
//! that tells two findings apart.
//!
//! A generator draws its structure from the input bytes, so a shorter input
//! builds a smaller case: fewer steps, shorter strings. Shrinking removes
//! chunks of bytes (halves first, then smaller pieces, as delta debugging
//! does) and keeps a removal when the target still reports the same wrong
//! answer (`Finding::same_answer`), whatever family built it: the smallest
//! input's family is the one that names the bug (`fuzz::group`). Two
//! findings whose shrunk inputs build the same case are one finding;
//! shrinking first is what makes that comparison mean something, since two
//! random inputs almost never build the same case.

use super::driver::{judged_failure, revive};
use super::finding::Finding;
use super::subject::Subject;
use super::targets::Target;
use arbitrary::Unstructured;
use sha2::{Digest, Sha256};
use std::time::{Duration, Instant};

/// How much one shrink may cost.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Checks of a candidate input (each is one exec of the implementation).
    pub checks: u32,
    pub time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            checks: 256,
            time: Duration::from_millis(500),
        }
    }
}

/// A finding's input after shrinking.
#[derive(Clone, Debug)]
pub struct Shrunk {
    pub artifact: Vec<u8>,
    pub finding: Finding,
    /// Candidate inputs tried.
    pub checks: u32,
    /// The implementation failed on a candidate (crash, hang, garbage):
    /// shrinking stopped there, and the caller restarts it.
    pub failed: Option<String>,
}

/// Shrinks `artifact` (which made `target` report `finding`) as far as the
/// budget allows while the target reports the same bug. Every candidate
/// runs on a live implementation: one that a candidate's finding failed
/// (`Target::judges_failures`) is started again. Stops early, with the best
/// input so far, when the implementation fails otherwise (`Shrunk::failed`).
pub fn shrink(
    target: &Target,
    subject: &mut dyn Subject,
    artifact: Vec<u8>,
    finding: Finding,
    budget: Budget,
) -> Shrunk {
    let start = Instant::now();
    let mut best = Shrunk {
        artifact,
        finding,
        checks: 0,
        failed: None,
    };
    let mut chunk = best.artifact.len().div_ceil(2).max(1);
    'sizes: loop {
        let mut at = 0;
        while at < best.artifact.len() {
            if best.checks >= budget.checks || start.elapsed() >= budget.time {
                break 'sizes;
            }
            let mut candidate = best.artifact.clone();
            candidate.drain(at..(at + chunk).min(candidate.len()));
            best.checks += 1;
            let checked = (target.check)(&mut Unstructured::new(&candidate), subject);
            subject.end_exec();
            if let Some(why) = subject.take_failure() {
                if !judged_failure(target, &checked, true) {
                    best.failed = Some(why);
                    break 'sizes;
                }
                // The candidate failed the implementation as the finding
                // did: judge it, on a live implementation for the next one.
                if let Err(e) = revive(subject, &why) {
                    best.failed = Some(e);
                    break 'sizes;
                }
            }
            match checked {
                Ok(Some(f)) if f.same_answer(&best.finding) => {
                    best.artifact = candidate;
                    best.finding = f;
                }
                _ => at += chunk,
            }
        }
        if chunk == 1 {
            break;
        }
        chunk /= 2;
    }
    best
}

/// A finding kept as it was found, when the implementation cannot be
/// started again to shrink it.
pub fn unshrunk(artifact: Vec<u8>, finding: Finding) -> Shrunk {
    Shrunk {
        artifact,
        finding,
        checks: 0,
        failed: None,
    }
}

/// What makes two findings the same input: the rule broken, which way, and
/// the case their input builds (its steps carry every generated value).
pub fn signature(finding: &Finding) -> [u8; 32] {
    let mut h = Sha256::new();
    for part in [
        finding.target,
        finding.requirement,
        &format!("{:?}", finding.kind),
        &finding.case.steps,
    ] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize().into()
}
