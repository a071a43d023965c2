//! The result model of one run: what was run, against what, and how every
//! case ended. It is independent of the harness's types so that reports
//! can be read, compared and rendered without the suite at hand.
//!
//! The JSON form is byte-identical across runs with the same inputs except
//! for `started`, the durations and the implementation's whole answers
//! (`cases[].answer`, which hold its clock): maps are `BTreeMap`s, lists are sorted
//! (cases by id, capabilities by name) and every derived field is computed
//! from the cases by [`Report::refresh`].
//!
//! No `#[serde(flatten)]` and no internally tagged enum holds a number:
//! the workspace builds serde_json with `arbitrary_precision`, which makes
//! numbers opaque to serde's buffering.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

mod campaign;
mod cert;
mod methods;
pub use campaign::*;
pub use cert::*;
pub use methods::{area_of, plural, rfc3339, round_ms};

/// Version of the report format; bumped when a field changes meaning.
/// 2: `summary.level` is derived from the claimed capabilities (cases of
/// unclaimed ones no longer block it) and is `none` for a partial run;
/// `conditions`, `summary.certification` and `cases[].needs` added.
/// 3: `campaign` added (`rbv run --fuzz`): its findings are failing results
/// that the certification judges beside the cases.
/// 4: a finding's verdict is of the kind of failure it found (`under`,
/// `over`, `mismatch`), no longer `fuzz`; its `fuzz/` id marks it.
pub const FORMAT_VERSION: u32 = 4;

/// One run of the suite against one implementation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Report {
    pub format_version: u32,
    pub suite: SuiteInfo,
    pub implementation: Implementation,
    /// Every requirement of the catalogue, with the status its cases give it.
    pub requirements: BTreeMap<String, Requirement>,
    /// Sorted by id.
    pub cases: Vec<CaseResult>,
    /// Derived from `cases` and `requirements`.
    pub summary: Summary,
    /// Present when a baseline of known failures was applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineStatus>,
    /// RFC 3339, UTC, whole seconds.
    pub started: String,
    /// Wall time of the whole run.
    pub duration_ms: f64,
    /// What the run was made under; absent in reports of older rbv
    /// versions. See [`Report::with_conditions`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Conditions>,
    /// The fuzz campaign run after the cases (`rbv run --fuzz`); absent
    /// when none ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign: Option<Campaign>,
}

/// Which suite was run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuiteInfo {
    /// The suite's version (rbv's version unless the cases say otherwise).
    pub version: String,
    /// sha256 over the case files' contents, sorted; see [`crate::cases_sha256`].
    pub cases_sha256: String,
}

/// The implementation as it described itself in its handshake.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Implementation {
    pub name: String,
    pub version: String,
    pub protocol_version: u32,
    /// Claimed capabilities, sorted, as spelled on the wire (also unknown ones).
    pub capabilities: Vec<String>,
    /// Profile values from the handshake.
    pub profile: BTreeMap<String, Value>,
}

/// How binding a requirement is (the catalogue's `level`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RequirementLevel {
    Must,
    Should,
    May,
    /// rbv's resolution of a point the proposal leaves open.
    Interpretation,
}

impl fmt::Display for RequirementLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl RequirementLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            RequirementLevel::Must => "MUST",
            RequirementLevel::Should => "SHOULD",
            RequirementLevel::May => "MAY",
            RequirementLevel::Interpretation => "INTERPRETATION",
        }
    }
}

/// What the catalogue says about a requirement (input to [`Report::assemble`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequirementInfo {
    pub level: RequirementLevel,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Where it comes from (a proposal section).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
}

/// A requirement with the tally of its cases.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    pub info: RequirementInfo,
    pub status: RequirementStatus,
    pub counts: Counts,
    /// How many of its cases guard the unsafe side / precision.
    pub unsafe_cases: usize,
    pub precision_cases: usize,
}

/// The status a requirement's cases give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RequirementStatus {
    /// Every case ran and passed.
    Pass,
    /// At least one case failed or errored (also a known failure).
    Fail,
    /// No case failed, but some were skipped.
    Partial,
    /// No case ran (all skipped, or the requirement has no case).
    Untested,
    /// Every case was skipped because the implementation's profile makes it
    /// not apply.
    NotApplicable,
}

/// How a case's verdicts add up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    pub total: usize,
    pub pass: usize,
    /// Failures not listed in the baseline.
    pub fail: usize,
    /// Errors not listed in the baseline.
    pub error: usize,
    pub skip: usize,
    /// Failures and errors listed in the baseline.
    pub known_failure: usize,
}

/// Which side of the two-sided verdict a case can fail on: the case
/// engine's `Case::guards()`, recorded as is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sides {
    /// One of its expectations can fail `under`.
    pub unsafe_side: bool,
    /// One of its expectations can fail `over`.
    pub precision: bool,
}

/// A requirement a case covers.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequirementRef {
    pub id: String,
    /// `None` when the catalogue does not know the id.
    pub level: Option<RequirementLevel>,
}

/// The result of one case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseResult {
    pub id: String,
    /// The first segment of the id.
    pub area: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub requirements: Vec<RequirementRef>,
    pub tags: Vec<String>,
    /// The capabilities the case needs (sorted); empty for a case every
    /// implementation runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<String>,
    /// The capabilities a failure or error of the case counts against
    /// (sorted): those of the requirements its deciding step checks
    /// (docs/certification.md, "Which capability a failure counts
    /// against"). Empty for a pass or a skip, and in reports of older rbv
    /// versions: a failure then counts against every capability it needs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counts_against: Vec<String>,
    pub guards: Sides,
    pub verdict: Verdict,
    /// Index of the step that decided a failure or error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The request of the deciding step, as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<String>,
    /// Unified diff of `expected` against `observed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// The implementation's whole answer to the deciding step (each answer
    /// of a `concurrent` step), pretty JSON as received, cut at
    /// [`MAX_ANSWER`] bytes: `observed` holds only the keys the case checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// The `reasons` of that answer, at most [`MAX_REASONS`], each cut at
    /// [`MAX_REASON`] bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// The offending line of an error verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
    pub duration_ms: f64,
    /// Set by [`crate::baseline::apply_baseline`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineMark>,
}

