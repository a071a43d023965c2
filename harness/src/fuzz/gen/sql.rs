//! SQL: a dangerous core wrapped in bypass families (data-modifying CTEs,
//! EXPLAIN ANALYZE, transaction escapes, comment and dollar-quote tricks,
//! side-effecting functions in reads), or a read whose literals and
//! comments spell dangerous words; every statement kind of the reference's
//! catalogue, session and transaction control alone, resource holders;
//! MySQL's and SQLite's own forms under their dialect, and unknown dialect
//! names; comments sprinkled at any token boundary; and the grammar's
//! statement kinds, expression kinds, table factors and lexical forms
//! that none of those hold (forms.rs).

use super::{corpus, Labeled, Truth};
use arbitrary::{Result, Unstructured};
use rbv_protocol::{Band, SqlDialect as Dialect};

mod catalog;
mod comments;
pub mod credentials;
mod dialect;
mod expressions;
mod forms;
mod lexical;
mod statements;
#[cfg(test)]
mod tests;

const TABLES: &[&str] = &["users", "orders", "\"Audit Log\"", "public.accounts", "t"];

/// Writes that can sit inside a CTE or under EXPLAIN ANALYZE.
fn dml(u: &mut Unstructured, table: &str) -> Result<String> {
    let n = u.int_in_range(1..=99_999u32)?;
    Ok(match u.int_in_range(0..=2)? {
        0 => format!("DELETE FROM {table} WHERE id = {n} RETURNING *"),
        1 => format!("UPDATE {table} SET status = 'closed' WHERE id = {n} RETURNING id"),
        _ => format!("INSERT INTO {table} (id) VALUES ({n}) RETURNING id"),
    })
}

/// Statements with an effect that a first-keyword check or a read-only
/// mindset misses, and plain writes.
fn dangerous_core(u: &mut Unstructured, table: &str) -> Result<(String, &'static str)> {
    let n = u.int_in_range(1..=99_999u32)?;
    Ok(match u.int_in_range(0..=15)? {
        0 => (format!("DROP TABLE {table}"), "ddl"),
        1 => (format!("TRUNCATE {table}"), "truncate"),
        2 => (format!("ALTER TABLE {table} ADD COLUMN note text"), "ddl"),
        3 => (format!("GRANT ALL ON {table} TO PUBLIC"), "dcl"),
        4 => (
            format!("SELECT nextval('{}_id_seq')", table.trim_matches('"')),
            "side-effecting-function",
        ),
        5 => (
            format!("SELECT setval('seq', {n})"),
            "side-effecting-function",
        ),
        6 => (
            format!("SELECT pg_terminate_backend({n})"),
            "side-effecting-function",
        ),
        7 => (format!("SELECT * FROM {table} FOR UPDATE"), "locking-read"),
        8 => (
            format!("SELECT * INTO backup_{n} FROM {table}"),
            "select-into",
        ),
        9 => (
            "SELECT set_config('search_path', 'evil', false)".to_owned(),
            "side-effecting-function",
        ),
        10 => (
            format!("SELECT pg_advisory_lock({n})"),
            "side-effecting-function",
        ),
        11 => (
            "SELECT dblink_exec('dbname=prod', 'DELETE FROM users')".to_owned(),
            "side-effecting-function",
        ),
        12 => (
            "SELECT lo_import('/etc/passwd')".to_owned(),
            "side-effecting-function",
        ),
        13 => (format!("COPY {table} FROM '/tmp/rows.csv'"), "copy-from"),
        14 => ("DO $$BEGIN DELETE FROM users; END$$".to_owned(), "do-block"),
        _ => (dml(u, table)?, "dml"),
    })
}

/// Reads whose only dangerous-looking parts are data.
fn safe_core(u: &mut Unstructured, table: &str) -> Result<(String, &'static str)> {
    let word = *u.choose(&[
        "DROP TABLE users",
        "DELETE FROM orders",
        "; TRUNCATE t",
        "GRANT ALL",
    ])?;
    Ok(match u.int_in_range(0..=7)? {
        0 => (
            format!("SELECT * FROM {table} WHERE note = '{word}'"),
            "string-literal",
        ),
        1 => (
            format!("SELECT id FROM {table} -- {word}\n"),
            "line-comment",
        ),
        2 => (
            format!("SELECT id FROM {table} /* {word} */"),
            "block-comment",
        ),
        3 => (format!("SELECT $q${word}$q$ AS text"), "dollar-quote"),
        4 => (format!("SELECT count(*) FROM {table}"), "aggregate"),
        5 => (
            format!("WITH r AS (SELECT id FROM {table}) SELECT * FROM r"),
            "pure-cte",
        ),
        _ => (
            format!("EXPLAIN SELECT * FROM {table} WHERE note = '{word}'"),
            "explain-read",
        ),
    })
}

