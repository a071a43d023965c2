//! Each dialect read as its own server reads it, and the harmless
//! neighbours of each dialect's bypasses.

use super::*;
use crate::projection::project;
use rbv_protocol::Band;

fn band(sql: &str, dialect: Option<&str>) -> (Band, Vec<String>) {
    let i = inspect_named(sql, dialect, None);
    (project(i.reversibility, i.scope, i.trust), i.reasons)
}

#[track_caller]
fn all(dialect: Option<&str>, expected: Band, statements: &[&str]) {
    let wrong: Vec<_> = statements
        .iter()
        .map(|sql| (sql, band(sql, dialect)))
        .filter(|(_, (b, _))| *b != expected)
        .map(|(sql, (b, why))| format!("{sql}  ->  {b}: {why:?}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "expected {expected} under {dialect:?}:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn mysql_executable_comments_run() {
    all(
        Some("mysql"),
        Band::Escalate,
        &[
            "SELECT 1 /*! ; DROP TABLE users */",
            "SELECT 1 /*!50000 ; DROP TABLE users */",
            "SELECT 1 /*!99999 ; DELETE FROM users */",
            "/*!40101 DROP TABLE users */",
            "SELECT * FROM users /*!50000 INTO OUTFILE '/tmp/u.txt' */",
            "SELECT 1 /*M!100100 ; DROP TABLE users */",
            "SELECT load_file('/etc/passwd')",
            "SELECT * FROM users INTO OUTFILE '/var/www/u.txt'",
            "SELECT 0x3c3f706870 INTO DUMPFILE '/var/www/s.php'",
            "LOAD DATA INFILE '/etc/passwd' INTO TABLE t",
            "LOAD DATA LOCAL INFILE 'rows.csv' INTO TABLE t",
            "HANDLER users OPEN",
            "HANDLER users READ FIRST",
            "SELECT 1 /* a /* b */ ; DROP TABLE t; -- */",
            "SELECT get_lock('deploy', 10)",
            "SELECT authentication_string FROM mysql.user UNION SELECT sys_exec('id')",
            "USE prod",
        ],
    );
}

#[test]
fn mysql_harmless_neighbours_stay_auto() {
    all(
        Some("mysql"),
        Band::Auto,
        &[
            "SELECT 1 # DROP TABLE users",
            "SELECT id FROM users # ; DELETE FROM users",
            "SELECT '# not a comment' FROM users",
            "SELECT 'it\\'s; DROP TABLE users' AS s",
            "SELECT 1 /* DROP TABLE users */",
            "SELECT /*+ MAX_EXECUTION_TIME(1000) */ id FROM users",
            "SELECT ifnull(a, 0), date_format(now(), '%Y') FROM t",
            "SHOW TABLES",
            "SELECT 1 -- DROP TABLE users",
            "SELECT 5--1",
        ],
    );
}

#[test]
fn a_backslash_is_read_both_ways_in_mysql() {
    // MySQL escapes by default; with NO_BACKSLASH_ESCAPES `'a\'` ends at
    // the second quote and the rest is code.
    all(
        Some("mysql"),
        Band::Escalate,
        &["SELECT 'a\\'; DROP TABLE users; -- '"],
    );
}

#[test]
fn postgres_reads_mysql_spellings_as_its_own() {
    all(
        None,
        Band::Auto,
        &[
            "SELECT 1 /*! ; DROP TABLE users */",
            "SELECT 1 /*!50000 , sys_exec('id') */",
            "SELECT '# not a comment' FROM users",
            "SELECT 5 # 3",
            "SELECT 1 /* a /* b */ ; DROP TABLE t; -- */",
        ],
    );
    all(
        Some("postgresql"),
        Band::Auto,
        &["SELECT 1 /*! ; DROP TABLE users */"],
    );
    all(None, Band::Escalate, &["SELECT 1 # DROP TABLE users"]);
}

#[test]
fn sqlite_reads_and_writes() {
    all(
        Some("sqlite"),
        Band::Auto,
        &[
            "PRAGMA table_info(users)",
            "PRAGMA main.index_list('users')",
            "PRAGMA user_version",
            "PRAGMA journal_mode",
            "PRAGMA integrity_check",
            "SELECT * FROM pragma_table_info('users')",
            "SELECT typeof(x), iif(a > 1, 'b', 'c'), datetime('now') FROM t",
            "SELECT 'ATTACH DATABASE x' AS s",
        ],
    );
    all(
        Some("sqlite"),
        Band::Escalate,
        &[
            "PRAGMA user_version = 7",
            "PRAGMA writable_schema = 1",
            "PRAGMA journal_mode = 'OFF'",
            "PRAGMA foreign_keys = OFF",
            "PRAGMA optimize",
            "PRAGMA wal_checkpoint(TRUNCATE)",
            "PRAGMA cache_size(1000)",
            "ATTACH DATABASE '/tmp/x.db' AS x",
            "ATTACH '/home/u/.config/secrets.db' AS s",
            "DETACH DATABASE x",
            "VACUUM INTO '/tmp/copy.db'",
            "VACUUM",
            "SELECT load_extension('/tmp/evil.so')",
            "SELECT writefile('/tmp/x', 'y')",
            "SELECT 1 /* a /* b */ ; DROP TABLE t; -- */",
            "SELECT pg_backend_pid()",
        ],
    );
}

#[test]
fn resource_holders_are_soft_ack() {
    all(
        None,
        Band::SoftAck,
        &[
            "SELECT pg_sleep(3600)",
            "SELECT pg_sleep_for('1 hour')",
            "LISTEN jobs",
            "DECLARE c CURSOR WITH HOLD FOR SELECT * FROM t",
        ],
    );
    all(
        Some("mysql"),
        Band::SoftAck,
        &[
            "SELECT sleep(3600)",
            "SELECT benchmark(100000000, md5('a'))",
        ],
    );
    all(
        None,
        Band::Auto,
        &[
            "DECLARE c CURSOR FOR SELECT * FROM t",
            "DECLARE c CURSOR WITHOUT HOLD FOR SELECT * FROM t",
            "UNLISTEN jobs",
        ],
    );
    all(
        None,
        Band::Escalate,
        &["LOCK TABLE t", "SELECT pg_sleep(10); DELETE FROM t"],
    );
}

#[test]
fn an_unknown_dialect_fails_safe() {
    for name in ["oracle", "PostgreSQL", "postgres", "MySQL", "mariadb", ""] {
        let (b, why) = band("SELECT 1", Some(name));
        assert_eq!(b, Band::Escalate, "{name}: {why:?}");
    }
}

#[test]
fn the_dialect_blind_mutant_reads_everything_as_postgres() {
    let m = Some(Mutant::DialectBlindSql);
    let blind = |sql, d| {
        let i = inspect_named(sql, Some(d), m);
        project(i.reversibility, i.scope, i.trust)
    };
    assert_eq!(
        blind("SELECT 1 /*! ; DROP TABLE users */", "mysql"),
        Band::Auto
    );
    assert_eq!(blind("SELECT 1", "oracle"), Band::Auto);
    assert_eq!(blind("PRAGMA table_info(t)", "sqlite"), Band::Escalate);
}

#[test]
fn sqlite_write_locks_escalate() {
    all(
        Some("sqlite"),
        Band::Auto,
        &["BEGIN", "BEGIN DEFERRED TRANSACTION"],
    );
    all(
        Some("sqlite"),
        Band::Escalate,
        &["BEGIN IMMEDIATE", "BEGIN EXCLUSIVE TRANSACTION"],
    );
}
