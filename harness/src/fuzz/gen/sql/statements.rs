//! Statement kinds of sqlparser's grammar, one form or more each, in the
//! dialect that reads it, with the band the rules give it on its own:
//! every change to the schema, the server, stored code or privileges
//! escalates (RBV-SQL-002), and so does other dialects' syntax the wire's
//! dialects also read, whose effect nobody vouches for; a session form
//! escalates when it changes how later statements run or are read
//! (RBV-SQL-015); SHOW, FETCH and a transaction's opening are auto
//! (RBV-SQL-001, RBV-SQL-015). Several forms in one payload take the
//! highest band (RBV-SQL-003), so a read beside a change escalates.

use super::dialect::common_write;
use super::forms::{self, Formed};
use super::{catalog, Dialect, Labeled, SqlInput, Truth};
use arbitrary::{Result, Unstructured};
use rbv_protocol::Band;

/// A statement kind's form; `{t}` is a table.
pub(super) struct Form {
    pub production: &'static str,
    pub dialect: Dialect,
    pub text: &'static str,
    /// The family, which says which rule fixes the band.
    pub family: &'static str,
}

const CHANGE: &str = "statement-form";
const FOREIGN: &str = "other-dialect-statement-form";
const SESSION: &str = "session-form";
const READ: &str = "read-statement-form";
const OPENER: &str = "transaction-opener-form";

impl Form {
    /// Whether the rules make the form auto on its own.
    pub fn auto(&self) -> bool {
        matches!(self.family, READ | OPENER)
    }
}

const fn form(
    production: &'static str,
    dialect: Dialect,
    text: &'static str,
    family: &'static str,
) -> Form {
    Form {
        production,
        dialect,
        text,
        family,
    }
}

use Dialect::{Mysql as My, Postgresql as Pg, Sqlite as Lite};