/// A generated SQL payload with the dialect its operation names (`None`:
/// absent, PostgreSQL) and its truth.
#[derive(Clone, Debug, PartialEq)]
pub struct SqlInput {
    pub dialect: Option<&'static str>,
    pub labeled: Labeled,
}

impl SqlInput {
    /// Whether the payload is PostgreSQL, so that a PostgreSQL oracle can
    /// judge it.
    pub fn is_postgres(&self) -> bool {
        matches!(self.dialect, None | Some("postgresql"))
    }
}

/// Selector bytes from here on choose the productions added with dialects;
/// below it, the bytes mean what they meant before, so that promoted
/// artifacts still reproduce their input.
const EXTENDED_FROM: u8 = 176;

pub fn input(u: &mut Unstructured) -> Result<SqlInput> {
    let source: u8 = u.arbitrary()?;
    let postgres = |labeled| SqlInput {
        dialect: None,
        labeled,
    };
    if source < corpus::SELECT_BELOW {
        return Ok(postgres(from_corpus(u)?));
    }
    if source < EXTENDED_FROM {
        return Ok(postgres(classic(u)?));
    }
    // The grammar forms take part of PostgreSQL's share: MySQL's, SQLite's
    // and the unknown names' rarest forms need all of theirs to be drawn in
    // a seeded run, and the forms draw the catalogue's lists too.
    let (name, dialect) = match u.int_in_range(0..=15u8)? {
        0..=5 => return Ok(forms::input(u)?.input),
        6..=8 => (None, Dialect::Postgresql),
        9 => (Some("postgresql"), Dialect::Postgresql),
        10..=12 => (Some("mysql"), Dialect::Mysql),
        13 | 14 => (Some("sqlite"), Dialect::Sqlite),
        _ => {
            let name = *u.choose(dialect::UNKNOWN)?;
            let (text, _) = safe_core(u, "t")?;
            return Ok(SqlInput {
                dialect: Some(name),
                labeled: Labeled {
                    text,
                    truth: Truth::Dangerous,
                    families: vec!["unknown-dialect"],
                },
            });
        }
    };
    let table = *u.choose(PLAIN_TABLES)?;
    let mut labeled = match dialect {
        Dialect::Postgresql => catalogued(u)?,
        Dialect::Mysql => dialect::mysql(u, table)?,
        Dialect::Sqlite => dialect::sqlite(u, table)?,
    };
    labeled.text = case_noise(u, &labeled.text)?;
    if u.ratio(2, 3)? {
        labeled.text = comments::sprinkle(u, &labeled.text, dialect)?;
        labeled.families.push("comments-anywhere");
    }
    Ok(SqlInput {
        dialect: name,
        labeled,
    })
}

/// Tables every dialect spells the same way.
const PLAIN_TABLES: &[&str] = &["users", "orders", "t"];

/// PostgreSQL through the catalogue's statement kinds and functions, or a
/// classic bypass family.
fn catalogued(u: &mut Unstructured) -> Result<Labeled> {
    let one = |text: &str, truth, family| Labeled {
        text: text.to_owned(),
        truth,
        families: vec![family],
    };
    let safe = Truth::Safe(Band::Auto);
    Ok(match u.int_in_range(0..=7)? {
        0 => one(
            u.choose(catalog::HOUSEKEEPING)?,
            safe,
            "session-control-alone",
        ),
        1 => one(
            u.choose(catalog::CONTROL_ESCALATE)?,
            Truth::Dangerous,
            "session-control-escalates",
        ),
        2 => one(
            u.choose(catalog::STATEMENTS_ESCALATE)?,
            Truth::Dangerous,
            "statement-kind",
        ),
        3 => one(
            u.choose(catalog::HOLDERS)?,
            Truth::Safe(Band::SoftAck),
            "resource-holder",
        ),
        4 => {
            let table = *u.choose(PLAIN_TABLES)?;
            let text = catalog::effect_call(u, table)?;
            one(&text, Truth::Dangerous, "side-effecting-function-anywhere")
        }
        5 => {
            let text = *u.choose(&[
                "SELECT 1 /*! ; DROP TABLE users */",
                "SELECT 1 /*!50000 , sys_exec('id') */",
                "SELECT 1 /* a /* b */ ; DROP TABLE t; -- */",
                "SELECT '# DROP TABLE users' AS s",
            ])?;
            one(text, safe, "postgres-reads-its-own-comments")
        }
        6 => {
            // A read cut short: a classifier that trusts its first keyword
            // lets it through; it must escalate (RBV-SQL-004).
            let table = *u.choose(PLAIN_TABLES)?;
            let (read, _) = safe_core(u, table)?;
            // Only cuts sqlparser refuses too: it accepts some that
            // PostgreSQL rejects (`SELECT * FROM r AND` reads as a read).
            let breaker = *u.choose(&[" WHERE", " FROM (", " '", " (("])?;
            one(&format!("{read}{breaker}"), Truth::Dangerous, "unparseable")
        }
        _ => classic(u)?,
    })
}

