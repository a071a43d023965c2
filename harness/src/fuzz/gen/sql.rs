//! SQL: a dangerous core wrapped in bypass families (data-modifying CTEs,
//! EXPLAIN ANALYZE, transaction escapes, comment and dollar-quote tricks,
//! side-effecting functions in reads), or a read whose literals and
//! comments spell dangerous words.

use super::{corpus, Labeled, Truth};
use arbitrary::{Result, Unstructured};
use rbv_protocol::Band;

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
    Ok(match u.int_in_range(0..=6)? {
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

pub fn input(u: &mut Unstructured) -> Result<Labeled> {
    let source: u8 = u.arbitrary()?;
    if source < corpus::SELECT_BELOW {
        return from_corpus(u);
    }
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
        1 if !text.contains("--") => text.replace(' ', "\n  "),
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
