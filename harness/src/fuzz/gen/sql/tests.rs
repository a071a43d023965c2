//! The generator's reach: every family it names is produced, and the
//! reference agrees with every truth it builds.

use super::*;
use crate::fuzz::rng::SplitMix64;
use crate::fuzz::{targets, InProcess};

/// Every production of the generator; a new one must be added here, and a
/// removed one fails the reach test below.
const FAMILIES: &[&str] = &[
    // classic PostgreSQL
    "pg-regress-write",
    "transaction-escape",
    "hidden-after-comment",
    "second-statement",
    "data-modifying-cte",
    "nested-cte-write",
    "explain-analyze",
    "function-in-subquery",
    "ddl",
    "truncate",
    "dcl",
    "side-effecting-function",
    "locking-read",
    "select-into",
    "copy-from",
    "do-block",
    "dml",
    "string-literal",
    "line-comment",
    "block-comment",
    "dollar-quote",
    "aggregate",
    "pure-cte",
    "explain-read",
    // the catalogue's statement kinds
    "session-control-alone",
    "session-control-escalates",
    "statement-kind",
    "unparseable",
    "resource-holder",
    "side-effecting-function-anywhere",
    "postgres-reads-its-own-comments",
    "comments-anywhere",
    // MySQL
    "mysql-hash-comment",
    "mysql-hash-in-string",
    "mysql-escaped-quote",
    "mysql-plain-comment",
    "mysql-optimizer-hint",
    "mysql-builtins",
    "mysql-show",
    "mysql-describe",
    "mysql-read-only-transaction",
    "mysql-resource-holder",
    "mysql-executable-comment",
    "mysql-executable-comment-outfile",
    "mariadb-executable-comment",
    "mysql-into-outfile",
    "mysql-into-dumpfile",
    "mysql-load-data",
    "mysql-handler",
    "mysql-effect-function",
    "mysql-hash-comment-newline",
    "mysql-backslash-both-readings",
    "unnested-block-comment",
    "mysql-control",
    "mysql-write",
    // SQLite
    "sqlite-pragma-read",
    "sqlite-pragma-function",
    "sqlite-schema",
    "sqlite-builtins",
    "sqlite-attach-in-string",
    "sqlite-housekeeping",
    "sqlite-attach",
    "sqlite-detach",
    "sqlite-vacuum",
    "sqlite-pragma-write",
    "sqlite-effect-function",
    "sqlite-write-lock",
    "sqlite-attach-after-read",
    "sqlite-write",
    "unknown-dialect",
    // the grammar forms (forms.rs)
    "statement-form",
    "other-dialect-statement-form",
    "session-form",
    "read-statement-form",
    "transaction-opener-form",
    "several-statement-forms",
    "write-after-statement-forms",
    "expression-form-read",
    "effect-in-expression-form",
    "string-form-read",
    "write-after-string-form",
    "string-form-ends-early",
    "bracket-identifier-read",
    "write-after-bracket-identifier",
];

fn generated(seeds: std::ops::Range<u64>) -> impl Iterator<Item = (Vec<u8>, SqlInput)> {
    seeds.filter_map(|seed| {
        let bytes = SplitMix64::new(seed).bytes(256);
        let input = input(&mut Unstructured::new(&bytes)).ok()?;
        Some((bytes, input))
    })
}

