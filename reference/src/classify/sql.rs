//! Call-time inspection of SQL (proposal §4.3, DESIGN.md §2): statement by
//! statement, never by tool name. The payload is parsed with `sqlparser` in
//! the operation's dialect (PostgreSQL unless it names MySQL or SQLite; an
//! unknown dialect fails safe, see [Dialects](#dialects)); every nested
//! statement, query, expression and literal is
//! walked, and each part with an effect leaves a ground (`effect::Finding`)
//! whose axes project to a band. Several statements: the most dangerous,
//! axis by axis. Unparseable: fails safe (escalate).
//!
//! # What stays auto
//! Reads (SELECT, pure WITH, VALUES, TABLE inside a set operation, SHOW,
//! DESCRIBE, COPY … TO STDOUT; a bare `TABLE t` does not parse in sqlparser
//! 0.64 and fails safe), `EXPLAIN` without `ANALYZE` (it plans and does not run its
//! statement, so `EXPLAIN DELETE …` is a read), and session housekeeping
//! that changes nothing another statement depends on: `BEGIN`/`START
//! TRANSACTION` (not `READ WRITE`), `SAVEPOINT`, `RELEASE`, `SET
//! TRANSACTION` (not `READ WRITE`), `SET`/`RESET` of a setting that only
//! tunes performance, display or timeouts, `PREPARE` of a read, `EXECUTE` of
//! a read prepared earlier in the same payload, `DEALLOCATE`, `DECLARE`/
//! `FETCH`/`CLOSE` of a cursor (PostgreSQL cursors are queries; their
//! functions are judged at `DECLARE`), `UNLISTEN`, `DISCARD
//! PLANS|SEQUENCES`. Literals, quoted identifiers, comments and dollar
//! quotes are data.
//!
//! # What is soft-ack: holding a shared server's resources
//! `pg_sleep*` (MySQL `SLEEP`, `BENCHMARK`), `LISTEN` and `DECLARE … WITH
//! HOLD` change nothing, but hold a connection, a notification-queue slot or
//! a materialized cursor of a shared server until the session lets go:
//! reversible, shared-remote, so soft-ack (noted, not asked). `LOCK` and
//! locking clauses are not in this class: they stop other sessions' work,
//! and escalate.
//!
//! # What escalates
//! Writes, DDL and DCL; data-modifying CTEs at any depth; `EXPLAIN ANALYZE`
//! of anything that escalates (it runs the statement); `SELECT … INTO`;
//! locking clauses; `COPY FROM`, `COPY TO` a file or program; `DO`,
//! `CALL`; `COMMIT`/`ROLLBACK`/`END`/`ABORT` (they end the transaction, so
//! `COMMIT; DROP …` escapes a read-only wrapper, and they make earlier
//! writes permanent or discard them); `BEGIN READ WRITE`; `SET` of any other
//! setting (role, session authorization, search_path, read-only mode,
//! standard_conforming_strings, encoding: each changes what later statements
//! do or how their text is read); `RESET ALL`; `DISCARD ALL|TEMP` (drops
//! temporary tables); `NOTIFY`; `LOCK`; `ANALYZE`/`VACUUM`/`CLUSTER`/
//! `REINDEX`/`CHECKPOINT`/`LOAD`; `EXECUTE` of a statement the payload does
//! not show; side-effecting functions anywhere in an expression or `FROM`
//! (`catalog.rs`); any statement kind not listed above; input that does not
//! parse, or that holds more operators and keywords than the inspector can
//! walk without risking its stack (`parse::MAX_CHAIN_TOKENS`).
//!
//! # Dialects
//! - **MySQL**: executable comments (`/*! … */`, `/*!50000 … */`) are read
//!   as the code they are, whatever the version number; MariaDB's `/*M! … */`
//!   fails safe; `#` starts a comment; strings are read with backslash
//!   escapes and, joined, without them (`NO_BACKSLASH_ESCAPES`). `LOAD DATA`,
//!   `SELECT … INTO OUTFILE|DUMPFILE` and `HANDLER` do not parse in sqlparser
//!   0.64 and fail safe. Functions are judged against MySQL's built-ins
//!   (`LOAD_FILE` reads server files, `GET_LOCK` locks, `sys_exec` runs a
//!   program).
//! - **SQLite**: block comments do not nest; `PRAGMA` without a value (or
//!   with the table or index it reports on) is a read, with a value a write;
//!   `ATTACH` opens or creates a file on the host; `BEGIN IMMEDIATE|EXCLUSIVE`
//!   takes the write lock; `load_extension` and the shell's fileio functions
//!   reach the host. `VACUUM INTO` does not parse and fails safe.
//! - A payload in one dialect is never read in another: PostgreSQL keeps
//!   `/*! … */` as a comment and reads `#` as an operator.
//!
//! # Unknown functions: an allow-list
//! A function call is judged by the catalog: known effects escalate with
//! their own axes; known read-only built-ins (unqualified or `pg_catalog.`)
//! pass; **any other function escalates**, because a user-defined function
//! can do anything and its name says nothing ([`FunctionPolicy::AllowList`],
//! the default). The deny-list reading ([`FunctionPolicy::DenyList`]: only
//! listed effects escalate) is kept to measure the trade: on the PostgreSQL
//! regression corpus it is quieter but lets user-defined functions through
//! (`tests/corpus_sql.rs` prints both). Operators are treated the same way:
//! a symbol outside PostgreSQL's built-in operators is a user-defined
//! function.
//!
//! # Lexical readings
//! PostgreSQL reads `'a\'` as a complete string unless
//! `standard_conforming_strings` is off (a legacy setting); then backslash
//! escapes, and text that one reading sees as a literal the other runs as
//! code. A payload with a backslash is therefore also judged under the
//! backslash reading, and the verdicts are joined (a reading that does not
//! parse is dropped: PostgreSQL with that setting rejects the whole payload).
//!
//! # Out of sight
//! The inspector judges text, not the catalog: a view that calls a volatile
//! function, a user function on a row type called as `t.f`, a user function
//! overloading a built-in name with a better-matching signature, user-defined
//! casts, RLS policies. These need the database's own read-only transaction
//! as a second layer. The payload is assumed to be sent as one simple query.

