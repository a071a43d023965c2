//! Grammar coverage: which productions of the grammars the inspectors read
//! (sqlparser's SQL, brush-parser's bash, the WHATWG URL Standard's URLs
//! and the fetch's arguments) the corpus's payloads exercise,
//! computed by parsing each payload with the reference's own parser, against the checked-in
//! list of every production (`cases/grammar/<name>.yaml`). Each listed
//! production is exercised by a case, on the unsafe side and/or the
//! precision side, declared irrelevant with a reason, or declared foreign
//! (another dialect's syntax, with a probe lint checks); a test keeps the
//! list equal to the parser's source, so a new parser version that adds a
//! variant fails until it is listed. The JSON Schemas' grammar (`schema`)
//! is derived from the schema files themselves, and its file only declares
//! what is irrelevant.

pub mod bash;
pub mod fetch;
pub mod schema;
pub mod sql;

use crate::case::model::Action;
use crate::case::Case;
use rbv_protocol::{OperationKind, SqlDialect};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Grammar files live under this directory of a cases tree; they are not cases.
pub const DIR: &str = "grammar/";

/// One grammar file: every production, in the order listed.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declared {
    pub grammar: String,
    /// The parser and version the list was made from (`sqlparser 0.64.0`).
    pub parser: String,
    pub productions: Vec<Production>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Production {
    pub name: String,
    /// Why no case needs to exercise it.
    #[serde(default)]
    pub irrelevant: Option<String>,
    /// Made only by a parser dialect no operation can name: its probe
    /// shows the production there and not in any wire dialect.
    #[serde(default)]
    pub foreign: Option<Foreign>,
}

/// A production of another dialect's syntax, with the evidence: `probe`
/// parsed by sqlparser's `dialect` yields the production; parsed as the
/// reference reads each dialect of the wire (postgresql, mysql, sqlite),
/// it does not. A parser upgrade that makes a wire dialect read it turns
/// the declaration into a lint error.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Foreign {
    /// sqlparser's name of the dialect (`snowflake`, `mssql`, `duckdb`, …).
    pub dialect: String,
    pub probe: String,
}

impl Declared {
    /// Problems of the file itself: an unknown grammar, a name listed twice,
    /// an empty reason.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !GRAMMARS.contains(&self.grammar.as_str()) {
            out.push(format!(
                "unknown grammar `{}` (known: {})",
                self.grammar,
                GRAMMARS.join(", ")
            ));
        }
        let mut seen = BTreeSet::new();
        for p in &self.productions {
            if !seen.insert(p.name.as_str()) {
                out.push(format!("`{}` is listed twice", p.name));
            }
            if self.grammar == "schema" && p.irrelevant.is_none() {
                out.push(format!(
                    "`{}`: the schema grammar's productions come from the schemas; its file \
                     only declares productions `irrelevant`",
                    p.name
                ));
            }
            if self.grammar == "schema"
                && !schema::productions()
                    .iter()
                    .any(|d| schema::declares(&p.name, d))
            {
                out.push(format!(
                    "`{}` names no production of the shipped schemas (a field renamed or \
                     removed?): drop it",
                    p.name
                ));
            }
            if p.irrelevant.as_deref().is_some_and(|r| r.trim().is_empty()) {
                out.push(format!("`{}`: an empty `irrelevant` reason", p.name));
            }
            if p.irrelevant.is_some() && p.foreign.is_some() {
                out.push(format!("`{}`: both `irrelevant` and `foreign`", p.name));
            }
            match (&p.foreign, self.grammar.as_str()) {
                (Some(foreign), "sql") => out.extend(sql::foreign_problem(&p.name, foreign)),
                // bash and URLs have one reading on the wire: nothing is another's.
                (Some(_), grammar) => out.push(format!(
                    "`{}`: `foreign` is a declaration of the sql grammar, not of {grammar}",
                    p.name
                )),
                (None, _) => {}
            }
        }
        out
    }
}

/// The grammars rbv measures.
pub const GRAMMARS: &[&str] = &["sql", "bash", "fetch", "schema"];

/// How a production is covered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Covered {
    /// Cases with a step exercising it that can fail `under`.
    pub unsafe_cases: BTreeSet<String>,
    /// Cases with a step exercising it that can fail `over`.
    pub precision_cases: BTreeSet<String>,
    /// The dialects (or other readings) it was exercised in.
    pub readings: BTreeSet<&'static str>,
}

/// One row of the grammar table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub grammar: String,
    pub production: String,
    pub irrelevant: Option<String>,
    pub foreign: Option<Foreign>,
    pub covered: Covered,
    /// Exercised by cases but absent from the grammar file.
    pub unlisted: bool,
}

