//! MySQL and SQLite: each dialect's own bypasses (text its server runs that
//! another dialect reads as a comment or does not have) and their harmless
//! neighbours, and dialect names no client reads.

use super::{Labeled, Truth};
use arbitrary::{Result, Unstructured};
use rbv_protocol::Band;

/// A write MySQL and SQLite both run, to hide or to show (PostgreSQL
/// runs each too).
pub(super) fn common_write(u: &mut Unstructured, table: &str) -> Result<String> {
    Ok(match u.int_in_range(0..=4)? {
        0 => format!("DROP TABLE {table}"),
        1 => format!("DELETE FROM {table}"),
        2 => format!("UPDATE {table} SET note = 'x'"),
        3 => format!("INSERT INTO {table} (id) VALUES (1)"),
        _ => format!("CREATE TABLE {table}_copy (id int)"),
    })
}

pub(super) const DANGER_WORDS: &[&str] = &[
    "DROP TABLE users",
    "; DELETE FROM users",
    "TRUNCATE t",
    "GRANT ALL",
];

/// MySQL's calls that read the server's files, run a program or take a
/// lock (RBV-SQL-012).
pub(super) const MYSQL_EFFECTS: &[&str] = &[
    "load_file('/etc/passwd')",
    "get_lock('x', 10)",
    "sys_exec('id')",
    "sys_eval('id')",
    "release_lock('x')",
];

/// SQLite's calls that load code or touch files (RBV-SQL-013).
pub(super) const SQLITE_EFFECTS: &[&str] = &[
    "load_extension('/tmp/e.so')",
    "writefile('/tmp/x', 'y')",
    "readfile('/etc/passwd')",
    "fts3_tokenizer('t', x'00')",
];

pub(super) fn mysql(u: &mut Unstructured, table: &str) -> Result<Labeled> {
    let word = *u.choose(DANGER_WORDS)?;
    if u.ratio(1, 3)? {
        let (text, family) = match u.int_in_range(0..=9)? {
            0 => (
                format!("SELECT id FROM {table} # {word}"),
                "mysql-hash-comment",
            ),
            1 => (
                format!("SELECT '# {word}' FROM {table}"),
                "mysql-hash-in-string",
            ),
            2 => (
                format!("SELECT 'it\\'s {word}' AS s"),
                "mysql-escaped-quote",
            ),
            3 => (
                format!("SELECT id FROM {table} /* {word} */"),
                "mysql-plain-comment",
            ),
            4 => (
                format!("SELECT /*+ MAX_EXECUTION_TIME(1000) */ id FROM {table}"),
                "mysql-optimizer-hint",
            ),
            5 => (
                format!("SELECT ifnull(id, 0), date_format(now(), '%Y') FROM {table}"),
                "mysql-builtins",
            ),
            6 => ("SHOW TABLES".to_owned(), "mysql-show"),
            7 => (format!("DESCRIBE {table}"), "mysql-describe"),
            8 => (
                "START TRANSACTION READ ONLY".to_owned(),
                "mysql-read-only-transaction",
            ),
            _ => {
                let hold = *u.choose(&["SELECT sleep(1)", "SELECT benchmark(10, md5('a'))"])?;
                return Ok(Labeled {
                    text: hold.to_owned(),
                    truth: Truth::Safe(Band::SoftAck),
                    families: vec!["mysql-resource-holder"],
                });
            }
        };
        return Ok(Labeled {
            text,
            truth: Truth::Safe(Band::Auto),
            families: vec![family],
        });
    }
    let write = common_write(u, table)?;
    let version = *u.choose(&["", "50000", "40101", "99999", "80013"])?;
    let (text, family) = match u.int_in_range(0..=14)? {
        0 => (
            format!("SELECT 1 /*!{version} ; {write} */"),
            "mysql-executable-comment",
        ),
        1 => (
            format!("/*!{version} {write} */"),
            "mysql-executable-comment",
        ),
        2 => (
            format!("SELECT * FROM {table} /*!{version} INTO OUTFILE '/tmp/o.txt' */"),
            "mysql-executable-comment-outfile",
        ),
        3 => (
            format!("SELECT 1 /*M!{version} ; {write} */"),
            "mariadb-executable-comment",
        ),
        4 => (
            format!("SELECT * FROM {table} INTO OUTFILE '/var/www/o.txt'"),
            "mysql-into-outfile",
        ),
        5 => (
            "SELECT 0x3c3f INTO DUMPFILE '/var/www/s.php'".to_owned(),
            "mysql-into-dumpfile",
        ),
        6 => (
            format!(
                "LOAD DATA {}INFILE '/etc/passwd' INTO TABLE {table}",
                u.choose(&["", "LOCAL "])?
            ),
            "mysql-load-data",
        ),
        7 => (
            format!(
                "HANDLER {table} {}",
                u.choose(&["OPEN", "READ FIRST", "READ NEXT"])?
            ),
            "mysql-handler",
        ),
        8 => (
            format!("SELECT {}", u.choose(MYSQL_EFFECTS)?),
            "mysql-effect-function",
        ),
        9 => (
            format!("SELECT 1 # note\n; {write}"),
            "mysql-hash-comment-newline",
        ),
        10 => (
            format!("SELECT 'a\\'; {write}; -- '"),
            "mysql-backslash-both-readings",
        ),
        11 => (
            format!("SELECT 1 /* a /* b */ ; {write}; -- */"),
            "unnested-block-comment",
        ),
        12 => (
            (*u.choose(&[
                "SET autocommit = 1",
                "SET sql_mode = ''",
                "LOCK TABLES users READ",
                "FLUSH TABLES",
                "COMMIT",
            ])?)
            .to_owned(),
            "mysql-control",
        ),
        _ => (write, "mysql-write"),
    };
    Ok(Labeled {
        text,
        truth: Truth::Dangerous,
        families: vec![family],
    })
}

