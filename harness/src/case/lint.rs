//! Lint: the suite against its catalogue. Every requirement should be
//! guarded on its unsafe side (and, where it has one, its precision side),
//! and every case should say which side it guards.

use super::coverage::{self, names, Contributor, Exercised, Path};
use super::model::{Action, Token};
use super::requirements::RequirementLevel;
use super::{Case, Origin, Suite};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Below these counts a requirement is thinly covered (a warning).
pub const MIN_UNSAFE_CASES: usize = 3;
pub const MIN_PRECISION_CASES: usize = 2;

/// One finding: about a case (with its origin) or a requirement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintIssue {
    /// A case id or a requirement id.
    pub subject: String,
    pub origin: Option<Origin>,
    pub message: String,
}

impl fmt::Display for LintIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.origin {
            Some(o) => write!(f, "{o}: {}: {}", self.subject, self.message),
            None => write!(f, "{}: {}", self.subject, self.message),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequirementCoverage {
    pub id: String,
    pub level: RequirementLevel,
    /// Cases citing the requirement that can fail `under`.
    pub unsafe_cases: usize,
    /// Cases citing the requirement that can fail `over`.
    pub precision_cases: usize,
    /// The request paths its cases observe it through.
    pub paths: BTreeSet<Path>,
    /// The contributors to the effective band its cases set up.
    pub contributors: BTreeSet<Contributor>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LintReport {
    pub errors: Vec<LintIssue>,
    pub warnings: Vec<LintIssue>,
    pub coverage: Vec<RequirementCoverage>,
    /// The grammar productions, in project scope only.
    pub grammar: Vec<crate::grammar::Row>,
    /// The interaction pairs the catalogue derives, in project scope only.
    pub pairs: Vec<super::pairs::Row>,
}

impl LintReport {
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }
}

/// The coverage table, as Markdown.
impl fmt::Display for LintReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "| requirement | level | unsafe-side cases | precision cases | paths | contributors |"
        )?;
        writeln!(f, "|---|---|---:|---:|---|---|")?;
        for c in &self.coverage {
            writeln!(
                f,
                "| {} | {} | {} | {} | {} | {} |",
                c.id,
                c.level,
                c.unsafe_cases,
                c.precision_cases,
                names(&c.paths, Path::as_str),
                names(&c.contributors, Contributor::as_str)
            )?;
        }
        write!(f, "{}", crate::grammar::Table(&self.grammar))?;
        write!(f, "{}", super::pairs::Table(&self.pairs))
    }
}

/// A capture no later step uses: the comparison it was taken for is
/// missing, so the case checks less than it seems to.
fn unused_capture(case: &super::Case) -> Option<&str> {
    fn tokens<'a>(action: &'a Action, out: &mut BTreeSet<&'a str>) {
        match action {
            Action::Invoke {
                token: Some(Token::Capture(name)),
                ..
            } => {
                out.insert(name);
            }
            Action::Concurrent(actions) => actions.iter().for_each(|a| tokens(a, out)),
            _ => {}
        }
    }
    let mut used = BTreeSet::new();
    for step in &case.steps {
        tokens(&step.action, &mut used);
        used.extend(step.expect.compared_captures().map(String::as_str));
    }
    case.steps
        .iter()
        .flat_map(|s| s.capture.keys())
        .find(|name| !used.contains(name.as_str()))
        .map(String::as_str)
}

/// Below this, a literal id in a raw line could be one rbv's counter uses.
pub const MIN_LITERAL_ID: u64 = 1 << 32;

/// Literal ids in `send_raw` lines: each used once in the suite (ids are
/// unique per child, and one child serves many cases) and out of reach of
/// rbv's own counter.
/// The first step of a case that needs no capability whose request only
/// some implementations answer in kind: every implementation answers
/// `handshake` and `reset_session`, any other request may get `unsupported`
/// (PROTOCOL.md §10.1), and a base case must not fail the one that says so.
fn base_step_in_kind(case: &super::Case) -> Option<(usize, &'static str)> {
    if !case.needs.is_empty() {
        return None;
    }
    case.steps.iter().enumerate().find_map(|(i, s)| {
        let base = matches!(s.action, Action::ResetSession | Action::SendRaw(_));
        (!base).then(|| (i + 1, s.action.key()))
    })
}