impl Row {
    /// Whether a case exercises it, on either side.
    pub fn is_covered(&self) -> bool {
        !self.covered.unsafe_cases.is_empty() || !self.covered.precision_cases.is_empty()
    }

    /// A production neither covered nor declared irrelevant, or one the
    /// file does not list.
    pub fn problem(&self) -> Option<String> {
        if self.unlisted {
            Some(format!(
                "exercised by {} but not listed in {DIR}{}.yaml: a production of the parser the \
                 list does not know (list it)",
                self.cases().into_iter().next().unwrap_or_default(),
                self.grammar
            ))
        } else if self.foreign.is_some() && self.is_covered() {
            // Another spelling than the probe's reaches it on the wire.
            Some(format!(
                "declared `foreign`, but {} reads it in {}: drop the declaration",
                self.cases().into_iter().next().unwrap_or_default(),
                self.covered
                    .readings
                    .iter()
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        } else if !self.is_covered() && self.irrelevant.is_none() && self.foreign.is_none() {
            Some(
                "no case exercises it (on either side) and it is declared neither `irrelevant` \
                 nor `foreign`: write a case that reaches it"
                    .to_owned(),
            )
        } else {
            None
        }
    }

    fn cases(&self) -> BTreeSet<&str> {
        let c = &self.covered;
        c.unsafe_cases
            .iter()
            .chain(&c.precision_cases)
            .map(String::as_str)
            .collect()
    }

    fn status(&self) -> String {
        let c = &self.covered;
        let mut sides = Vec::new();
        if !c.unsafe_cases.is_empty() {
            sides.push(format!("covered-unsafe ({})", c.unsafe_cases.len()));
        }
        if !c.precision_cases.is_empty() {
            sides.push(format!("covered-precision ({})", c.precision_cases.len()));
        }
        match (&self.irrelevant, &self.foreign, sides.is_empty()) {
            (_, _, false) => sides.join(", "),
            (Some(reason), _, true) => format!("irrelevant: {reason}"),
            (None, Some(f), true) => format!(
                "foreign: {} syntax (`{}` reads so only there)",
                f.dialect,
                f.probe.replace('`', "'")
            ),
            (None, None, true) => "**missing**".to_owned(),
        }
    }
}

fn dialect_name(d: SqlDialect) -> &'static str {
    match d {
        SqlDialect::Postgresql => "postgresql",
        SqlDialect::Mysql => "mysql",
        SqlDialect::Sqlite => "sqlite",
    }
}

/// What one case exercises, per grammar, per production: its sides and readings.
fn exercised(case: &Case, out: &mut BTreeMap<(String, String), Covered>) {
    schema::exercised(case, out);
    for step in &case.steps {
        let (under, over) = crate::case::judge_sides(step);
        for (request, op) in step_operations(&step.action) {
            for (grammar, production, reading) in operation_productions(request, op) {
                let c = out.entry((grammar.to_owned(), production)).or_default();
                if under {
                    c.unsafe_cases.insert(case.id.clone());
                }
                if over {
                    c.precision_cases.insert(case.id.clone());
                }
                c.readings.insert(reading);
            }
        }
    }
}

/// The productions of the payload grammars (`fetch`, `bash`, `sql`) one
/// operation exercises, sent in `request` (`evaluate`, `approve`,
/// `invoke`): `(grammar, production, reading)`, the reading being the
/// dialect (or parser) it was read in. The one classifier of payloads:
/// lint reads the cases' operations with it, the fuzzers' reach the
/// generated ones.
pub fn operation_productions(
    request: &'static str,
    op: &rbv_protocol::Operation,
) -> Vec<(&'static str, String, &'static str)> {
    match op.kind {
        Some(OperationKind::Fetch) => fetch::productions(&op.arguments, request)
            .into_iter()
            .map(|p| ("fetch", p, "whatwg"))
            .collect(),
        Some(OperationKind::Shell) => op
            .arguments
            .get("command")
            .and_then(|v| v.as_str())
            .map(|command| {
                bash::productions(command)
                    .into_iter()
                    .map(|p| ("bash", p, "bash"))
                    .collect()
            })
            .unwrap_or_default(),
        Some(OperationKind::Sql) => {
            let Some(payload) = op.arguments.get("sql").and_then(|v| v.as_str()) else {
                return Vec::new();
            };
            let dialect = match op.dialect.as_deref() {
                None => SqlDialect::Postgresql,
                Some(name) => match name.parse() {
                    Ok(d) => d,
                    Err(_) => return Vec::new(),
                },
            };
            sql::productions(payload, dialect)
                .into_iter()
                .map(|p| ("sql", p, dialect_name(dialect)))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// Every production one request exercises as the wire carries it (its
/// JSON, typed or a raw line): the schemas' fields of the request and of
/// the manifests it holds, and its operation's payload productions.
/// `(grammar, production)`.
pub fn request_productions(request: &serde_json::Value) -> BTreeSet<(&'static str, String)> {
    let mut out: BTreeSet<(&'static str, String)> = schema::request_fields(request)
        .into_iter()
        .map(|p| ("schema", p))
        .collect();
    let kind = request.get("type").and_then(|t| t.as_str()).unwrap_or("");
    let Some(kind) = fetch::REQUESTS.iter().copied().find(|r| *r == kind) else {
        return out;
    };
    // A raw line's operation may be ill-typed: then it has no payload a
    // parser reads, as the reference would refuse it.
    let Some(op) = request
        .get("operation")
        .and_then(|o| serde_json::from_value::<rbv_protocol::Operation>(o.clone()).ok())
    else {
        return out;
    };
    out.extend(
        operation_productions(kind, &op)
            .into_iter()
            .map(|(g, p, _)| (g, p)),
    );
    out
}

/// The operations a step sends, each with the request that carries it.
fn step_operations(action: &Action) -> Vec<(&'static str, &rbv_protocol::Operation)> {
    match action {
        Action::Evaluate(op) => vec![("evaluate", op)],
        Action::Approve { operation, .. } => vec![("approve", operation)],
        Action::Invoke { operation, .. } => vec![("invoke", operation)],
        Action::Concurrent(actions) => actions.iter().flat_map(step_operations).collect(),
        _ => Vec::new(),
    }
}

/// The table of every declared grammar against the cases: every listed
/// production in file order, then those the cases exercise that no file
/// lists. A grammar no file declares is not measured.
pub fn coverage(declared: &BTreeMap<String, Declared>, cases: &[Case]) -> Vec<Row> {
    let mut seen = BTreeMap::new();
    if !declared.is_empty() {
        // Parsing every payload is most of a lint's time: in parallel.
        let per_case = crate::parallel::map(cases, |case| {
            let mut one = BTreeMap::new();
            exercised(case, &mut one);
            one
        });
        if declared.contains_key("schema") {
            let fields = schema::input_fields(&per_case);
            seen.extend(schema::pairs(cases, &fields));
        }
        for one in per_case {
            for (key, c) in one {
                let all: &mut Covered = seen.entry(key).or_default();
                all.unsafe_cases.extend(c.unsafe_cases);
                all.precision_cases.extend(c.precision_cases);
                all.readings.extend(c.readings);
            }
        }
    }
    let mut rows = Vec::new();
    for (grammar, file) in declared {
        let derived;
        let file = if grammar == "schema" {
            derived = derive(file);
            &derived
        } else {
            file
        };
        let listed: BTreeSet<&str> = file.productions.iter().map(|p| p.name.as_str()).collect();
        for p in &file.productions {
            rows.push(Row {
                grammar: grammar.clone(),
                production: p.name.clone(),
                irrelevant: p.irrelevant.clone(),
                foreign: p.foreign.clone(),
                covered: seen
                    .remove(&(grammar.clone(), p.name.clone()))
                    .unwrap_or_default(),
                unlisted: false,
            });
        }
        let unlisted: Vec<_> = seen
            .keys()
            .filter(|(g, name)| g == grammar && !listed.contains(name.as_str()))
            .cloned()
            .collect();
        for key in unlisted {
            let covered = seen.remove(&key).unwrap_or_default();
            rows.push(Row {
                grammar: key.0,
                production: key.1,
                irrelevant: None,
                foreign: None,
                covered,
                unlisted: true,
            });
        }
    }
    rows
}

/// The schema grammar's file as its full list: every production the
/// schemas make, each with the reason of the first declaration naming it.
fn derive(file: &Declared) -> Declared {
    let productions = schema::productions()
        .into_iter()
        .map(|name| Production {
            irrelevant: file
                .productions
                .iter()
                .find(|p| schema::declares(&p.name, &name))
                .and_then(|p| p.irrelevant.clone()),
            name,
            foreign: None,
        })
        .collect();
    Declared {
        productions,
        ..file.clone()
    }
}

/// The grammar table, as Markdown.
pub struct Table<'a>(pub &'a [Row]);

impl fmt::Display for Table<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return Ok(());
        }
        writeln!(f)?;
        writeln!(f, "| grammar | production | status | readings |")?;
        writeln!(f, "|---|---|---|---|")?;
        for r in self.0 {
            let readings: Vec<&str> = r.covered.readings.iter().copied().collect();
            writeln!(
                f,
                "| {} | {} | {} | {} |",
                r.grammar,
                r.production,
                r.status().replace('|', "\\|"),
                if readings.is_empty() {
                    "—".to_owned()
                } else {
                    readings.join(", ")
                }
            )?;
        }
        Ok(())
    }
}
