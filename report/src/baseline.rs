//! Baselines: a checked-in list of an implementation's known failures.
//!
//! ```yaml
//! - case: sql/cte/data-modifying-delete
//!   reason: our SQL gate does not parse CTEs yet
//!   link: https://tracker.example/123     # optional
//! ```
//!
//! (The same list as JSON is accepted too.) A listed case that fails or
//! errors becomes a *known failure*: it does not fail the run. A listed case
//! that passes is *stale*: the run fails until the entry is removed, so a
//! baseline never outlives the bug it excuses. A listed case the run does
//! not contain (a filtered run) is reported as unmatched and ignored.

use crate::model::{BaselineMark, BaselineState, BaselineStatus, Report, Verdict};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One known failure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaselineEntry {
    pub case: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

/// A baseline file: entries sorted by case id, one per case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    entries: BTreeMap<String, BaselineEntry>,
}

/// Why a baseline could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a baseline (a list of {{case, reason, link?}}): {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: case `{case}` is listed twice")]
    Duplicate { path: PathBuf, case: String },
    #[error("{path}: the entry for `{case}` has an empty reason")]
    EmptyReason { path: PathBuf, case: String },
}

/// What [`Baseline::update_from`] wrote into a new entry's reason.
pub const TODO_REASON: &str = "TODO: say why this case fails";

impl Baseline {
    /// Builds a baseline from entries; a case listed twice is an error.
    pub fn from_entries(
        path: &Path,
        entries: Vec<BaselineEntry>,
    ) -> Result<Baseline, BaselineError> {
        let mut map = BTreeMap::new();
        for e in entries {
            if e.reason.trim().is_empty() {
                return Err(BaselineError::EmptyReason {
                    path: path.into(),
                    case: e.case,
                });
            }
            if map.contains_key(&e.case) {
                return Err(BaselineError::Duplicate {
                    path: path.into(),
                    case: e.case,
                });
            }
            map.insert(e.case.clone(), e);
        }
        Ok(Baseline { entries: map })
    }

    /// Parses a baseline; `path` names it in errors and decides the syntax
    /// (`.json` is JSON, anything else YAML).
    pub fn parse(path: &Path, text: &str) -> Result<Baseline, BaselineError> {
        let parse_err = |message: String| BaselineError::Parse {
            path: path.into(),
            message,
        };
        let entries: Vec<BaselineEntry> = if is_json(path) {
            serde_json::from_str(text).map_err(|e| parse_err(e.to_string()))?
        } else if text.trim().is_empty() {
            Vec::new()
        } else {
            serde_saphyr::from_str(text).map_err(|e| parse_err(e.to_string()))?
        };
        Baseline::from_entries(path, entries)
    }

    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Io {
            path: path.into(),
            source,
        })?;
        Baseline::parse(path, &text)
    }

    /// Writes the baseline (JSON for `.json`, else YAML).
    pub fn save(&self, path: &Path) -> Result<(), BaselineError> {
        std::fs::write(path, self.to_text(path)).map_err(|source| BaselineError::Io {
            path: path.into(),
            source,
        })
    }

    /// The file's text for `path`'s syntax.
    pub fn to_text(&self, path: &Path) -> String {
        let entries: Vec<&BaselineEntry> = self.entries.values().collect();
        if is_json(path) {
            let mut s = serde_json::to_string_pretty(&entries).expect("entries serialize");
            s.push('\n');
            s
        } else if entries.is_empty() {
            "[]\n".to_owned()
        } else {
            let mut s = String::from(
                "# Known failures: a listed case that passes fails the run (stale entry).\n",
            );
            s.push_str(&serde_saphyr::to_string(&entries).expect("entries serialize"));
            s
        }
    }

    pub fn entries(&self) -> impl Iterator<Item = &BaselineEntry> {
        self.entries.values()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, case: &str) -> Option<&BaselineEntry> {
        self.entries.get(case)
    }

    /// The baseline a run asks for: one entry per failing or erroring case,
    /// keeping the reason and link of entries `self` already has; cases
    /// that now pass or are gone drop out. A failing case that `self` does
    /// not list gets [`TODO_REASON`].
    pub fn update_from(&self, report: &Report) -> Baseline {
        let entries = report
            .cases
            .iter()
            .filter(|c| c.verdict.is_failure())
            .map(|c| {
                let old = self.entries.get(&c.id);
                let entry = BaselineEntry {
                    case: c.id.clone(),
                    reason: old
                        .map(|e| e.reason.clone())
                        .unwrap_or_else(|| format!("{TODO_REASON} (was: {})", c.headline())),
                    link: old.and_then(|e| e.link.clone()),
                };
                (c.id.clone(), entry)
            })
            .collect();
        Baseline { entries }
    }
}

fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// Marks the cases a baseline lists and records the outcome in
/// `report.baseline`; recomputes the summary, whose `run_failed` then
/// ignores known failures and is set by any stale entry. Applying a second
/// baseline replaces the first.
pub fn apply_baseline(report: &mut Report, baseline: &Baseline) -> BaselineStatus {
    let mut status = BaselineStatus {
        entries: baseline.len(),
        ..BaselineStatus::default()
    };
    let mut seen = BTreeSet::new();
    for case in &mut report.cases {
        case.baseline = None;
        let Some(entry) = baseline.get(&case.id) else {
            continue;
        };
        seen.insert(case.id.clone());
        let state = match &case.verdict {
            Verdict::Fail { .. } | Verdict::Error { .. } => BaselineState::KnownFailure,
            Verdict::Pass => BaselineState::Stale,
            // Not run: neither excused nor proven stale.
            Verdict::Skip { .. } => continue,
        };
        match state {
            BaselineState::KnownFailure => status.known_failures.push(case.id.clone()),
            BaselineState::Stale => status.stale.push(case.id.clone()),
        }
        case.baseline = Some(BaselineMark {
            state,
            reason: entry.reason.clone(),
            link: entry.link.clone(),
        });
    }
    status.unmatched = baseline
        .entries()
        .filter(|e| !seen.contains(&e.case))
        .map(|e| e.case.clone())
        .collect();
    report.baseline = Some(status.clone());
    report.refresh();
    status
}