fn raw_ids<'a>(
    case: &'a Case,
    seen: &mut BTreeMap<u64, &'a str>,
    judged: &dyn Fn(&str) -> bool,
    report: &mut LintReport,
) {
    for step in &case.steps {
        let Action::SendRaw(raw) = &step.action else {
            continue;
        };
        let Some(id) = raw.literal_id() else {
            continue;
        };
        let issue = |message: String| LintIssue {
            subject: case.id.clone(),
            origin: Some(case.origin.clone()),
            message,
        };
        if id < MIN_LITERAL_ID && !raw.before_handshake && judged(&case.id) {
            report.errors.push(issue(format!(
                "step line {}: literal id {id} may collide with rbv's own ids; use `$ID` or an id >= 2^32",
                step.line
            )));
        }
        if let Some(other) = seen
            .insert(id, &case.id)
            .filter(|o| judged(o) || judged(&case.id))
        {
            report.errors.push(issue(format!(
                "literal id {id} is also used by {other}; ids are unique per child"
            )));
        }
    }
}

/// What a lint judges.
#[derive(Clone, Copy)]
pub enum Scope<'a> {
    /// The whole corpus: every case, the catalogue, and the project-wide
    /// rules (every MUST has a case and is checked through every path that
    /// can observe it, the coverage warnings).
    Project,
    /// The cases the predicate selects (those of the files given), each on
    /// its own: nothing about the rest of the corpus or its catalogue.
    Files(&'a dyn Fn(&Case) -> bool),
}

/// Lints the whole corpus ([`Scope::Project`]).
pub fn lint(suite: &Suite) -> LintReport {
    lint_scoped(suite, Scope::Project)
}