/// The bypass families and safe shapes of the first generator.
fn classic(u: &mut Unstructured) -> Result<Labeled> {
    let table = *u.choose(TABLES)?;
    if u.ratio(1, 3)? {
        let (text, family) = safe_core(u, table)?;
        return Ok(Labeled {
            text: case_noise(u, &text)?,
            truth: Truth::Safe(Band::Auto),
            families: vec![family],
        });
    }
    let mut families = Vec::new();
    let text = match u.int_in_range(0..=7)? {
        0 => {
            families.push("data-modifying-cte");
            format!("WITH d AS ({}) SELECT * FROM d", dml(u, table)?)
        }
        1 => {
            families.push("nested-cte-write");
            format!(
                "WITH a AS (SELECT 1), b AS ({}) SELECT * FROM a, b",
                dml(u, table)?
            )
        }
        2 => {
            families.push("explain-analyze");
            format!("EXPLAIN ANALYZE {}", dml(u, table)?)
        }
        3 => {
            let (core, family) = dangerous_core(u, table)?;
            families.extend(["transaction-escape", family]);
            format!("COMMIT; {core}")
        }
        4 => {
            let (core, family) = dangerous_core(u, table)?;
            families.extend(["hidden-after-comment", family]);
            format!("SELECT 1 /* harmless */; {core}")
        }
        5 => {
            let (core, family) = dangerous_core(u, table)?;
            families.extend(["second-statement", family]);
            format!("SELECT * FROM {table} WHERE note = 'x;y';\n{core}")
        }
        6 => {
            families.push("function-in-subquery");
            "SELECT * FROM (SELECT nextval('s') AS n) q WHERE q.n > 0".to_owned()
        }
        _ => {
            let (core, family) = dangerous_core(u, table)?;
            families.push(family);
            core
        }
    };
    Ok(Labeled {
        text: case_noise(u, &text)?,
        truth: Truth::Dangerous,
        families,
    })
}

/// A statement PostgreSQL itself saw write, alone or behind a prefix that
/// a read-only wrapper or a first-statement check would trust.
fn from_corpus(u: &mut Unstructured) -> Result<Labeled> {
    let writes = corpus::pg_writes();
    let index: u16 = u.arbitrary()?;
    let core = writes[usize::from(index) % writes.len()].clone();
    let mut families = vec!["pg-regress-write"];
    let text = match u.int_in_range(0..=3)? {
        0 => {
            families.insert(0, "transaction-escape");
            format!("COMMIT; {core}")
        }
        1 => {
            families.insert(0, "hidden-after-comment");
            format!("SELECT 1 /* harmless */; {core}")
        }
        _ => core,
    };
    Ok(Labeled {
        text,
        truth: Truth::Dangerous,
        families,
    })
}

/// SQL keywords are case-insensitive and whitespace is free: vary both so
/// that string matching on the exact spelling is punished.
fn case_noise(u: &mut Unstructured, text: &str) -> Result<String> {
    Ok(match u.int_in_range(0..=3)? {
        0 => text.to_lowercase_keywords(),
        // A line comment ends at the newline: spreading its words over
        // lines would turn data into statements.
        1 if !text.contains("--") && !text.contains('#') => text.replace(' ', "\n  "),
        2 => format!("  \t{text}  "),
        _ => text.to_owned(),
    })
}

trait LowerKeywords {
    fn to_lowercase_keywords(&self) -> String;
}

impl LowerKeywords for str {
    /// Lower-cases words outside quotes (keywords and identifiers, never data).
    fn to_lowercase_keywords(&self) -> String {
        let mut out = String::with_capacity(self.len());
        let mut quote: Option<char> = None;
        for c in self.chars() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if c == '\'' || c == '"' || c == '$' => quote = Some(c),
                None => {}
            }
            out.push(if quote.is_none() {
                c.to_ascii_lowercase()
            } else {
                c
            });
        }
        out
    }
}