mod catalog;
#[cfg(test)]
mod dialect_tests;
mod effect;
mod parse;
#[cfg(test)]
mod tests;
mod walk;

use super::Inspection;
use crate::mutant::Mutant;
use effect::{Effect, Finding};
use parse::Lexing;
use rbv_protocol::SqlDialect;
use sqlparser::ast::Statement;

/// How a call of a function the catalog does not know is judged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FunctionPolicy {
    /// Only known read-only built-ins pass; anything else escalates.
    #[default]
    AllowList,
    /// Only known side-effecting functions escalate (unsafe: measured only).
    DenyList,
}

/// Inspects one PostgreSQL payload (one or more statements).
pub fn inspect(sql: &str, mutant: Option<Mutant>) -> Inspection {
    inspect_in(sql, SqlDialect::Postgresql, mutant)
}

/// Inspects one payload written in `dialect`.
pub fn inspect_in(sql: &str, dialect: SqlDialect, mutant: Option<Mutant>) -> Inspection {
    let policy = if mutant == Some(Mutant::DenyListSqlFunctions) {
        FunctionPolicy::DenyList
    } else {
        FunctionPolicy::default()
    };
    inspect_with(sql, dialect, mutant, policy)
}

/// Inspects a payload whose operation names a dialect by its wire spelling
/// (`None`: PostgreSQL). A dialect the inspector does not know fails safe:
/// its comments and strings cannot be told from its code.
pub fn inspect_named(sql: &str, dialect: Option<&str>, mutant: Option<Mutant>) -> Inspection {
    let named = match dialect {
        None => Ok(SqlDialect::Postgresql),
        Some(name) => name.parse::<SqlDialect>(),
    };
    match (named, mutant) {
        (_, Some(Mutant::DialectBlindSql)) => inspect(sql, mutant),
        (Ok(dialect), _) => inspect_in(sql, dialect, mutant),
        (Err(e), _) => Inspection::unknown(format!(
            "{e}: the SQL dialect is not one the inspector reads (postgresql, mysql, sqlite); fail safe"
        )),
    }
}

/// A payload as the inspector reads it under its dialect's default
/// lexing: what a corpus of payloads exercises of sqlparser's grammar is
/// measured on this reading, so that it is the inspector's own.
pub struct Reading {
    pub tokens: Vec<sqlparser::tokenizer::Token>,
    /// `Err`: the payload does not parse (the inspector fails safe).
    pub statements: Result<Vec<Statement>, String>,
}

/// [`Reading`] of `sql` in `dialect`; `None` when it does not even lex.
pub fn read(sql: &str, dialect: SqlDialect) -> Option<Reading> {
    let lexing = Lexing::default_for(dialect);
    let tokens = parse::tokens(sql, dialect, lexing).ok()?;
    let statements = parse::statements(sql, dialect, lexing).map_err(|e| e.to_string());
    Some(Reading { tokens, statements })
}

