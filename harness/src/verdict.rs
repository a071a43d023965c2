//! How a case ended. Every case ends in exactly one of these.

use serde::{Deserialize, Serialize};

/// The outcome of one case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail(Failure),
    /// Not run, with the reason (an unclaimed capability, a profile that
    /// does not apply).
    Skip {
        reason: String,
    },
    /// The implementation misbehaved: crashed, hung, answered garbage or
    /// broke the protocol.
    Error(ErrorVerdict),
}

// The kinds of failure and error are the published result model's: the
// report records what the engine decided, with no conversion between them.
pub use rbv_report::model::{ErrorKind, FailKind};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailKind,
    /// Index of the step whose expectation failed.
    pub step: usize,
    pub message: String,
    /// What the case expected, as text (YAML or JSON).
    pub expected: String,
    /// What the implementation answered, as text.
    pub observed: String,
    /// A unified diff of `expected` against `observed` (may be empty).
    pub diff: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorVerdict {
    pub kind: ErrorKind,
    pub step: Option<usize>,
    pub message: String,
    /// The offending line (truncated), if there was one.
    pub line: Option<String>,
    /// The last lines the child wrote to stderr.
    pub stderr_tail: String,
}

impl Verdict {
    /// A short word for summaries: `pass`, `under`, `over`, `mismatch`,
    /// `skip`, `error`.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail(f) => f.kind.as_str(),
            Verdict::Skip { .. } => "skip",
            Verdict::Error(_) => "error",
        }
    }

    pub fn is_pass(&self) -> bool {
        matches!(self, Verdict::Pass)
    }

    /// The step that decided a failure or an error; `None` for a pass, a
    /// skip, and an error outside any step (a crash between cases).
    pub fn step(&self) -> Option<usize> {
        match self {
            Verdict::Fail(f) => Some(f.step),
            Verdict::Error(e) => e.step,
            Verdict::Pass | Verdict::Skip { .. } => None,
        }
    }
}
