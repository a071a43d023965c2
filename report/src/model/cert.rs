//! What a certificate says and under which conditions it was earned: the
//! run's conditions (recorded by the harness) and the certification per
//! capability (derived by [`crate::certify`]).

use super::{Counts, Level};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The name of the group of cases that need no capability: every
/// implementation is judged on it.
pub const BASE: &str = "base";

/// How rbv reached the implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RunMode {
    /// Long-lived children, many cases each (the default).
    Process,
    /// A fresh child per case (`--spawn-per-case`): cannot show state
    /// leaking between sessions.
    SpawnPerCase,
    /// The built-in reference linked in, without the protocol.
    InProcess,
}

impl RunMode {
    pub fn as_str(self) -> &'static str {
        match self {
            RunMode::Process => "process",
            RunMode::SpawnPerCase => "spawn-per-case",
            RunMode::InProcess => "in-process",
        }
    }
}

/// The conditions a run was made under: what a certificate is only valid for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Conditions {
    /// The version of the rbv that ran the suite.
    pub rbv_version: String,
    /// The implementation's command line (or what ran in process).
    pub command: String,
    pub mode: RunMode,
    /// `--filter` patterns; a run with any earns no level.
    pub filters: Vec<String>,
    /// `--validate-protocol`: every answer was checked against the schemas.
    pub validate_protocol: bool,
    /// `--timeout`: how long one answer could take.
    pub timeout_ms: u64,
    /// Workers that ran the cases.
    pub jobs: usize,
    /// Where the profile came from: `handshake` (the implementation's own),
    /// or `per-case` (the built-in reference restarted with each case's).
    pub profile_source: String,
    /// `os-arch` of the machine that ran rbv.
    pub platform: String,
    /// Cases in the suite before filtering (the run has `cases.len()`).
    pub suite_cases: usize,
    /// Every capability the suite knows, claimed or not, sorted.
    pub known_capabilities: Vec<String>,
}

/// A run that did not run the whole suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PartialRun {
    pub ran: usize,
    pub total: usize,
}

impl PartialRun {
    /// `partial run: N of M cases`.
    pub fn label(&self) -> String {
        format!("partial run: {} of {} cases", self.ran, self.total)
    }
}

/// The cases that keep a capability from one level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LevelBlockers {
    pub level: Level,
    /// Every case the level needs that did not pass (sorted ids), the
    /// blockers of the levels below included.
    pub cases: Vec<String>,
}

/// Whether and how one capability is certified.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CapabilityStatus {
    /// Claimed, and its level holds.
    Certified,
    /// The implementation does not claim it: its cases were skipped and
    /// count against nothing.
    NotClaimed,
    /// Claimed, but no case of it applied in this run.
    Untested,
    /// Claimed and judged, but the run was partial: no level.
    Partial,
}

impl CapabilityStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CapabilityStatus::Certified => "certified",
            CapabilityStatus::NotClaimed => "not claimed",
            CapabilityStatus::Untested => "untested",
            CapabilityStatus::Partial => "partial run",
        }
    }
}

/// One capability (or [`BASE`]) and its level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapabilityLevel {
    pub capability: String,
    pub status: CapabilityStatus,
    /// The level its cases reach; set only when `certified`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// Its cases' verdicts (a case needing several capabilities counts
    /// for each).
    pub counts: Counts,
    /// For each level above the one reached, the cases that block it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blockers: Vec<LevelBlockers>,
    /// Its cases that ran and did not pass but block no level (cases
    /// citing no MUST requirement that guard only the unsafe side):
    /// they fail the run without lowering the level, so the statement
    /// counts them beside it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failing_outside_levels: Vec<String>,
}

impl CapabilityLevel {
    /// `Core`, `not claimed`, `untested` or `partial run`.
    pub fn display(&self) -> String {
        match self.level {
            Some(l) => l.name().to_owned(),
            None => self.status.as_str().to_owned(),
        }
    }

    /// The blockers of the next level, empty when at the top or untested.
    pub fn next_blockers(&self) -> &[String] {
        self.blockers.first().map_or(&[], |b| b.cases.as_slice())
    }
}

/// The certificate: a level per capability and the overall statement.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Certification {
    /// One line, the certified levels first, e.g. `Precise: base,
    /// manifest · Core: sql (blocked by 2 cases) · not claimed: shell`.
    pub statement: String,
    /// Set when the run did not run the whole suite: it earns no level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialRun>,
    /// [`BASE`] first, then every capability the suite knows or the
    /// implementation claims, by name.
    pub capabilities: Vec<CapabilityLevel>,
    /// Claimed names rbv does not know (a typo is a capability not claimed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown_claims: Vec<String>,
    /// The fuzz campaign as the certificate states it ([`super::Campaign::clause`]),
    /// when one ran: `fuzzed 3 min (1.1M execs, seed 7), 0 findings`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign: Option<String>,
}

impl Certification {
    pub fn claimed(&self) -> impl Iterator<Item = &CapabilityLevel> {
        self.capabilities
            .iter()
            .filter(|c| c.status != CapabilityStatus::NotClaimed)
    }

    pub fn not_claimed(&self) -> impl Iterator<Item = &CapabilityLevel> {
        self.capabilities
            .iter()
            .filter(|c| c.status == CapabilityStatus::NotClaimed)
    }
}