/// Lints what `scope` judges; the coverage table always covers the suite.
pub fn lint_scoped(suite: &Suite, scope: Scope<'_>) -> LintReport {
    let judged_ids: BTreeSet<&str> = match scope {
        Scope::Project => BTreeSet::new(),
        Scope::Files(judges) => suite
            .cases
            .iter()
            .filter(|c| judges(c))
            .map(|c| c.id.as_str())
            .collect(),
    };
    let project = matches!(scope, Scope::Project);
    let judged = |id: &str| project || judged_ids.contains(id);
    let mut report = LintReport::default();
    let catalogue = &suite.catalogue;
    let mut counts: BTreeMap<&str, (usize, usize)> = catalogue
        .requirements
        .iter()
        .map(|r| (r.id.as_str(), (0, 0)))
        .collect();
    let mut reached: BTreeMap<&str, Exercised> = BTreeMap::new();

    let mut cited: BTreeMap<&str, usize> = BTreeMap::new();
    let mut literal_ids: BTreeMap<u64, &str> = BTreeMap::new();
    for case in &suite.cases {
        let sides = case.guards();
        for id in &case.requirements {
            *cited.entry(id.as_str()).or_default() += 1;
        }
        raw_ids(case, &mut literal_ids, &judged, &mut report);
        let exercised = coverage::exercised(case);
        // Coverage counts every case; findings only those judged.
        let mut findings = LintReport::default();
        let issue = |message: String| LintIssue {
            subject: case.id.clone(),
            origin: Some(case.origin.clone()),
            message,
        };
        if case.id.chars().any(rbv_report::text::is_hostile) {
            findings.errors.push(issue(format!(
                "the id `{}` holds characters that change how text shows (controls, \
                 bidirectional or invisible marks); an id is plain text",
                rbv_report::text::one_line(&case.id, 120)
            )));
        }
        for id in &case.requirements {
            match counts.get_mut(id.as_str()) {
                Some((u, p)) => {
                    *u += usize::from(sides.unsafe_side);
                    *p += usize::from(sides.precision);
                    let r = reached.entry(id.as_str()).or_default();
                    r.paths.extend(&exercised.paths);
                    r.contributors.extend(&exercised.contributors);
                }
                None => findings
                    .errors
                    .push(issue(format!("cites unknown requirement `{id}`"))),
            }
        }
        if let Some(name) = unused_capture(case) {
            findings.errors.push(issue(format!(
                "captures `{name}` but no step uses it (as a token, in `same` or in `differs`)"
            )));
        }
        if let Some((number, what)) = base_step_in_kind(case) {
            findings.errors.push(issue(format!(
                "needs no capability, so it runs against every implementation, but step {number} \
                 sends `{what}`, which one that does not implement it answers `unsupported` \
                 (PROTOCOL.md §10.1); name the capability in `needs`, or send it with `send_raw`"
            )));
        }
        if case.reason.is_none() {
            if !sides.unsafe_side && !sides.precision {
                findings.errors.push(issue(
                    "has no expectation that can fail under or over, and no `reason`".into(),
                ));
            } else if !sides.unsafe_side {
                findings
                    .errors
                    .push(issue("guards only precision; say why in `reason`".into()));
            }
        }
        if judged(&case.id) {
            report.errors.append(&mut findings.errors);
        }
    }
    for r in &catalogue.requirements {
        let mut findings = LintReport::default();
        let (unsafe_cases, precision_cases) = counts[r.id.as_str()];
        let issue = |message: String| LintIssue {
            subject: r.id.clone(),
            origin: None,
            message,
        };
        if r.level == RequirementLevel::Interpretation
            && r.rationale.as_deref().is_none_or(|s| s.trim().is_empty())
        {
            findings
                .errors
                .push(issue("an INTERPRETATION needs a `rationale`".into()));
        }
        if r.level == RequirementLevel::Must && unsafe_cases + precision_cases == 0 {
            let cited = suite.cases.iter().any(|c| c.requirements.contains(&r.id));
            if !cited {
                findings
                    .errors
                    .push(issue("a MUST requirement with no case".into()));
            }
        }
        let Exercised {
            paths,
            contributors,
        } = reached.remove(r.id.as_str()).unwrap_or_default();
        let (required, unknown) = super::pairs::required_paths(r);
        for name in unknown {
            findings.errors.push(issue(format!(
                "unknown path `{name}` in `paths` (known: {})",
                Path::ALL.map(Path::as_str).join(", ")
            )));
        }
        findings
            .errors
            .extend(super::pairs::catalogue_problems(r).into_iter().map(issue));
        if r.level == RequirementLevel::Must {
            let missing: Vec<&str> = required
                .iter()
                .filter(|p| !paths.contains(p))
                .map(|p| p.as_str())
                .collect();
            if !missing.is_empty() {
                findings.errors.push(issue(format!(
                    "a MUST requirement no case checks through {} (a path that can observe it)",
                    missing.join(", ")
                )));
            }
        }
        if r.capability.is_none() {
            // The protocol's own rules (no capability): no band is at stake,
            // so the cases have no side; they are counted as cases.
            let cases = cited.get(r.id.as_str()).copied().unwrap_or(0);
            if cases < MIN_UNSAFE_CASES {
                findings
                    .warnings
                    .push(issue(format!("{cases} case(s); {MIN_UNSAFE_CASES} wanted")));
            }
        } else if unsafe_cases < MIN_UNSAFE_CASES {
            findings.warnings.push(issue(format!(
                "{unsafe_cases} unsafe-side case(s); {MIN_UNSAFE_CASES} wanted"
            )));
        }
        if r.safe_side && precision_cases < MIN_PRECISION_CASES {
            findings.warnings.push(issue(format!(
                "{precision_cases} precision case(s); {MIN_PRECISION_CASES} wanted"
            )));
        }
        // The catalogue's and the corpus's findings are not those of a few files.
        if project {
            report.errors.append(&mut findings.errors);
            report.warnings.append(&mut findings.warnings);
        }
        report.coverage.push(RequirementCoverage {
            id: r.id.clone(),
            level: r.level,
            unsafe_cases,
            precision_cases,
            paths,
            contributors,
        });
    }
    // Which productions a corpus must cover is a property of the whole
    // corpus and its grammar files, not of a few files or a toy tree.
    if project {
        report.grammar = crate::grammar::coverage(&suite.grammars, &suite.cases);
        for row in &report.grammar {
            if let Some(message) = row.problem() {
                report.errors.push(LintIssue {
                    subject: format!("{}:{}", row.grammar, row.production),
                    origin: None,
                    message,
                });
            }
        }
        report.pairs = super::pairs::coverage(catalogue, &suite.cases);
        for row in &report.pairs {
            if let Some(message) = row.problem() {
                report.errors.push(LintIssue {
                    subject: format!("{}:{}", row.requirement, row.pair),
                    origin: None,
                    message,
                });
            }
        }
    }
    report
}
