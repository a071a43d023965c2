//! The pairwise interaction table of `rbv lint --coverage`: where a
//! requirement's rule names more than one contributor to the effective
//! band, a client can get each one right alone and their combination
//! wrong (a policy floor that wins over a declaration but not over a
//! `default`), so every pair of them needs a case; where the rule can be
//! observed through more than one request path, each contributor needs a
//! case on each path (a floor `evaluate` shows but `invoke` forgets).
//!
//! The pairs come from the catalogue (a requirement's `contributors` and
//! its paths), never from the cases: derived from the cases, a pair the
//! corpus lacks would never be required.
//!
//! A pair is covered by one *step*, not by a case: a judged step (its
//! expectation checks what the band decides: band, decision, allowed,
//! granted, the declared floor, a diff's verdict or a match on the answer)
//! of a case citing the requirement, on whose operation both features
//! bear. A case that sets a policy floor for one operation and judges
//! another covers nothing. What bears on a step's operation:
//!
//! - `declared`: a plugin loaded before the step declares its id;
//! - `undeclared`: no plugin loaded now (since the last reset) declares it,
//!   or the step (or an earlier one on the same operation, since plugins
//!   last changed) expects its declared floor to be null (an invalid entry
//!   names it); beside `declared` this is the state of an undeclared
//!   operation while a declaration is loaded (another operation's, an
//!   invalid entry's, or its own before a reset); a step expecting a
//!   declared floor is not `undeclared`;
//! - `default`: a plugin loaded before the step has a `default`;
//! - `inspector`: its kind is `sql`, `shell` or `fetch`;
//! - `rule-of-two`: a Rule-of-Two event recorded before it, or the call's
//!   own `trust: untrusted`;
//! - `policy`: a policy floor for its id set before it;
//! - `critical`: its id listed critical before it;
//! - a diff step: `declared` and `default` when either version has them.
//!
//! "Before" is anywhere earlier in the case, in any of its sessions and
//! across resets: a rule about what a reset or another session forgets is
//! judged on the step after it.

use super::coverage::{self, Contributor, Path};
use super::model::{Action, Expect};
use super::requirements::{Catalogue, Requirement};
use super::Case;
use rbv_protocol::{OperationKind, PluginBundle, SessionEvent, Trust};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// What the two features of a pair are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Two contributors the rule names.
    Contributors,
    /// A path the rule is observed through, and a contributor it names.
    PathContributor,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Contributors => "contributor×contributor",
            Kind::PathContributor => "path×contributor",
        }
    }
}

/// One feature of a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Feature {
    Path(Path),
    Contributor(Contributor),
}

impl Feature {
    fn as_str(self) -> &'static str {
        match self {
            Feature::Path(p) => p.as_str(),
            Feature::Contributor(c) => c.as_str(),
        }
    }
}

/// What bears on one judged step (see the module's documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepFeatures {
    /// The step's 1-based number in its case.
    pub step: usize,
    pub paths: BTreeSet<Path>,
    pub contributors: BTreeSet<Contributor>,
    /// Some plugin loaded before the step declares an operation.
    pub declarations_loaded: bool,
    /// The step can fail `under` / `over`.
    pub unsafe_side: bool,
    pub precision: bool,
}

impl StepFeatures {
    fn has(&self, f: Feature) -> bool {
        match f {
            Feature::Path(p) => self.paths.contains(&p),
            Feature::Contributor(c) => self.contributors.contains(&c),
        }
    }

    fn covers(&self, a: Feature, b: Feature) -> bool {
        use Contributor::{Declared, Undeclared};
        match (a, b) {
            // Never the same operation's state at once, but an undeclared
            // operation beside a declaration is the interaction.
            (Feature::Contributor(Declared), Feature::Contributor(Undeclared))
            | (Feature::Contributor(Undeclared), Feature::Contributor(Declared)) => {
                self.declarations_loaded && self.contributors.contains(&Undeclared)
            }
            _ => self.has(a) && self.has(b),
        }
    }
}

