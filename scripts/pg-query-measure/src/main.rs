//! pg_query (PostgreSQL's own parser) against the reference's sqlparser
//! reading, on the PostgreSQL-labeled regression corpus and on the SQL
//! payloads of rbv's cases (BENCHMARKS.md has the figures).

use rbv_protocol::Band;
use rbv_reference::classify::sql::inspect;
use rbv_reference::projection::project;
use std::time::Instant;

fn reference_parses(sql: &str) -> (bool, Band) {
    let i = inspect(sql, None);
    let unparseable = i.reasons.iter().any(|r| r.contains("unparseable SQL"));
    (!unparseable, project(i.reversibility, i.scope, i.trust))
}

fn pg_parses(sql: &str) -> bool {
    pg_query::parse(sql).is_ok()
}

#[derive(Default, Debug)]
struct Tally {
    n: usize,
    pg_ok: usize,
    ref_ok: usize,
    both: usize,
    only_pg: usize,
    only_ref: usize,
    neither: usize,
}

impl Tally {
    fn add(&mut self, pg: bool, rf: bool) {
        self.n += 1;
        self.pg_ok += pg as usize;
        self.ref_ok += rf as usize;
        match (pg, rf) {
            (true, true) => self.both += 1,
            (true, false) => self.only_pg += 1,
            (false, true) => self.only_ref += 1,
            (false, false) => self.neither += 1,
        }
    }
}

fn main() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    // 1. The corpus, labeled by PostgreSQL 15.
    let text =
        std::fs::read_to_string(root.join("corpora/real-world/sql-pg-regress.jsonl")).unwrap();
    let mut all = Tally::default();
    let mut syntax_vs = [0usize; 4]; // [pg agrees w/ PG15 on syntax, pg disagrees, ref agrees, ref disagrees]
    let mut only_pg_examples = Vec::new();
    let mut only_ref_examples = Vec::new();
    let mut reads_unparseable = 0;
    let mut reads = 0;
    let mut by_label = std::collections::BTreeMap::<String, Tally>::new();
    for line in text.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        let sql = r["sql"].as_str().unwrap();
        let label = r["pg_label"].as_str().unwrap().to_owned();
        let pg = pg_parses(sql);
        let (rf, band) = reference_parses(sql);
        all.add(pg, rf);
        by_label.entry(label.clone()).or_default().add(pg, rf);
        let pg15_syntax_ok = label != "syntax_error";
        syntax_vs[if pg == pg15_syntax_ok { 0 } else { 1 }] += 1;
        syntax_vs[if rf == pg15_syntax_ok { 2 } else { 3 }] += 1;
        let read = label == "ok"
            && r["state_changed"] == false
            && r["oracle_effects"].as_array().is_some_and(|a| a.is_empty());
        if read {
            reads += 1;
            if !rf {
                reads_unparseable += 1;
            }
        }
        if pg && !rf && only_pg_examples.len() < 40 {
            only_pg_examples.push(format!(
                "[{label}, ref {band}] {}",
                sql.replace('\n', " ").chars().take(110).collect::<String>()
            ));
        }
        if !pg && rf && only_ref_examples.len() < 20 {
            only_ref_examples.push(format!(
                "[{label}, ref {band}] {}",
                sql.replace('\n', " ").chars().take(110).collect::<String>()
            ));
        }
    }
    println!("== corpora/real-world/sql-pg-regress.jsonl ==\n{all:?}");
    for (label, t) in &by_label {
        println!("  {label}: {t:?}");
    }
    println!(
        "syntax verdict vs PostgreSQL 15: pg_query agrees {} / disagrees {}; reference agrees {} / disagrees {}",
        syntax_vs[0], syntax_vs[1], syntax_vs[2], syntax_vs[3]
    );
    println!("reads PostgreSQL ran without effect: {reads}; the reference cannot parse {reads_unparseable} of them (escalates them)");
    println!("-- parsed by pg_query only:");
    for e in &only_pg_examples {
        println!("   {e}");
    }
    println!("-- parsed by the reference only:");
    for e in &only_ref_examples {
        println!("   {e}");
    }

    // 2. The SQL payloads of the cases (PostgreSQL dialect only).
    let mut cases = Tally::default();
    let mut case_only_pg = Vec::new();
    let mut case_only_ref = Vec::new();
    let mut payloads = Vec::new();
    collect(&root.join("cases"), &mut payloads);
    for sql in &payloads {
        let pg = pg_parses(sql);
        let (rf, band) = reference_parses(sql);
        cases.add(pg, rf);
        if pg && !rf {
            case_only_pg.push(format!(
                "[ref {band}] {}",
                sql.replace('\n', " ").chars().take(110).collect::<String>()
            ));
        }
        if !pg && rf {
            case_only_ref.push(format!(
                "[ref {band}] {}",
                sql.replace('\n', " ").chars().take(110).collect::<String>()
            ));
        }
    }
    println!("\n== PostgreSQL payloads of cases/ ==\n{cases:?}");
    println!("-- parsed by pg_query only:");
    for e in &case_only_pg {
        println!("   {e}");
    }
    println!("-- parsed by the reference only:");
    for e in &case_only_ref {
        println!("   {e}");
    }

    // 3. Speed: parse every corpus statement, 20 rounds.
    let stmts: Vec<String> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["sql"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let t = Instant::now();
    for _ in 0..20 {
        for s in &stmts {
            std::hint::black_box(pg_query::parse(s).is_ok());
        }
    }
    let pg_us = t.elapsed().as_secs_f64() * 1e6 / (20.0 * stmts.len() as f64);
    let t = Instant::now();
    let sp_dialect = sqlparser::dialect::PostgreSqlDialect {};
    for _ in 0..20 {
        for s in &stmts {
            std::hint::black_box(sqlparser::parser::Parser::parse_sql(&sp_dialect, s).is_ok());
        }
    }
    let sp_us = t.elapsed().as_secs_f64() * 1e6 / (20.0 * stmts.len() as f64);
    // 4. Where both parse: do they agree on how many statements there are?
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let (mut same, mut differ) = (0, Vec::new());
    for s in stmts.iter().chain(payloads.iter()) {
        let (Ok(pg), Ok(sp)) = (
            pg_query::parse(s),
            sqlparser::parser::Parser::parse_sql(&dialect, s),
        ) else {
            continue;
        };
        if pg.protobuf.stmts.len() == sp.len() {
            same += 1
        } else {
            differ.push(s.clone())
        }
    }
    println!(
        "\nstatement counts where both parse: agree {same}, differ {}: {differ:?}",
        differ.len()
    );
    println!("\nparse time per corpus statement: pg_query {pg_us:.1} µs, sqlparser {sp_us:.1} µs");
}