/// [`inspect_in`] with an explicit policy for unknown functions.
pub fn inspect_with(
    sql: &str,
    dialect: SqlDialect,
    mutant: Option<Mutant>,
    policy: FunctionPolicy,
) -> Inspection {
    if mutant == Some(Mutant::FirstKeywordSql) {
        return first_keyword(sql);
    }
    let lexing = Lexing::default_for(dialect);
    let (mut findings, kinds) = match parse::statements(sql, dialect, lexing) {
        Ok(statements) => (
            judge(&statements, dialect, policy, mutant),
            statements.iter().map(walk::kind).collect(),
        ),
        Err(e) => (
            vec![Finding::new(Effect::Unknown, e.to_string())],
            Vec::new(),
        ),
    };
    let other = Lexing::other_for(dialect).filter(|_| sql.contains('\\'));
    if let Some(other) = other {
        if let Ok(statements) = parse::statements(sql, dialect, other) {
            let setting = match dialect {
                SqlDialect::Mysql => "sql_mode NO_BACKSLASH_ESCAPES",
                _ => "standard_conforming_strings off",
            };
            findings.extend(judge(&statements, dialect, policy, mutant).into_iter().map(
                |mut f| {
                    f.reason = format!("read under {setting}: {}", f.reason);
                    f
                },
            ));
        }
    }
    if mutant == Some(Mutant::QuotedStringBlind) {
        if let Some(word) = dangerous_word(sql) {
            findings.push(Finding::new(
                Effect::Write,
                format!("the text mentions {word}"),
            ));
        }
    }
    effect::inspection(findings, read_summary(kinds))
}

/// The findings of every statement, in order; prepared statements carry
/// their findings to a later `EXECUTE` of the same name.
fn judge(
    statements: &[Statement],
    dialect: SqlDialect,
    policy: FunctionPolicy,
    mutant: Option<Mutant>,
) -> Vec<Finding> {
    let mut prepared = walk::Prepared::new();
    let mut findings = Vec::new();
    for stmt in statements {
        let found = walk::statement(stmt, dialect, policy, &prepared, mutant);
        match stmt {
            Statement::Prepare { name, .. } => {
                prepared.insert(fold(&name.value, name.quote_style), found.clone());
            }
            Statement::Deallocate { name, .. } => {
                if name.quote_style.is_none() && name.value.eq_ignore_ascii_case("all") {
                    prepared.clear();
                } else {
                    prepared.remove(&fold(&name.value, name.quote_style));
                }
            }
            _ => {}
        }
        findings.extend(found);
    }
    findings
}

fn fold(value: &str, quote: Option<char>) -> String {
    match quote {
        None => value.to_ascii_lowercase(),
        Some(_) => value.to_owned(),
    }
}

/// The statement kinds of a read, each once, in order.
fn read_summary(kinds: Vec<String>) -> String {
    let mut distinct: Vec<&str> = Vec::new();
    for kind in &kinds {
        if !distinct.contains(&kind.as_str()) {
            distinct.push(kind);
        }
    }
    match kinds.len() {
        0 => "no statement to run".to_owned(),
        1 => format!("read-only: {}", distinct.join("; ")),
        n => format!("read-only: {} ({n} statements)", distinct.join("; ")),
    }
}

/// Words whose mere presence escalates under the `quoted-string-blind` mutant.
const DANGEROUS_WORDS: &[&str] = &[
    "DROP", "DELETE", "TRUNCATE", "INSERT", "UPDATE", "ALTER", "GRANT", "REVOKE", "CREATE", "MERGE",
];

fn dangerous_word(sql: &str) -> Option<&'static str> {
    sql.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .find_map(|w| {
            DANGEROUS_WORDS
                .iter()
                .copied()
                .find(|d| w.eq_ignore_ascii_case(d))
        })
}

/// The `first-keyword-sql` mutant: statements split naively on `;`, each
/// judged by its first word. It passes `nextval`, `FOR UPDATE`, writing
/// CTEs, `EXPLAIN ANALYZE DELETE` and `SELECT … INTO`.
fn first_keyword(sql: &str) -> Inspection {
    let mut findings = Vec::new();
    for piece in sql.split(';') {
        let word: String = piece
            .trim_start_matches(|c: char| c.is_whitespace() || c == '(')
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect::<String>()
            .to_ascii_uppercase();
        let read = matches!(
            word.as_str(),
            "" | "SELECT" | "WITH" | "EXPLAIN" | "SHOW" | "VALUES" | "TABLE"
        );
        if !read {
            findings.push(Finding::new(
                Effect::Write,
                format!("{word} is not a read keyword"),
            ));
        }
    }
    effect::inspection(findings, "read-only by first keyword")
}