/// The expectation checks something the effective band decides.
fn judges(e: &Expect) -> bool {
    e.band.is_some()
        || e.decision.is_some()
        || e.allowed.is_some()
        || e.granted.is_some()
        || e.declared.is_some()
        || e.declarations.is_some()
        || e.default_floor.is_some()
        || e.breaking.is_some()
        || e.partial.is_some()
}

fn has_default(b: &PluginBundle) -> bool {
    coverage::permissions(b).any(|p| p.get("default").is_some())
}

/// Every judged step of the case that has an operation (or a diff), with
/// what bears on it.
pub fn step_features(case: &Case) -> Vec<StepFeatures> {
    let mut now: Vec<&PluginBundle> = case.plugins.iter().collect();
    let mut ever: BTreeSet<&str> = now.iter().flat_map(|b| coverage::declared_ids(b)).collect();
    let mut default = now.iter().any(|b| has_default(b));
    let mut rule_of_two = false;
    let mut floors: BTreeSet<&str> = BTreeSet::new();
    let mut critical: BTreeSet<&str> = BTreeSet::new();
    // Operation id → whether a step said it is declared.
    let mut said: BTreeMap<&str, bool> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, step) in case.steps.iter().enumerate() {
        match &step.action {
            Action::LoadPlugins(more) => {
                said.clear();
                now.extend(more);
                ever.extend(more.iter().flat_map(coverage::declared_ids));
                default |= more.iter().any(has_default);
            }
            Action::ResetSession => {
                said.clear();
                now.clear();
            }
            Action::RecordEvent(
                SessionEvent::UntrustedContent { .. }
                | SessionEvent::SensitiveData { .. }
                | SessionEvent::StateChange { .. },
            ) => rule_of_two = true,
            Action::SetPolicy(p) => {
                floors.extend(p.floors.keys().map(String::as_str));
                critical.extend(p.critical.iter().map(String::as_str));
            }
            _ => {}
        }
        if !judges(&step.expect) {
            continue;
        }
        let (unsafe_side, precision) = super::judge::sides(step);
        let mut f = StepFeatures {
            step: i + 1,
            paths: coverage::path_of(&step.action).into_iter().collect(),
            declarations_loaded: !ever.is_empty(),
            unsafe_side,
            precision,
            ..StepFeatures::default()
        };
        if coverage::touches_audit(&step.expect) {
            f.paths.insert(Path::Audit);
        }
        if let Action::DiffManifests { old, new } = &step.action {
            for b in [old, new] {
                if coverage::declared_ids(b).next().is_some() {
                    f.contributors.insert(Contributor::Declared);
                }
                if has_default(b) {
                    f.contributors.insert(Contributor::Default);
                }
            }
            out.push(f);
            continue;
        }
        let ops = coverage::operations(&step.action);
        if ops.is_empty() {
            continue;
        }
        for op in &ops {
            let id = op.id.as_str();
            let mut add = |c: Contributor, on: bool| {
                if on {
                    f.contributors.insert(c);
                }
            };
            add(Contributor::Declared, ever.contains(id));
            add(
                Contributor::Undeclared,
                !now.iter()
                    .any(|b| coverage::declared_ids(b).any(|d| d == id)),
            );
            add(Contributor::Default, default);
            add(
                Contributor::Inspector,
                matches!(
                    op.kind,
                    Some(OperationKind::Sql | OperationKind::Shell | OperationKind::Fetch)
                ),
            );
            add(
                Contributor::RuleOfTwo,
                rule_of_two || op.trust == Some(Trust::Untrusted),
            );
            add(Contributor::Policy, floors.contains(id));
            add(Contributor::Critical, critical.contains(id));
        }
        // Whether an entry is valid is the implementation's reading, not
        // the id's presence: where a step states the declared floor, the
        // case says which it is, for that step and the later ones on the
        // same operation until plugins change.
        if let (Some(stated), [op]) = (&step.expect.declared, ops.as_slice()) {
            said.insert(op.id.as_str(), stated.is_some());
        }
        let stated: Vec<bool> = ops
            .iter()
            .filter_map(|op| said.get(op.id.as_str()).copied())
            .collect();
        if stated.contains(&false) {
            f.contributors.insert(Contributor::Undeclared);
        } else if !stated.is_empty() {
            f.contributors.remove(&Contributor::Undeclared);
        }
        out.push(f);
    }
    out
}