#[test]
fn every_family_and_dialect_is_reached() {
    let mut seen = std::collections::BTreeSet::new();
    let mut dialects = std::collections::BTreeSet::new();
    for (_, input) in generated(0..6_000) {
        seen.extend(input.labeled.families.iter().copied());
        dialects.insert(input.dialect);
    }
    let missing: Vec<_> = FAMILIES.iter().filter(|f| !seen.contains(*f)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
    let unlisted: Vec<_> = seen.iter().filter(|f| !FAMILIES.contains(f)).collect();
    assert!(
        unlisted.is_empty(),
        "generated but not listed: {unlisted:?}"
    );
    for d in [
        None,
        Some("postgresql"),
        Some("mysql"),
        Some("sqlite"),
        Some("oracle"),
    ] {
        assert!(dialects.contains(&d), "dialect {d:?} never named");
    }
}

/// Every truth the generator builds is the reference's answer: a wrong
/// label would be a finding against a correct implementation.
#[test]
fn the_reference_agrees_with_every_generated_truth() {
    let mut subject = InProcess::new(None);
    let target = targets::by_name("sql_bypass").unwrap();
    for (bytes, input) in generated(0..3_000) {
        let finding = (target.check)(&mut Unstructured::new(&bytes), &mut subject).unwrap();
        assert!(finding.is_none(), "{input:?}\n{}", finding.unwrap());
    }
}

#[test]
fn dialect_blind_and_first_keyword_readers_are_found() {
    for mutant in [
        rbv_reference::Mutant::DialectBlindSql,
        rbv_reference::Mutant::FirstKeywordSql,
    ] {
        let mut subject = InProcess::new(Some(mutant));
        let target = targets::by_name("sql_bypass").unwrap();
        let found = generated(0..3_000).any(|(bytes, _)| {
            (target.check)(&mut Unstructured::new(&bytes), &mut subject)
                .unwrap()
                .is_some()
        });
        assert!(found, "{mutant} never found");
    }
}

/// The inputs one form generator draws from `n` seeded 64-byte buffers.
pub(super) fn drawn(
    n: u64,
    input: fn(&mut arbitrary::Unstructured) -> arbitrary::Result<forms::Formed>,
) -> Vec<forms::Formed> {
    (0..n)
        .filter_map(|seed| {
            let bytes = SplitMix64::new(seed).bytes(64);
            input(&mut arbitrary::Unstructured::new(&bytes)).ok()
        })
        .collect()
}

/// Every production `formed` claims is one the grammar classifier reads in
/// its text, in the dialect its operation names.
pub(super) fn claims_hold(formed: &forms::Formed) {
    let input = &formed.input;
    let dialect = input
        .dialect
        .map_or(Dialect::Postgresql, |d| d.parse().unwrap());
    let seen = crate::grammar::sql::productions(&input.labeled.text, dialect);
    for claim in &formed.claims {
        assert!(
            seen.contains(*claim),
            "{claim} not in {:?} ({dialect:?}): {seen:?}",
            input.labeled.text
        );
    }
}

/// The reference answers every input on the side its truth says, through
/// the operation the SQL target sends.
pub(super) fn reference_agrees<'a>(inputs: impl Iterator<Item = &'a forms::Formed>) {
    use crate::fuzz::subject::Subject;
    use crate::fuzz::targets::{judge, operation, sql_plugin};
    use rbv_protocol::{
        EvaluateRequest, LoadPluginsRequest, OperationKind, RequestBody, ResponseBody,
    };
    let mut subject = InProcess::new(None);
    let mut wrong = Vec::new();
    for formed in inputs {
        let input = &formed.input;
        let mut op = operation(
            Some("db-tools"),
            "mcp:db/execute_sql",
            OperationKind::Sql,
            serde_json::json!({"sql": input.labeled.text}),
        );
        op.dialect = input.dialect.map(str::to_owned);
        let session = subject.fresh_session();
        let batch = vec![
            RequestBody::LoadPlugins(LoadPluginsRequest {
                plugins: vec![sql_plugin()],
            }),
            RequestBody::Evaluate(EvaluateRequest { operation: op }),
        ];
        let Some(Ok(ResponseBody::Evaluation(e))) = subject.call_batch(&session, batch).pop()
        else {
            panic!("no evaluation for {input:?}");
        };
        if let Some(kind) = judge(e.band, input.labeled.truth) {
            wrong.push(format!(
                "{kind:?} {}: {:?} {:?}",
                e.band, input.dialect, input.labeled.text
            ));
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