pub(super) const FORMS: &[Form] = &[
    // Collations, operators and text-search configurations change how every
    // later comparison, index and search behaves.
    form(
        "Statement::AlterCollation",
        Pg,
        "ALTER COLLATION german REFRESH VERSION",
        CHANGE,
    ),
    form(
        "Statement::CreateCollation",
        Pg,
        "CREATE COLLATION german (provider = icu, locale = 'de-DE')",
        CHANGE,
    ),
    form(
        "Statement::AlterOperator",
        Pg,
        "ALTER OPERATOR = (text, text) OWNER TO bob",
        CHANGE,
    ),
    form(
        "Statement::CreateOperator",
        Pg,
        "CREATE OPERATOR + (LEFTARG = money, RIGHTARG = text, FUNCTION = cash_text_pl)",
        CHANGE,
    ),
    form(
        "Statement::DropOperator",
        Pg,
        "DROP OPERATOR + (money, text)",
        CHANGE,
    ),
    form(
        "Statement::AlterOperatorClass",
        Pg,
        "ALTER OPERATOR CLASS c USING btree RENAME TO d",
        CHANGE,
    ),
    form(
        "Statement::CreateOperatorClass",
        Pg,
        "CREATE OPERATOR CLASS c FOR TYPE int USING btree AS OPERATOR 1 <",
        CHANGE,
    ),
    form(
        "Statement::DropOperatorClass",
        Pg,
        "DROP OPERATOR CLASS c USING btree",
        CHANGE,
    ),
    form(
        "Statement::AlterOperatorFamily",
        Pg,
        "ALTER OPERATOR FAMILY f USING btree RENAME TO g",
        CHANGE,
    ),
    form(
        "Statement::CreateOperatorFamily",
        Pg,
        "CREATE OPERATOR FAMILY f USING btree",
        CHANGE,
    ),
    form(
        "Statement::DropOperatorFamily",
        Pg,
        "DROP OPERATOR FAMILY f USING btree",
        CHANGE,
    ),
    form(
        "Statement::AlterTextSearch",
        Pg,
        "ALTER TEXT SEARCH CONFIGURATION my_cfg OWNER TO bob",
        CHANGE,
    ),
    form(
        "Statement::CreateTextSearch",
        Pg,
        "CREATE TEXT SEARCH CONFIGURATION my_cfg (COPY = english)",
        CHANGE,
    ),
    // Schema objects.
    form(
        "Statement::AlterIndex",
        Pg,
        "ALTER INDEX {t}_pkey RENAME TO {t}_key",
        CHANGE,
    ),
    form(
        "Statement::AlterSchema",
        Pg,
        "ALTER SCHEMA public RENAME TO old",
        CHANGE,
    ),
    form(
        "Statement::CreateSchema",
        Pg,
        "CREATE SCHEMA staging",
        CHANGE,
    ),
    form(
        "Statement::AlterView",
        Pg,
        "ALTER VIEW v AS SELECT id FROM {t}",
        CHANGE,
    ),
    form(
        "Statement::AlterType",
        Pg,
        "ALTER TYPE mood ADD VALUE 'meh'",
        CHANGE,
    ),
    form(
        "Statement::CreateDomain",
        Pg,
        "CREATE DOMAIN posint AS integer CHECK (VALUE > 0)",
        CHANGE,
    ),
    form("Statement::DropDomain", Pg, "DROP DOMAIN posint", CHANGE),
    form(
        "Statement::CreateDatabase",
        Pg,
        "CREATE DATABASE scratch",
        CHANGE,
    ),
    form(
        "Statement::CreateAggregate",
        Pg,
        "CREATE AGGREGATE total (int) (SFUNC = int4pl, STYPE = int)",
        CHANGE,
    ),
    form(
        "Statement::CreateVirtualTable",
        Lite,
        "CREATE VIRTUAL TABLE notes USING fts5(body)",
        CHANGE,
    ),
    form(
        "Statement::RenameTable",
        My,
        "RENAME TABLE {t} TO {t}_old",
        CHANGE,
    ),
    // Row security, triggers and stored code that later statements run.
    form(
        "Statement::AlterPolicy",
        Pg,
        "ALTER POLICY p ON {t} USING (true)",
        CHANGE,
    ),
    form(
        "Statement::CreatePolicy",
        Pg,
        "CREATE POLICY p ON {t} USING (true)",
        CHANGE,
    ),
    form("Statement::DropPolicy", Pg, "DROP POLICY p ON {t}", CHANGE),
    form(
        "Statement::AlterTrigger",
        Pg,
        "ALTER TRIGGER tr ON {t} RENAME TO tr2",
        CHANGE,
    ),
    form(
        "Statement::DropTrigger",
        Pg,
        "DROP TRIGGER tr ON {t}",
        CHANGE,
    ),
    form(
        "Statement::AlterFunction",
        Pg,
        "ALTER FUNCTION f() OWNER TO bob",
        CHANGE,
    ),
    form("Statement::DropFunction", Pg, "DROP FUNCTION f", CHANGE),
    form(
        "Statement::CreateProcedure",
        Pg,
        "CREATE PROCEDURE p() AS BEGIN DELETE FROM {t}; END",
        CHANGE,
    ),
    form("Statement::DropProcedure", Pg, "DROP PROCEDURE p", CHANGE),
    // Extensions and foreign servers: code and connections the server adds.
    form(
        "Statement::CreateExtension",
        Pg,
        "CREATE EXTENSION IF NOT EXISTS dblink",
        CHANGE,
    ),
    form(
        "Statement::CreateExtension",
        Pg,
        "CREATE EXTENSION adminpack",
        CHANGE,
    ),
    form(
        "Statement::DropExtension",
        Pg,
        "DROP EXTENSION pgcrypto",
        CHANGE,
    ),
    form(
        "Statement::CreateForeignDataWrapper",
        Pg,
        "CREATE FOREIGN DATA WRAPPER w",
        CHANGE,
    ),
    form(
        "Statement::CreateForeignTable",
        Pg,
        "CREATE FOREIGN TABLE remote_{t} (id int) SERVER s",
        CHANGE,
    ),
    form(
        "Statement::CreateServer",
        Pg,
        "CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host 'db.evil.example')",
        CHANGE,
    ),
    form(
        "Statement::CreateUserMapping",
        Pg,
        "CREATE USER MAPPING FOR bob SERVER s OPTIONS (user 'bob', password 'x')",
        CHANGE,
    ),
    form(
        "Statement::CreateSecret",
        Pg,
        "CREATE SECRET s (TYPE s3, KEY_ID 'x')",
        CHANGE,
    ),
    // Roles and privileges.
    form(
        "Statement::AlterRole",
        Pg,
        "ALTER ROLE app WITH SUPERUSER",
        CHANGE,
    ),
    // PostgreSQL's ALTER USER is ALTER ROLE to sqlparser.
    form(
        "Statement::AlterRole",
        Pg,
        "ALTER USER bob WITH SUPERUSER",
        CHANGE,
    ),
    form("Statement::RevokeRole", Pg, "REVOKE admin FROM bob", CHANGE),
    // Messages to other sessions, the server's threads, a cursor that runs
    // a routine's query, a routine's own statements alone.
    form("Statement::NOTIFY", Pg, "NOTIFY jobs, 'run'", CHANGE),
    form("Statement::Kill", My, "KILL 42", CHANGE),
    form("Statement::Kill", My, "KILL QUERY 42", CHANGE),
    form("Statement::Open", My, "OPEN c", CHANGE),
    form("Statement::Raise", Pg, "RAISE NOTICE 'x'", CHANGE),
    form(
        "Statement::Unload",
        Pg,
        "UNLOAD ('SELECT * FROM {t}') TO 's3://bucket/x'",
        CHANGE,
    ),
    // Other dialects' syntax (T-SQL, Hive, Spark, Snowflake, BigQuery,
    // DuckDB) that sqlparser reads in the wire's dialects too.
    form(
        "Statement::AlterConnector",
        Pg,
        "ALTER CONNECTOR c SET URL 'http://x'",
        FOREIGN,
    ),
    form(
        "Statement::CreateConnector",
        Pg,
        "CREATE CONNECTOR c TYPE 'mysql' URL 'jdbc:mysql://x'",
        FOREIGN,
    ),
    form("Statement::DropConnector", Pg, "DROP CONNECTOR c", FOREIGN),
    form(
        "Statement::AlterUser",
        My,
        "ALTER USER bob SET PASSWORD = 'x'",
        FOREIGN,
    ),
    form("Statement::Deny", Pg, "DENY SELECT ON {t} TO bob", FOREIGN),
    form(
        "Statement::CreateWarehouse",
        Pg,
        "CREATE WAREHOUSE w",
        FOREIGN,
    ),
    form("Statement::DropSecret", Pg, "DROP SECRET s", FOREIGN),
    form("Statement::Cache", Pg, "CACHE TABLE {t}", FOREIGN),
    form("Statement::UNCache", Pg, "UNCACHE TABLE {t}", FOREIGN),
    form("Statement::Msck", Pg, "MSCK REPAIR TABLE {t}", FOREIGN),
    form(
        "Statement::Directory",
        Pg,
        "INSERT OVERWRITE LOCAL DIRECTORY '/tmp/x' SELECT * FROM {t}",
        FOREIGN,
    ),
    form(
        "Statement::ExportData",
        Pg,
        "EXPORT DATA OPTIONS (uri = 'gs://b/x*.csv', format = 'CSV') AS SELECT * FROM {t}",
        FOREIGN,
    ),
    form("Statement::Assert", Pg, "ASSERT 1 = 1 AS 'x'", FOREIGN),
    form(
        "Statement::Case",
        Pg,
        "CASE WHEN 1 = 1 THEN SELECT 1; END CASE",
        FOREIGN,
    ),
    form(
        "Statement::If",
        Pg,
        "IF 1 = 1 THEN SELECT 1; END IF",
        FOREIGN,
    ),
    form(
        "Statement::While",
        Pg,
        "WHILE 1 = 1 BEGIN SELECT 1; END",
        FOREIGN,
    ),
    form("Statement::Print", Pg, "PRINT 'x'", FOREIGN),
    form("Statement::RaisError", Pg, "RAISERROR('x', 16, 1)", FOREIGN),
    form("Statement::Return", Pg, "RETURN 1", FOREIGN),
    form("Statement::Throw", Pg, "THROW 50000, 'x', 1", FOREIGN),
    form(
        "Statement::WaitFor",
        Pg,
        "WAITFOR DELAY '00:00:05'",
        FOREIGN,
    ),
    // Session forms that change what later statements do or how they are
    // read: another database, another encoding, several settings at once,
    // a commit that ends LOCK TABLES.
    form("Statement::Use", My, "USE payroll", SESSION),
    form("Set::SetNamesDefault", My, "SET NAMES DEFAULT", SESSION),
    form("Set::SetNames", Pg, "SET NAMES 'UTF8'", SESSION),
    form(
        "Set::MultipleAssignments",
        My,
        "SET sql_mode = '', autocommit = 0",
        SESSION,
    ),
    form("Statement::UnlockTables", My, "UNLOCK TABLES", SESSION),
    // Reads.
    form("Statement::ShowCatalogs", My, "SHOW CATALOGS", READ),
    form("Statement::ShowCharset", My, "SHOW CHARSET", READ),
    form("Statement::ShowCollation", My, "SHOW COLLATION", READ),
    form("Statement::ShowColumns", My, "SHOW COLUMNS FROM {t}", READ),
    form("Statement::ShowCreate", My, "SHOW CREATE TABLE {t}", READ),
    form("Statement::ShowDatabases", My, "SHOW DATABASES", READ),
    form("Statement::ShowFunctions", My, "SHOW FUNCTIONS", READ),
    form("Statement::ShowProcessList", My, "SHOW PROCESSLIST", READ),
    form("Statement::ShowSchemas", My, "SHOW SCHEMAS", READ),
    form("Statement::ShowStatus", My, "SHOW STATUS", READ),
    form(
        "Statement::ShowVariables",
        My,
        "SHOW VARIABLES LIKE 'max%'",
        READ,
    ),
    form("Statement::ShowViews", My, "SHOW VIEWS", READ),
    form("Statement::Fetch", Pg, "FETCH NEXT FROM c", READ),
    form("Statement::Fetch", Pg, "FETCH 10 FROM c", READ),
    // A transaction's opening changes nothing another statement depends
    // on: T-SQL's `BEGIN TRAN`, and the TRY/CATCH openers sqlparser reads
    // in SQLite as a transaction's start.
    form("BeginTransactionKind::Tran", Pg, "BEGIN TRAN", OPENER),
    form("TransactionModifier::Try", Lite, "BEGIN TRY", OPENER),
    form("TransactionModifier::Catch", Lite, "BEGIN CATCH", OPENER),
];