/// The bounds of what a report keeps of an implementation's answer.
pub const MAX_ANSWER: usize = 4096;
pub const MAX_REASONS: usize = 16;
pub const MAX_REASON: usize = 400;

/// How a case ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail { kind: FailKind },
    Skip { reason: String, cause: SkipCause },
    Error { kind: ErrorKind },
}

/// Which way an expectation was missed.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
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

/// Why a case did not run. Only a profile skip exempts a case from the
/// certification levels: it does not apply to this implementation at all.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SkipCause {
    /// The implementation does not claim a capability the case needs.
    Capability,
    /// The case applies to other profile values than the implementation's.
    Profile,
    Other,
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
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

impl Verdict {
    /// `pass`, `under`, `over`, `mismatch`, `skip`, `crash`, `timeout`,
    /// `garbage`, `protocol`.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail { kind } => kind.as_str(),
            Verdict::Skip { .. } => "skip",
            Verdict::Error { kind } => kind.as_str(),
        }
    }

    /// `pass`, `fail`, `skip` or `error`.
    pub fn status(&self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail { .. } => "fail",
            Verdict::Skip { .. } => "skip",
            Verdict::Error { .. } => "error",
        }
    }

    pub fn is_pass(&self) -> bool {
        matches!(self, Verdict::Pass)
    }

    /// A failure or an error: the case ran and did not pass.
    pub fn is_failure(&self) -> bool {
        matches!(self, Verdict::Fail { .. } | Verdict::Error { .. })
    }

    pub fn is_skip(&self) -> bool {
        matches!(self, Verdict::Skip { .. })
    }

    /// Skipped because the profile makes the case not apply.
    pub fn is_not_applicable(&self) -> bool {
        matches!(
            self,
            Verdict::Skip {
                cause: SkipCause::Profile,
                ..
            }
        )
    }
}

impl SkipCause {
    pub fn as_str(self) -> &'static str {
        match self {
            SkipCause::Capability => "capability",
            SkipCause::Profile => "profile",
            SkipCause::Other => "other",
        }
    }
}

impl FailKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FailKind::Under => "under",
            FailKind::Over => "over",
            FailKind::Mismatch => "mismatch",
        }
    }
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Crash => "crash",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Garbage => "garbage",
            ErrorKind::Protocol => "protocol",
        }
    }
}

/// A case the baseline lists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaselineMark {
    pub state: BaselineState,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BaselineState {
    /// Listed and failing: not counted as a failure of the run.
    KnownFailure,
    /// Listed but passing: the entry must go, and the run fails until it does.
    Stale,
}

/// What applying a baseline did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaselineStatus {
    pub entries: usize,
    pub known_failures: Vec<String>,
    /// Listed cases that pass.
    pub stale: Vec<String>,
    /// Listed cases this run does not contain (a filtered run, or a
    /// renamed case); reported, not an error.
    pub unmatched: Vec<String>,
}

/// Certification level, of one capability or overall (see
/// [`crate::certify`]). Ordered: each level includes the ones below.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    None,
    /// Every MUST case on the unsafe side passes.
    Safe,
    /// Every MUST case passes.
    Core,
    /// Every MUST case and every precision case passes.
    Precise,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::None => "None",
            Level::Safe => "Safe",
            Level::Core => "Core",
            Level::Precise => "Precise",
        }
    }

    pub fn next(self) -> Option<Level> {
        match self {
            Level::None => Some(Level::Safe),
            Level::Safe => Some(Level::Core),
            Level::Core => Some(Level::Precise),
            Level::Precise => None,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A share of cases that held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Score {
    pub held: usize,
    pub total: usize,
    /// `held / total` in percent, one decimal; `None` when no case counted.
    pub percent: Option<f64>,
}

impl Score {
    pub fn new(held: usize, total: usize) -> Score {
        let percent = (total > 0).then(|| (held as f64 * 1000.0 / total as f64).round() / 10.0);
        Score {
            held,
            total,
            percent,
        }
    }

    /// `98.5%`, or `n/a`.
    pub fn display(&self) -> String {
        match self.percent {
            Some(p) => format!("{p:.1}%"),
            None => "n/a".to_owned(),
        }
    }
}

/// Everything derived from the cases.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    pub counts: Counts,
    /// Verdict label → number of cases.
    pub by_label: BTreeMap<String, usize>,
    /// Share of unsafe-side cases that ran and did not fail `under` or error.
    pub safety: Score,
    /// Share of precision-side cases that ran and did not fail `over`.
    pub precision: Score,
    /// Share of cases that ran and passed.
    pub pass_rate: Score,
    /// The overall level: the lowest of the claimed capabilities' levels
    /// (see `certification`); `none` for a partial run.
    pub level: Level,
    /// Cases that keep the run from the next overall level (sorted ids).
    pub next_level_blockers: Vec<String>,
    /// The level of each capability and the statement derived from them.
    #[serde(default)]
    pub certification: Certification,
    /// Whether the run fails: an unlisted failure or error, or a stale
    /// baseline entry.
    pub run_failed: bool,
}
