//! Grammar reach: which productions of the grammar table (the rows of
//! docs/coverage.md's second table that the cases cover) the generators'
//! inputs reach. Every request a target sends is read with the classifiers
//! `rbv lint --coverage` reads the cases with (`grammar::request_productions`),
//! so "reached" means what it means for a case; a production the cases
//! cover that no generated input reaches is a generator to write, unless
//! `harness/fuzz-reach-gaps.yaml` lists it with the reason it is not
//! written yet.

use super::subject::Subject;
use crate::case::Case;
use crate::grammar::Row;
use rbv_protocol::{Capability, RequestBody, ResponseBody};
use rbv_report::text::terminal;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The checked-in list of covered productions no generator reaches yet.
pub const GAPS: &str = include_str!("../../fuzz-reach-gaps.yaml");

/// `(grammar, production)`, as the grammar table names it.
pub type Key = (&'static str, String);

/// How many generated inputs (execs) reached each production.
pub type Counts = BTreeMap<Key, u64>;

/// A subject that reads every request it passes on with the grammar
/// classifiers, and counts per exec which productions that exec's
/// requests reached.
pub struct Reading<S> {
    inner: S,
    exec: BTreeSet<Key>,
    pub counts: Counts,
}

impl<S: Subject> Reading<S> {
    pub fn new(inner: S) -> Self {
        Reading {
            inner,
            exec: BTreeSet::new(),
            counts: Counts::new(),
        }
    }

    fn read(&mut self, request: &Value) {
        self.exec
            .extend(crate::grammar::request_productions(request));
    }

    fn read_body(&mut self, body: &RequestBody) {
        if let Ok(value) = serde_json::from_str(&body.typed_json()) {
            self.read(&value);
        }
    }
}

impl<S: Subject> Subject for Reading<S> {
    fn fresh_session(&mut self) -> String {
        self.inner.fresh_session()
    }

    fn call(&mut self, session: &str, body: RequestBody) -> Result<ResponseBody, String> {
        self.read_body(&body);
        self.inner.call(session, body)
    }

    fn call_batch(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Vec<Result<ResponseBody, String>> {
        for body in &bodies {
            self.read_body(body);
        }
        self.inner.call_batch(session, bodies)
    }

    fn claims(&self, capability: Capability) -> bool {
        self.inner.claims(capability)
    }

    fn raw(&mut self, session: &str, template: &str) -> Result<(String, Value), String> {
        let out = self.inner.raw(session, template);
        // The line as sent: what a generator wrote is what was read.
        if let Ok((sent, _)) = &out {
            if let Ok(value) = serde_json::from_str::<Value>(sent) {
                self.read(&value);
            }
        }
        out
    }

    fn end_exec(&mut self) {
        for key in std::mem::take(&mut self.exec) {
            *self.counts.entry(key).or_default() += 1;
        }
        self.inner.end_exec();
    }

    fn name(&self) -> String {
        self.inner.name()
    }

    fn take_failure(&mut self) -> Option<String> {
        self.inner.take_failure()
    }

    fn restart(&mut self) -> Result<(), String> {
        self.inner.restart()
    }

    fn run_case(&mut self, case: &Case) -> Result<crate::verdict::Verdict, String> {
        self.inner.run_case(case)
    }
}

/// The grammar table of a case tree's files (`case::load_files`'s
/// input): every production of its grammar files with the cases covering
/// it, as `rbv lint --coverage` computes it.
pub fn table(files: &[(String, String)]) -> Result<Vec<Row>, String> {
    let suite = crate::case::load_files(files).map_err(|errors| {
        format!(
            "the cases do not load ({} errors; `rbv lint` shows them)",
            errors.len()
        )
    })?;
    Ok(crate::grammar::coverage(&suite.grammars, &suite.cases))
}

/// The gaps file: productions the cases cover and no generator reaches,
/// in groups that share why no generator builds them yet.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gaps {
    pub gaps: Vec<Gap>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gap {
    pub reason: String,
    /// `grammar:production` (`bash:Command::Function`).
    pub productions: Vec<String>,
}

impl Gaps {
    /// The checked-in list.
    pub fn shipped() -> Gaps {
        serde_saphyr::from_str(GAPS).expect("harness/fuzz-reach-gaps.yaml parses")
    }

    fn reason(&self, name: &str) -> Option<&str> {
        self.gaps
            .iter()
            .find(|g| g.productions.iter().any(|p| p == name))
            .map(|g| g.reason.as_str())
    }

    fn names(&self) -> impl Iterator<Item = &String> {
        self.gaps.iter().flat_map(|g| &g.productions)
    }
}

/// Whether a production is a property of one input a generator could
/// build: the schema grammar also has productions read off a case's
/// expectation (`answer/…`) and off two cases together (`…~pair`).
pub fn of_an_input(grammar: &str, production: &str) -> bool {
    !(grammar == "schema" && (production.starts_with("answer/") || production.ends_with("~pair")))
}

/// One covered production and what reached it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ProductionReach {
    pub grammar: String,
    pub production: String,
    /// Generated inputs (execs, over every target) that reached it.
    pub inputs: u64,
    /// The targets whose inputs reached it.
    pub targets: Vec<String>,
    /// The gaps file's reason, when it lists the production.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listed: Option<String>,
}

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct GrammarReach {
    /// Every production the cases cover that an input can hold, in the
    /// grammar table's order.
    pub productions: Vec<ProductionReach>,
    /// Covered by cases, reached by no generated input, not listed in
    /// the gaps file: a generator to write.
    pub gaps: Vec<String>,
    /// Listed in the gaps file but reached, or not a covered production.
    pub stale: Vec<String>,
    /// Covered productions that are no property of one input (answers,
    /// one-field pairs), not measured.
    pub not_inputs: usize,
}

impl GrammarReach {
    pub fn reached(&self) -> usize {
        self.productions.iter().filter(|p| p.inputs > 0).count()
    }

    pub fn ok(&self) -> bool {
        self.gaps.is_empty() && self.stale.is_empty()
    }
}

/// Joins what each target's inputs reached with the grammar table `rows`
/// (the cases' coverage) and the gaps file.
pub fn join(rows: &[Row], per_target: &[(&str, Counts)], listed: &Gaps) -> GrammarReach {
    let mut out = GrammarReach::default();
    let mut covered = BTreeSet::new();
    for row in rows.iter().filter(|r| r.is_covered() && !r.unlisted) {
        if !of_an_input(&row.grammar, &row.production) {
            out.not_inputs += 1;
            continue;
        }
        let name = format!("{}:{}", row.grammar, row.production);
        let key = (row.grammar.as_str(), row.production.clone());
        let mut inputs = 0;
        let mut targets = Vec::new();
        for (target, counts) in per_target {
            if let Some(n) = counts.get(&key) {
                inputs += n;
                targets.push((*target).to_owned());
            }
        }
        let reason = listed.reason(&name).map(str::to_owned);
        match (inputs, &reason) {
            (0, None) => out.gaps.push(name.clone()),
            (n, Some(_)) if n > 0 => out.stale.push(format!("{name} (reached by {n} inputs)")),
            _ => {}
        }
        covered.insert(name);
        out.productions.push(ProductionReach {
            grammar: row.grammar.clone(),
            production: row.production.clone(),
            inputs,
            targets,
            listed: reason,
        });
    }
    for name in listed.names() {
        if !covered.contains(name) {
            out.stale
                .push(format!("{name} (no case covers it, or no such production)"));
        }
    }
    out
}

impl std::fmt::Display for GrammarReach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "# grammar reach: {} of {} productions the cases cover reached by generated inputs ({} listed as gaps; {} answer and pair productions are no input's)",
            self.reached(),
            self.productions.len(),
            self.productions.iter().filter(|p| p.listed.is_some()).count(),
            self.not_inputs
        )?;
        for p in &self.productions {
            let what = match (&p.listed, p.inputs) {
                (Some(reason), 0) => format!("-- gap: {reason}"),
                (None, 0) => "-- none --".to_owned(),
                (_, n) => format!("{n} inputs ({})", p.targets.join(", ")),
            };
            writeln!(
                f,
                "{}:{} {}",
                terminal(&p.grammar),
                terminal(&p.production),
                terminal(&what)
            )?;
        }
        if !self.gaps.is_empty() {
            writeln!(
                f,
                "!! covered productions no generator reaches (write a generator, or list them in harness/fuzz-reach-gaps.yaml with a reason): {}",
                terminal(&self.gaps.join(", "))
            )?;
        }
        if !self.stale.is_empty() {
            writeln!(
                f,
                "!! stale entries of harness/fuzz-reach-gaps.yaml: {}",
                terminal(&self.stale.join(", "))
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::Covered;

    fn row(grammar: &str, production: &str, covered: bool) -> Row {
        let mut c = Covered::default();
        if covered {
            c.unsafe_cases.insert("shell/x".into());
        }
        Row {
            grammar: grammar.into(),
            production: production.into(),
            irrelevant: None,
            foreign: None,
            covered: c,
            unlisted: false,
        }
    }

    #[test]
    fn an_unreached_covered_production_is_a_gap_unless_listed_and_a_reached_listed_one_is_stale() {
        let rows = [
            row("bash", "Command::Function", true),
            row("bash", "CompoundCommand::WhileClause", true),
            row("bash", "CompoundCommand::UntilClause", true),
            row("bash", "CompoundCommand::Coprocess", false),
            row("schema", "answer/evaluation:/band", true),
            row("schema", "request/evaluate:/operation/kind~pair", true),
        ];
        let counts: Counts = [(("bash", "Command::Function".to_owned()), 3)].into();
        let other: Counts = [(("bash", "Command::Function".to_owned()), 2)].into();
        let listed = Gaps {
            gaps: vec![
                Gap {
                    reason: "not yet".into(),
                    productions: vec![
                        "bash:CompoundCommand::UntilClause".into(),
                        "bash:Command::Function".into(),
                    ],
                },
                Gap {
                    reason: "no case covers it".into(),
                    productions: vec!["bash:CompoundCommand::Coprocess".into()],
                },
            ],
        };
        let reach = join(
            &rows,
            &[("shell_bypass", counts), ("token_binding", other)],
            &listed,
        );
        assert_eq!(reach.gaps, ["bash:CompoundCommand::WhileClause"]);
        assert_eq!(
            reach.stale,
            [
                "bash:Command::Function (reached by 5 inputs)",
                "bash:CompoundCommand::Coprocess (no case covers it, or no such production)"
            ]
        );
        assert_eq!(reach.not_inputs, 2);
        assert_eq!(reach.productions.len(), 3);
        assert_eq!(reach.productions[0].inputs, 5);
        assert_eq!(
            reach.productions[0].targets,
            ["shell_bypass", "token_binding"]
        );
        assert_eq!(reach.reached(), 1);
        assert!(!reach.ok());
    }

    #[test]
    fn the_recorder_reads_each_exec_s_requests_once_with_lint_s_classifiers() {
        let mut subject = Reading::new(crate::fuzz::InProcess::new(None));
        let op = crate::fuzz::targets::operation(
            None,
            "client:shell",
            rbv_protocol::OperationKind::Shell,
            serde_json::json!({"command": "f() { rm -rf x; }; f"}),
        );
        let session = subject.fresh_session();
        for _ in 0..2 {
            let body = RequestBody::Evaluate(rbv_protocol::EvaluateRequest {
                operation: op.clone(),
            });
            let _ = subject.call(&session, body);
        }
        subject.end_exec();
        subject.end_exec();
        let function = ("bash", "Command::Function".to_owned());
        assert_eq!(subject.counts.get(&function), Some(&1));
        assert_eq!(
            subject.counts.get(&(
                "schema",
                "request/evaluate:/operation/kind=shell".to_owned()
            )),
            Some(&1)
        );
        // A raw line is read as sent.
        let _ = subject.raw(
            "s",
            r#"{"id":$ID,"session":"$SESSION","type":"evaluate","operation":{"id":"client:fetch","kind":"fetch","arguments":{"url":"http://[::1]/"}}}"#,
        );
        subject.end_exec();
        assert_eq!(
            subject.counts.get(&("fetch", "Host::Ipv6".to_owned())),
            Some(&1)
        );
    }

    #[test]
    fn the_shipped_gaps_file_parses_and_gives_every_entry_a_reason() {
        let gaps = Gaps::shipped();
        let mut seen = BTreeSet::new();
        for g in &gaps.gaps {
            assert!(
                !g.reason.trim().is_empty(),
                "{:?}: no reason",
                g.productions
            );
            assert!(!g.productions.is_empty(), "{}: names nothing", g.reason);
            for p in &g.productions {
                assert!(seen.insert(p), "{p} listed twice");
            }
        }
    }
}