/// sqlparser reads what follows CACHE TABLE as its query (Spark's
/// `CACHE TABLE t AS SELECT …`) up to the payload's end, so a statement
/// after it would make the whole payload unparseable: it goes last.
fn takes_the_rest(form: &Form) -> bool {
    form.production == "Statement::Cache"
}

/// Up to ten entries of `list` from `at` on, wrapping around.
fn window<'a, T>(u: &mut Unstructured, list: &[&'a T], at: usize) -> Result<Vec<&'a T>> {
    Ok((0..u.int_in_range(1..=10usize)?)
        .map(|i| list[(at + i) % list.len()])
        .collect())
}

/// The catalogue's PostgreSQL statement kinds (catalog.rs) in the same
/// windows: each list's band is its rule's (auto for housekeeping,
/// soft-ack for a resource holder, escalate for the rest), and a window
/// of one list takes that band.
pub(super) fn catalogued(u: &mut Unstructured) -> Result<Formed> {
    let (list, truth, family) = *u.choose(&[
        (
            catalog::HOUSEKEEPING,
            Truth::Safe(Band::Auto),
            "session-control-alone",
        ),
        (
            catalog::CONTROL_ESCALATE,
            Truth::Dangerous,
            "session-control-escalates",
        ),
        (
            catalog::STATEMENTS_ESCALATE,
            Truth::Dangerous,
            "statement-kind",
        ),
        (
            catalog::HOLDERS,
            Truth::Safe(Band::SoftAck),
            "resource-holder",
        ),
    ])?;
    let all: Vec<&&str> = list.iter().collect();
    let at = u.choose_index(all.len())?;
    let statements: Vec<&str> = window(u, &all, at)?.into_iter().copied().collect();
    let mut families = vec![family];
    if statements.len() > 1 {
        families.push("several-statement-forms");
    }
    Ok(Formed {
        input: SqlInput {
            dialect: forms::named(u, Dialect::Postgresql)?,
            labeled: Labeled {
                text: statements.join("; "),
                truth,
                families,
            },
        },
        claims: Vec::new(),
    })
}

