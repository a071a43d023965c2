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
//! corpus lacks would never be required. A case covers a pair when it
//! cites the requirement and sets up both of its features, counted the
//! way the requirement table counts them (`coverage::exercised`: a path
//! only through a step with an expectation).

use super::coverage::{Contributor, Exercised, Path};
use super::requirements::{Catalogue, Requirement};
use super::Case;
use std::collections::BTreeSet;
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

    fn in_case(self, e: &Exercised) -> bool {
        match self {
            Feature::Path(p) => e.paths.contains(&p),
            Feature::Contributor(c) => e.contributors.contains(&c),
        }
    }
}

/// One row of the pairwise table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub requirement: String,
    pub kind: Kind,
    /// `a×b`, as `unpaired` names it.
    pub pair: String,
    /// Cases covering it that can fail `under`.
    pub unsafe_cases: BTreeSet<String>,
    /// Cases covering it that can fail `over`.
    pub precision_cases: BTreeSet<String>,
    /// Why no case needs to cover it (`unpaired`).
    pub irrelevant: Option<String>,
}

impl Row {
    fn is_covered(&self) -> bool {
        !self.unsafe_cases.is_empty() || !self.precision_cases.is_empty()
    }

    /// A pair neither covered nor declared, or declared and yet covered.
    pub fn problem(&self) -> Option<String> {
        match (&self.irrelevant, self.is_covered()) {
            (None, false) => Some(format!(
                "the {} pair {} has no case that cites the requirement and sets up both: \
                 write one (a `table:` of cases, both sides), or declare it in the \
                 requirement's `unpaired` with the reason no case needs it",
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
            (Some(reason), true) => format!("irrelevant: {reason}"),
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
/// `contributors`, an unknown name, an `unpaired` naming no pair it has.
pub fn catalogue_problems(r: &Requirement) -> Vec<String> {
    let mut out = Vec::new();
    match &r.contributors {
        None => out.push(
            "no `contributors`: list the contributors to the effective band its rule names \
             (`[]` when none), so the pairwise table knows which interactions it needs"
                .to_owned(),
        ),
        Some(names) => {
            for n in names.iter().filter(|n| Contributor::parse(n).is_none()) {
                out.push(format!(
                    "unknown contributor `{n}` (known: {})",
                    Contributor::ALL.map(Contributor::as_str).join(", ")
                ));
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
                "`unpaired` names `{pair}`, which is no pair of this requirement"
            ));
        }
        if reason.trim().is_empty() {
            out.push(format!("`unpaired` `{pair}`: an empty reason"));
        }
    }
    out
}

fn pair_name(a: Feature, b: Feature) -> String {
    format!("{}×{}", a.as_str(), b.as_str())
}

/// The table: every pair of every requirement, in catalogue order, with
/// the cases that cover it. `exercised[i]` is what `cases[i]` exercises.
pub fn coverage(catalogue: &Catalogue, cases: &[Case], exercised: &[Exercised]) -> Vec<Row> {
    let mut rows = Vec::new();
    for r in &catalogue.requirements {
        let citing: Vec<(&Case, &Exercised)> = cases
            .iter()
            .zip(exercised)
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
            for (case, e) in &citing {
                if a.in_case(e) && b.in_case(e) {
                    let sides = case.guards();
                    if sides.unsafe_side {
                        row.unsafe_cases.insert(case.id.clone());
                    }
                    if sides.precision {
                        row.precision_cases.insert(case.id.clone());
                    }
                }
            }
            rows.push(row);
        }
    }
    rows
}

/// The pairwise table, as Markdown.
pub struct Table<'a>(pub &'a [Row]);

impl fmt::Display for Table<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return Ok(());
        }
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
