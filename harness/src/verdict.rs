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

/// Which way an expectation was missed. The proposal counts both errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailKind {
    /// Less safe than required: a band below the floor, a replayed token
    /// that worked, an approval minted for a model. Always a failure.
    Under,
    /// More cautious than required: a prompt nobody needed (precision).
    Over,
    /// Neither direction applies (a wrong field, a wrong response type).
    Mismatch,
}

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The child exited or closed its stdout.
    Crash,
    /// No answer within the per-request timeout.
    Timeout,
    /// A line that is not JSON, or an oversized line.
    Garbage,
    /// JSON, but not a valid answer: wrong id or session, unknown type,
    /// a body that does not match the schema, a claimed capability answered
    /// with `unsupported`.
    Protocol,
}

impl ErrorKind {
    /// `crash`, `timeout`, `garbage` or `protocol`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Crash => "crash",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Garbage => "garbage",
            ErrorKind::Protocol => "protocol",
        }
    }
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
            Verdict::Fail(f) => match f.kind {
                FailKind::Under => "under",
                FailKind::Over => "over",
                FailKind::Mismatch => "mismatch",
            },
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