/// One to ten forms of one dialect, the first drawn from every form (so
/// each is as likely) and the others the ones after it in the table, so
/// that a short seeded run draws every form; at times a write after them.
/// The payload's band is the highest of its statements'.
pub(super) fn input(u: &mut Unstructured) -> Result<Formed> {
    let first = u.choose(FORMS)?;
    let dialect = first.dialect;
    let same: Vec<&Form> = FORMS.iter().filter(|f| f.dialect == dialect).collect();
    let at = same
        .iter()
        .position(|f| std::ptr::eq(*f, first))
        .unwrap_or(0);
    let mut chosen = window(u, &same, at)?;
    if let Some(i) = chosen.iter().position(|f| takes_the_rest(f)) {
        let last = chosen.remove(i);
        chosen.retain(|f| !takes_the_rest(f));
        chosen.push(last);
    }
    let table = forms::table(u)?;
    let mut statements: Vec<String> = chosen
        .iter()
        .map(|f| f.text.replace("{t}", table))
        .collect();
    let mut families: Vec<&'static str> = Vec::new();
    for f in &chosen {
        if !families.contains(&f.family) {
            families.push(f.family);
        }
    }
    if chosen.len() > 1 {
        families.push("several-statement-forms");
    }
    let mut truth = if chosen.iter().all(|f| f.auto()) {
        Truth::Safe(Band::Auto)
    } else {
        Truth::Dangerous
    };
    if u.ratio(1, 4)? && !chosen.iter().any(|f| takes_the_rest(f)) {
        statements.push(common_write(u, table)?);
        families.push("write-after-statement-forms");
        truth = Truth::Dangerous;
    }
    let mut claims: Vec<&'static str> = chosen.iter().map(|f| f.production).collect();
    claims.dedup();
    Ok(Formed {
        input: SqlInput {
            dialect: forms::named(u, dialect)?,
            labeled: Labeled {
                text: statements.join("; "),
                truth,
                families,
            },
        },
        claims,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{claims_hold, reference_agrees};
    use super::*;

    fn drawn(n: u64) -> Vec<Formed> {
        super::super::tests::drawn(n, input)
    }

    #[test]
    fn every_form_parses_as_its_production_alone() {
        let wrong: Vec<String> = FORMS
            .iter()
            .filter_map(|f| {
                let text = f.text.replace("{t}", "users");
                let seen = crate::grammar::sql::productions(&text, f.dialect);
                (!seen.contains(f.production)).then(|| format!("{text}: {seen:?}"))
            })
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn every_input_holds_its_claims_and_its_band_is_the_highest() {
        let inputs = drawn(4_000);
        let mut reached = std::collections::BTreeSet::new();
        for formed in &inputs {
            claims_hold(formed);
            reached.extend(formed.claims.iter().copied());
            let text = &formed.input.labeled.text;
            let labeled = &formed.input.labeled;
            // Auto only when every statement is a read or an opening.
            let auto = labeled
                .families
                .iter()
                .all(|f| [READ, OPENER, "several-statement-forms"].contains(f));
            assert_eq!(labeled.truth == Truth::Safe(Band::Auto), auto, "{text}");
        }
        for f in FORMS {
            assert!(
                reached.contains(f.production),
                "{} never drawn",
                f.production
            );
        }
    }

    #[test]
    fn the_reference_agrees_with_every_form() {
        reference_agrees(drawn(1_500).iter());
    }

    #[test]
    fn the_reference_agrees_with_every_window_of_the_catalogue() {
        reference_agrees(super::super::tests::drawn(1_500, catalogued).iter());
    }
}
