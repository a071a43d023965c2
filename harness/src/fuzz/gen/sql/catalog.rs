//! PostgreSQL statement kinds and functions as the reference's SQL catalogue
//! (`reference/src/classify/sql/{walk,catalog}.rs`) sorts them, so that the
//! generator reaches every kind the inspector tells apart: session and
//! transaction control on their own, maintenance, privileges, COPY in every
//! direction, cursors, and every family of side-effecting functions.

use arbitrary::{Result, Unstructured};

/// Control and housekeeping statements that change nothing another
/// statement depends on (RBV-SQL-015): auto, alone.
pub(super) const HOUSEKEEPING: &[&str] = &[
    "BEGIN",
    "BEGIN WORK",
    "START TRANSACTION ISOLATION LEVEL SERIALIZABLE",
    "BEGIN READ ONLY",
    "SAVEPOINT s1",
    "RELEASE SAVEPOINT s1",
    "SET TRANSACTION READ ONLY",
    "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
    "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
    "SET statement_timeout = '5s'",
    "SET LOCAL work_mem = '64MB'",
    "SET application_name = 'agent'",
    "SET TIME ZONE 'UTC'",
    "SET default_transaction_read_only = on",
    "RESET statement_timeout",
    "SHOW search_path",
    "SHOW ALL",
    "PREPARE q AS SELECT 1",
    "DEALLOCATE q",
    "DEALLOCATE ALL",
    "DISCARD PLANS",
    "DISCARD SEQUENCES",
    "DECLARE c CURSOR FOR SELECT id FROM users",
    "FETCH 10 FROM c",
    "CLOSE c",
    "UNLISTEN jobs",
    "EXPLAIN DELETE FROM users",
    "VALUES (1, 'a')",
    "TABLE users",
];

/// Control statements that escalate on their own (RBV-SQL-015): they end
/// the transaction, change the role, path, read-only mode or lexing of what
/// follows, or outlive the session.
pub(super) const CONTROL_ESCALATE: &[&str] = &[
    "COMMIT",
    "COMMIT AND CHAIN",
    "END",
    "ROLLBACK",
    "ABORT",
    "ROLLBACK TO SAVEPOINT s1",
    "BEGIN READ WRITE",
    "SET TRANSACTION READ WRITE",
    "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
    "SET ROLE postgres",
    "SET LOCAL ROLE admin",
    "RESET ROLE",
    "SET SESSION AUTHORIZATION DEFAULT",
    "RESET SESSION AUTHORIZATION",
    "SET search_path = evil, public",
    "SET default_transaction_read_only = off",
    "SET session_replication_role = replica",
    "SET standard_conforming_strings = off",
    "SET client_encoding = 'SJIS'",
    "SET myapp.tenant = '1'",
    "RESET ALL",
    "DISCARD ALL",
    "DISCARD TEMP",
    "PREPARE TRANSACTION 'tx1'",
    "COMMIT PREPARED 'tx1'",
    "ROLLBACK PREPARED 'tx1'",
    "EXECUTE unseen(1)",
];

/// The other statement kinds the inspector escalates, one or more each.
pub(super) const STATEMENTS_ESCALATE: &[&str] = &[
    "NOTIFY jobs, 'x'",
    "LOCK TABLE users IN ACCESS EXCLUSIVE MODE",
    "ANALYZE users",
    "VACUUM users",
    "CHECKPOINT",
    "CLUSTER users USING users_pkey",
    "REINDEX TABLE users",
    "LOAD 'auto_explain'",
    "CALL purge_users()",
    "GRANT SELECT ON users TO PUBLIC",
    "REVOKE ALL ON users FROM app",
    "CREATE ROLE intruder SUPERUSER",
    "ALTER ROLE app SUPERUSER",
    "CREATE TABLE t2 (a int)",
    "ALTER TABLE users ADD COLUMN x int",
    "DROP VIEW report",
    "COMMENT ON TABLE users IS 'x'",
    "REFRESH MATERIALIZED VIEW report",
    "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
    "COPY users TO '/tmp/users.csv'",
    "COPY users TO PROGRAM 'id'",
    "COPY users FROM STDIN",
    "COPY users FROM '/etc/passwd'",
    "MERGE INTO users u USING staged s ON u.id = s.id WHEN MATCHED THEN DELETE",
    "INSERT INTO users (id) VALUES (1)",
    "UPDATE users SET admin = true",
    "DELETE FROM users",
    "TRUNCATE users",
    "DECLARE c CURSOR FOR SELECT nextval('s')",
    "PREPARE p AS DELETE FROM users; EXECUTE p",
];

/// Resource holders (RBV-SQL-014): soft-ack. Short sleeps, so that the
/// PostgreSQL oracle does not wait on them.
pub(super) const HOLDERS: &[&str] = &[
    "SELECT pg_sleep(0.01)",
    "SELECT pg_sleep_for('10 milliseconds')",
    "SELECT pg_sleep_until(now())",
    "LISTEN jobs",
    "DECLARE c CURSOR WITH HOLD FOR SELECT id FROM users",
];

/// A function of every family with an effect in the catalogue, and a call
/// of a user-defined function (unknown: escalates under the allow-list).
pub(super) const EFFECT_FUNCTIONS: &[&str] = &[
    "nextval",
    "setval",
    "txid_current",
    "pg_current_xact_id",
    "set_config",
    "pg_notify",
    "pg_terminate_backend",
    "pg_cancel_backend",
    "pg_reload_conf",
    "pg_rotate_logfile",
    "pg_switch_wal",
    "pg_create_restore_point",
    "pg_log_backend_memory_contexts",
    "pg_logical_emit_message",
    "pg_drop_replication_slot",
    "lo_import",
    "lo_export",
    "lo_unlink",
    "lowrite",
    "lo_creat",
    "lo_from_bytea",
    "pg_read_file",
    "pg_read_binary_file",
    "pg_file_write",
    "query_to_xml",
    "ts_stat",
    "pg_advisory_lock",
    "pg_try_advisory_xact_lock",
    "dblink",
    "dblink_exec",
    "pg_stat_reset",
    "pg_stat_statements_reset",
    "pg_create_logical_replication_slot",
    "pg_copy_physical_replication_slot",
    "pg_replication_origin_create",
    "my_func",
    "public.audit_touch",
];

/// A call of a function with an effect, in a place a read-only mindset
/// does not look: the select list, WHERE, FROM, a subquery, a CTE.
pub(super) fn effect_call(u: &mut Unstructured, table: &str) -> Result<String> {
    let call = effect_function(u)?;
    Ok(match u.int_in_range(0..=4)? {
        0 => format!("SELECT {call}"),
        1 => format!("SELECT id FROM {table} WHERE {call} IS NOT NULL"),
        2 => format!("SELECT * FROM {call} AS r"),
        3 => format!("SELECT * FROM (SELECT {call} AS v) q"),
        _ => format!("WITH w AS (SELECT {call} AS v) SELECT * FROM w"),
    })
}

/// One call of a function with an effect, with arguments of some shape:
/// the core the grammar forms hide in expressions and table factors.
pub(super) fn effect_function(u: &mut Unstructured) -> Result<String> {
    let f = *u.choose(EFFECT_FUNCTIONS)?;
    let args = *u.choose(&["()", "(1)", "('x')", "('x', 'y')", "(1, 2)"])?;
    Ok(format!("{f}{args}"))
}