/// One row of the pairwise table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub requirement: String,
    pub kind: Kind,
    /// `a×b`, as `unpaired` names it.
    pub pair: String,
    /// Cases with a step covering it that can fail `under`.
    pub unsafe_cases: BTreeSet<String>,
    /// Cases with a step covering it that can fail `over`.
    pub precision_cases: BTreeSet<String>,
    /// Why no case needs to cover it (`unpaired`).
    pub irrelevant: Option<String>,
}

impl Row {
    pub fn is_covered(&self) -> bool {
        !self.unsafe_cases.is_empty() || !self.precision_cases.is_empty()
    }

    /// A pair neither covered nor declared, or declared and yet covered.
    pub fn problem(&self) -> Option<String> {
        match (&self.irrelevant, self.is_covered()) {
            (None, false) => Some(format!(
                "the {} pair {} has no judged step, in a case citing the requirement, on whose \
                 operation both bear: write one (a `table:` of cases, both sides), or declare \
                 it in the requirement's `unpaired` with the reason no case needs it",
                self.kind.as_str(),
                self.pair
            )),
            (Some(_), true) => Some(format!(
                "declares the pair {} `unpaired`, but {} covers it: drop the declaration",
                self.pair,
                self.unsafe_cases
                    .iter()
                    .chain(&self.precision_cases)
                    .next()
                    .map(String::as_str)
                    .unwrap_or_default()
            )),
            _ => None,
        }
    }

    fn status(&self) -> String {
        let mut sides = Vec::new();
        if !self.unsafe_cases.is_empty() {
            sides.push(format!("covered-unsafe ({})", self.unsafe_cases.len()));
        }
        if !self.precision_cases.is_empty() {
            sides.push(format!(
                "covered-precision ({})",
                self.precision_cases.len()
            ));
        }
        match (&self.irrelevant, sides.is_empty()) {
            (_, false) => sides.join(", "),
            (Some(reason), true) => format!("unpaired: {reason}"),
            (None, true) => "**missing**".to_owned(),
        }
    }
}

/// The paths a requirement has to be observed through: its own `paths`,
/// or its capability's default; the names it gives that are no path.
pub fn required_paths(r: &Requirement) -> (Vec<Path>, Vec<&str>) {
    if r.paths.is_empty() {
        return (Path::required_for(r.capability).to_vec(), Vec::new());
    }
    let mut known = Vec::new();
    let mut unknown = Vec::new();
    for name in &r.paths {
        match Path::parse(name) {
            Some(p) => known.push(p),
            None => unknown.push(name.as_str()),
        }
    }
    (known, unknown)
}

