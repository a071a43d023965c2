//! The case engine: the YAML case format (`docs/case-format.md`) loaded
//! strictly, tables expanded, the suite linted against its requirement
//! catalogue, and cases executed against a `Transport` and judged.
//!
//! Step numbers, wherever a verdict or an exchange names one, are 1-based
//! (`case.steps[n - 1]`); step 0 is the `load_plugins` of the case's
//! `plugins`, sent before step 1.

pub mod coverage;
mod execute;
mod expand;
pub mod files;
mod judge;
pub mod lint;
mod load;
pub mod model;
pub mod node;
pub mod pairs;
mod partial;
pub mod raw;
pub mod requirements;
pub mod rules;
pub mod show;
mod steps;

pub(crate) use execute::bodies;
pub use execute::{answers_to, execute, reasons_to, CaseRun, Exchange};
pub(crate) use judge::sides as judge_sides;
pub use lint::{lint, lint_scoped, LintIssue, LintReport, RequirementCoverage, Scope};
pub use load::{add_files, load_dir, load_files, load_readable, LoadError, CATALOGUE, FIXTURES};
pub use model::{Action, Expect, Matcher, Source, Step, Token};
pub use partial::{matches as partial_match, recent};
pub use requirements::{Catalogue, ProfileKey, Requirement, RequirementLevel};

use rbv_protocol::{Capability, PluginBundle};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// One case, after table expansion and fixture resolution.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub id: String,
    pub title: Option<String>,
    pub requirements: Vec<String>,
    pub source: Source,
    pub tags: Vec<String>,
    pub reason: Option<String>,
    /// Conditions on the implementation's handshake profile.
    pub profile: BTreeMap<String, Value>,
    /// Catalogue defaults of the keys in `profile`, for implementations that
    /// do not declare them.
    pub profile_defaults: BTreeMap<String, Value>,
    /// Derived from the steps, plus the case's declared `needs`.
    pub needs: BTreeSet<Capability>,
    /// Loaded before step 1 (fixtures resolved).
    pub plugins: Vec<PluginBundle>,
    pub steps: Vec<Step>,
    pub origin: Origin,
}

/// Where a case was written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin {
    /// Relative to the cases root.
    pub file: String,
    /// The document's line, or the row's line for a table row.
    pub line: usize,
    /// 1-based row number for a case expanded from a table.
    pub row: Option<usize>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if let Some(row) = self.row {
            write!(f, " (row {row})")?;
        }
        Ok(())
    }
}

// Which directions a case guards, as the published report records them.
pub use rbv_report::model::Sides;

impl Case {
    /// The first segment of the id.
    pub fn area(&self) -> &str {
        self.id.split('/').next().unwrap_or(&self.id)
    }

    /// The capabilities a failure decided at `step` counts against
    /// (docs/certification.md, "Which capability a failure counts
    /// against"): those the catalogue gives the requirements the case
    /// cites (the base protocol for one without), among those the case
    /// needs; when that leaves several, those the failing step itself
    /// needs, when it needs any of them. Empty when the catalogue ties the
    /// case to none of its needs: the failure then counts against all.
    pub fn counts_against(&self, step: Option<usize>, catalogue: &Catalogue) -> BTreeSet<String> {
        let needs: BTreeSet<&str> = if self.needs.is_empty() {
            BTreeSet::from([rbv_report::model::BASE])
        } else {
            self.needs.iter().map(|c| c.as_str()).collect()
        };
        let cited: BTreeSet<&str> = self
            .requirements
            .iter()
            .filter_map(|id| catalogue.requirement(id))
            .map(|r| {
                r.capability
                    .map_or(rbv_report::model::BASE, Capability::as_str)
            })
            .filter(|c| needs.contains(c))
            .collect();
        let of_step = match step {
            // Step 0 loads the case's plugins.
            Some(0) => BTreeSet::from([Capability::Manifest]),
            Some(n) => steps::derived_needs(false, self.steps.get(n - 1..n).unwrap_or_default()),
            None => BTreeSet::new(),
        };
        let narrowed: BTreeSet<&str> = cited
            .iter()
            .copied()
            .filter(|c| of_step.iter().any(|s| s.as_str() == *c))
            .collect();
        let chosen = if cited.len() > 1 && !narrowed.is_empty() {
            narrowed
        } else {
            cited
        };
        chosen.into_iter().map(str::to_owned).collect()
    }

    pub fn guards(&self) -> Sides {
        self.steps
            .iter()
            .map(judge::sides)
            .fold(Sides::default(), |s, (u, p)| Sides {
                unsafe_side: s.unsafe_side || u,
                precision: s.precision || p,
            })
    }
}

/// A loaded case tree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Suite {
    /// Sorted by id.
    pub cases: Vec<Case>,
    pub catalogue: Catalogue,
    /// The grammar files (`grammar/<name>.yaml`), by grammar.
    pub grammars: BTreeMap<String, crate::grammar::Declared>,
}

impl Suite {
    pub fn case(&self, id: &str) -> Option<&Case> {
        self.cases
            .binary_search_by(|c| c.id.as_str().cmp(id))
            .ok()
            .map(|i| &self.cases[i])
    }
}