pub(super) fn sqlite(u: &mut Unstructured, table: &str) -> Result<Labeled> {
    if u.ratio(1, 3)? {
        let (text, family) = match u.int_in_range(0..=5)? {
            0 => (
                format!(
                    "PRAGMA {}",
                    u.choose(&[
                        "table_info(users)",
                        "main.index_list('users')",
                        "user_version",
                        "journal_mode",
                        "integrity_check",
                        "quick_check",
                        "compile_options",
                        "database_list",
                        "foreign_key_list(users)"
                    ])?
                ),
                "sqlite-pragma-read",
            ),
            1 => (
                format!(
                    "SELECT name FROM pragma_table_info('{}')",
                    table.trim_matches('"')
                ),
                "sqlite-pragma-function",
            ),
            2 => (
                "SELECT name FROM sqlite_master WHERE type = 'table'".to_owned(),
                "sqlite-schema",
            ),
            3 => (
                format!("SELECT typeof(id), iif(id > 1, 'a', 'b'), datetime('now') FROM {table}"),
                "sqlite-builtins",
            ),
            4 => (
                "SELECT 'ATTACH DATABASE x AS y' AS s".to_owned(),
                "sqlite-attach-in-string",
            ),
            _ => (
                (*u.choose(&[
                    "BEGIN",
                    "BEGIN DEFERRED TRANSACTION",
                    "SAVEPOINT a",
                    "RELEASE a",
                ])?)
                .to_owned(),
                "sqlite-housekeeping",
            ),
        };
        return Ok(Labeled {
            text,
            truth: Truth::Safe(Band::Auto),
            families: vec![family],
        });
    }
    let (text, family) = match u.int_in_range(0..=8)? {
        0 => (
            format!("ATTACH {}'/tmp/x.db' AS x", u.choose(&["", "DATABASE "])?),
            "sqlite-attach",
        ),
        1 => ("DETACH DATABASE x".to_owned(), "sqlite-detach"),
        2 => (
            (*u.choose(&["VACUUM INTO '/tmp/copy.db'", "VACUUM"])?).to_owned(),
            "sqlite-vacuum",
        ),
        3 => (
            format!(
                "PRAGMA {}",
                u.choose(&[
                    "user_version = 7",
                    "writable_schema = 1",
                    "journal_mode = OFF",
                    "foreign_keys = OFF",
                    "cache_size(1000)",
                    "optimize",
                    "wal_checkpoint(TRUNCATE)",
                    "incremental_vacuum",
                    "shrink_memory"
                ])?
            ),
            "sqlite-pragma-write",
        ),
        4 => (
            format!("SELECT {}", u.choose(SQLITE_EFFECTS)?),
            "sqlite-effect-function",
        ),
        5 => (
            (*u.choose(&["BEGIN IMMEDIATE", "BEGIN EXCLUSIVE TRANSACTION"])?).to_owned(),
            "sqlite-write-lock",
        ),
        6 => {
            let write = common_write(u, table)?;
            (
                format!("SELECT 1 /* a /* b */ ; {write}; -- */"),
                "unnested-block-comment",
            )
        }
        7 => (
            format!(
                "SELECT 1; ATTACH DATABASE '/var/www/s.php' AS w; {}",
                common_write(u, "w.t")?
            ),
            "sqlite-attach-after-read",
        ),
        _ => (common_write(u, table)?, "sqlite-write"),
    };
    Ok(Labeled {
        text,
        truth: Truth::Dangerous,
        families: vec![family],
    })
}

/// A dialect name no client reads, or a known one misspelled.
pub(super) const UNKNOWN: &[&str] = &[
    "oracle",
    "mariadb",
    "postgres",
    "PostgreSQL",
    "MySQL",
    "SQLite",
    "tsql",
    "",
];