/// The requirement's declared contributors that are known.
fn contributors(r: &Requirement) -> Vec<Contributor> {
    let mut out: Vec<Contributor> = r
        .contributors
        .iter()
        .flatten()
        .filter_map(|n| Contributor::parse(n))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every pair the requirement needs, with its kind.
fn derive(r: &Requirement) -> Vec<(Kind, Feature, Feature)> {
    let named = contributors(r);
    let mut out = Vec::new();
    for (i, a) in named.iter().enumerate() {
        for b in &named[i + 1..] {
            out.push((
                Kind::Contributors,
                Feature::Contributor(*a),
                Feature::Contributor(*b),
            ));
        }
    }
    let (paths, _) = required_paths(r);
    if paths.len() > 1 {
        for p in &paths {
            for c in &named {
                out.push((
                    Kind::PathContributor,
                    Feature::Path(*p),
                    Feature::Contributor(*c),
                ));
            }
        }
    }
    out
}

/// Problems of the catalogue's pair data for one requirement: no
/// `contributors`, an unknown or repeated name, an `unpaired` naming no
/// pair it has or giving no reason.
pub fn catalogue_problems(r: &Requirement) -> Vec<String> {
    let mut out = Vec::new();
    match &r.contributors {
        None => out.push(
            "no `contributors`: list the contributors to the effective band its rule names \
             (`[]` when none), so the pairwise table knows which interactions it needs"
                .to_owned(),
        ),
        Some(names) => {
            let mut seen = BTreeSet::new();
            for n in names {
                if Contributor::parse(n).is_none() {
                    out.push(format!(
                        "unknown contributor `{n}` in `contributors` (known: {})",
                        Contributor::ALL.map(Contributor::as_str).join(", ")
                    ));
                } else if !seen.insert(n.as_str()) {
                    out.push(format!("`contributors` names `{n}` twice"));
                }
            }
        }
    }
    let derived: BTreeSet<String> = derive(r)
        .iter()
        .map(|(_, a, b)| pair_name(*a, *b))
        .collect();
    for (pair, reason) in &r.unpaired {
        if !derived.contains(pair) {
            out.push(format!(
                "`unpaired` names `{pair}`, which is no pair of this requirement (its pairs: {})",
                if derived.is_empty() {
                    "none".to_owned()
                } else {
                    derived.iter().cloned().collect::<Vec<_>>().join(", ")
                }
            ));
        }
        if reason.trim().is_empty() {
            out.push(format!(
                "`unpaired` `{pair}`: say why no case needs the pair"
            ));
        }
    }
    out
}

fn pair_name(a: Feature, b: Feature) -> String {
    format!("{}×{}", a.as_str(), b.as_str())
}

/// The table: every pair of every requirement, in catalogue order, with
/// the cases that cover it.
pub fn coverage(catalogue: &Catalogue, cases: &[Case]) -> Vec<Row> {
    let features: Vec<Vec<StepFeatures>> = cases.iter().map(step_features).collect();
    let mut rows = Vec::new();
    for r in &catalogue.requirements {
        let citing: Vec<(&Case, &Vec<StepFeatures>)> = cases
            .iter()
            .zip(&features)
            .filter(|(c, _)| c.requirements.contains(&r.id))
            .collect();
        for (kind, a, b) in derive(r) {
            let pair = pair_name(a, b);
            let mut row = Row {
                requirement: r.id.clone(),
                kind,
                irrelevant: r.unpaired.get(&pair).cloned(),
                pair,
                unsafe_cases: BTreeSet::new(),
                precision_cases: BTreeSet::new(),
            };
            for (case, steps) in &citing {
                for s in steps.iter().filter(|s| s.covers(a, b)) {
                    if s.unsafe_side {
                        row.unsafe_cases.insert(case.id.clone());
                    }
                    if s.precision {
                        row.precision_cases.insert(case.id.clone());
                    }
                }
            }
            rows.push(row);
        }
    }
    rows
}

/// The table's counts: every pair derived, those covered, those declared
/// `unpaired` (and not covered), those neither.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub total: usize,
    pub covered: usize,
    pub declared: usize,
    pub uncovered: usize,
}

pub fn counts(rows: &[Row]) -> Counts {
    let mut c = Counts {
        total: rows.len(),
        ..Counts::default()
    };
    for r in rows {
        if r.is_covered() {
            c.covered += 1;
        } else if r.irrelevant.is_some() {
            c.declared += 1;
        } else {
            c.uncovered += 1;
        }
    }
    c
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "interaction pairs: {} derived, {} covered, {} declared unpaired, {} uncovered",
            self.total, self.covered, self.declared, self.uncovered
        )
    }
}

/// The pairwise table, as Markdown, after its counts.
pub struct Table<'a>(pub &'a [Row]);

impl fmt::Display for Table<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return Ok(());
        }
        writeln!(f)?;
        writeln!(f, "{}", counts(self.0))?;
        writeln!(f)?;
        writeln!(f, "| requirement | kind | pair | status |")?;
        writeln!(f, "|---|---|---|---|")?;
        for r in self.0 {
            writeln!(
                f,
                "| {} | {} | {} | {} |",
                r.requirement,
                r.kind.as_str(),
                r.pair,
                r.status().replace('|', "\\|")
            )?;
        }
        Ok(())
    }
}