/// Every `sql:` argument of an operation without a non-PostgreSQL dialect.
fn collect(dir: &std::path::Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml")
            && !path.ends_with("REQUIREMENTS.yaml")
        {
            let text = std::fs::read_to_string(&path).unwrap();
            for doc in serde_yaml::Deserializer::from_str(&text) {
                if let Ok(v) = <serde_yaml::Value as serde::Deserialize>::deserialize(doc) {
                    walk(&v, out, None);
                }
            }
        }
    }
}

fn walk(v: &serde_yaml::Value, out: &mut Vec<String>, rows_template: Option<&serde_yaml::Value>) {
    use serde_yaml::Value;
    match v {
        Value::Mapping(m) => {
            // A table: substitute each row's `sql` into the template's dialect check.
            if let (Some(Value::Sequence(rows)), Some(template)) =
                (m.get("rows"), m.get("template"))
            {
                let t = serde_yaml::to_string(template).unwrap();
                let pg = !(t.contains("dialect: mysql")
                    || t.contains("dialect: sqlite")
                    || t.contains("dialect: ${dialect}"));
                for row in rows {
                    if let Some(Value::String(sql)) = row.get("sql") {
                        let d = row.get("dialect").and_then(Value::as_str);
                        if pg && d.is_none_or(|d| d == "postgresql") {
                            out.push(sql.clone());
                        }
                    }
                }
                return;
            }
            let dialect = m.get("dialect").and_then(Value::as_str);
            if let Some(Value::Mapping(args)) = m.get("arguments") {
                if let Some(Value::String(sql)) = args.get("sql") {
                    if dialect.is_none_or(|d| d == "postgresql") && !sql.contains("${") {
                        out.push(sql.clone());
                    }
                }
            }
            for (_, child) in m {
                walk(child, out, rows_template);
            }
        }
        Value::Sequence(s) => s.iter().for_each(|c| walk(c, out, rows_template)),
        _ => {}
    }
}
