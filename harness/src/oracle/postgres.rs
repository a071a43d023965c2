//! A throwaway PostgreSQL cluster as a SQL oracle: each statement runs in an
//! unchanged copy of a small schema, inside `BEGIN TRANSACTION READ ONLY`, and
//! PostgreSQL reports whether it refused a write (SQLSTATE 25006), whether
//! the statement escaped the read-only transaction (`COMMIT; DROP …`), and
//! whether a transaction id was assigned (something was written).
//!
//! The cluster lives in a temporary directory, listens on a unix socket in
//! that directory only (no TCP), and runs as an unprivileged user: as root,
//! the cluster is owned by and run as `nobody`. PostgreSQL's read-only check
//! has blind spots (see corpora/real-world/README.md): `ok` means "not
//! refused", never "safe".

use std::fmt;
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const NOBODY: u32 = 65_534;
const NOGROUP: u32 = 65_534;
const PORT: &str = "5439";
/// How long one statement may run before the oracle gives up on it.
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(20);

/// The schema every statement runs against: the tables, columns and
/// sequences that rbv's cases and generators name.
const PRELUDE: &str = "
CREATE TABLE users (id int PRIMARY KEY, status text, note text, name text, email text);
CREATE TABLE orders (id int PRIMARY KEY, status text, note text, user_id int, total numeric);
CREATE TABLE t (id int PRIMARY KEY, status text, note text, a int, b text);
CREATE TABLE accounts (id int PRIMARY KEY, status text, note text, balance numeric);
CREATE TABLE \"Audit Log\" (id int PRIMARY KEY, status text, note text);
CREATE SEQUENCE seq; CREATE SEQUENCE s; CREATE SEQUENCE users_id_seq; CREATE SEQUENCE t_id_seq;
CREATE SEQUENCE orders_id_seq; CREATE SEQUENCE accounts_id_seq;
INSERT INTO users VALUES (1, 'open', 'n', 'ann', 'ann@example.com');
INSERT INTO orders VALUES (1, 'open', 'n', 1, 10);
INSERT INTO t VALUES (1, 'open', 'n', 1, 'x');
";

#[derive(Debug)]
pub enum OracleError {
    /// No PostgreSQL server binaries on this machine.
    NoServer(String),
    /// The cluster could not be created or started.
    Setup(String),
    /// One statement could not be judged (timeout, psql failure).
    Judge(String),
}

impl fmt::Display for OracleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OracleError::NoServer(m) => write!(f, "no PostgreSQL server binaries: {m}"),
            OracleError::Setup(m) => write!(f, "PostgreSQL oracle setup failed: {m}"),
            OracleError::Judge(m) => write!(f, "PostgreSQL could not judge the statement: {m}"),
        }
    }
}

impl std::error::Error for OracleError {}

/// What PostgreSQL said about one statement.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PgReading {
    /// `ok`, `readonly_violation`, `syntax_error` or `other_error`.
    pub label: &'static str,
    /// The SQLSTATE of the first error, `00000` when none.
    pub sqlstate: String,
    /// The statement ended the read-only transaction.
    pub escaped_readonly_txn: bool,
    /// A transaction id was assigned: something was written.
    pub xid_assigned: bool,
}

impl PgReading {
    /// PostgreSQL saw a write or an effect: refused it as one, or saw the
    /// transaction escape or an xid assigned.
    pub fn confirms_write(&self) -> bool {
        self.label == "readonly_violation" || self.escaped_readonly_txn || self.xid_assigned
    }

    /// One line for a finding: does PostgreSQL confirm it?
    pub fn describe(&self) -> String {
        if self.confirms_write() {
            let why = if self.label == "readonly_violation" {
                "refused it inside a read-only transaction (SQLSTATE 25006)"
            } else if self.escaped_readonly_txn {
                "saw it escape the read-only transaction"
            } else {
                "assigned a transaction id (it wrote)"
            };
            format!("PostgreSQL confirms a write: it {why}")
        } else {
            format!(
                "PostgreSQL does not confirm a write ({}, SQLSTATE {}); it may be a blind spot of its read-only check",
                self.label, self.sqlstate
            )
        }
    }
}

/// Where the server binaries are: `$RBV_PG_BIN`, else the newest
/// `/usr/lib/postgresql/*/bin` holding initdb, pg_ctl, postgres and psql.
pub fn find_binaries() -> Result<PathBuf, OracleError> {
    let complete = |dir: &Path| {
        ["initdb", "pg_ctl", "postgres", "psql"]
            .iter()
            .all(|b| dir.join(b).is_file())
    };
    if let Some(dir) = std::env::var_os("RBV_PG_BIN").map(PathBuf::from) {
        return if complete(&dir) {
            Ok(dir)
        } else {
            Err(OracleError::NoServer(format!(
                "RBV_PG_BIN={} lacks initdb/pg_ctl/postgres/psql",
                dir.display()
            )))
        };
    }
    let mut candidates: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .map_err(|e| OracleError::NoServer(format!("/usr/lib/postgresql: {e}")))?
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            Some((version, e.path().join("bin")))
        })
        .filter(|(_, dir)| complete(dir))
        .collect();
    candidates.sort();
    candidates
        .pop()
        .map(|(_, dir)| dir)
        .ok_or_else(|| OracleError::NoServer("none under /usr/lib/postgresql".into()))
}

/// A running throwaway cluster; stopped and deleted on drop.
pub struct Cluster {
    bin: PathBuf,
    root: tempfile::TempDir,
    as_nobody: bool,
    next_db: AtomicU64,
    current: Mutex<Option<String>>,
}

impl Cluster {
    pub fn start() -> Result<Cluster, OracleError> {
        let bin = find_binaries()?;
        let root = tempfile::Builder::new()
            .prefix("rbv-pg-")
            .tempdir()
            .map_err(|e| OracleError::Setup(format!("temp dir: {e}")))?;
        let as_nobody = fs::metadata("/proc/self")
            .map(|m| m.uid() == 0)
            .unwrap_or(false);
        if as_nobody {
            std::os::unix::fs::chown(root.path(), Some(NOBODY), Some(NOGROUP))
                .map_err(|e| OracleError::Setup(format!("chown to nobody: {e}")))?;
        }
        let cluster = Cluster {
            bin,
            root,
            as_nobody,
            next_db: AtomicU64::new(0),
            current: Mutex::new(None),
        };
        let data = cluster.path("data");
        let out = cluster.run(
            "initdb",
            &[
                "-D",
                &data,
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ],
            None,
        )?;
        expect_success("initdb", &out)?;
        let options = format!(
            "-k {} -c listen_addresses= -p {PORT} -c fsync=off -c full_page_writes=off",
            cluster.path("")
        );
        let out = cluster.run(
            "pg_ctl",
            &[
                "-D",
                &data,
                "-o",
                &options,
                "-w",
                "-t",
                "60",
                "-l",
                &cluster.path("server.log"),
                "start",
            ],
            None,
        )?;
        if !out.status.success() {
            let log =
                fs::read_to_string(cluster.root.path().join("server.log")).unwrap_or_default();
            return Err(OracleError::Setup(format!(
                "pg_ctl start: {}\n{log}",
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        let prelude = format!("CREATE DATABASE rbv_template;\n\\c rbv_template\n{PRELUDE}");
        let out = cluster.psql("postgres", &prelude)?;
        expect_success("prelude", &out)?;
        if String::from_utf8_lossy(&out.stderr).contains("ERROR") {
            return Err(OracleError::Setup(format!(
                "prelude: {}",
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        Ok(cluster)
    }

    fn path(&self, name: &str) -> String {
        self.root.path().join(name).to_string_lossy().into_owned()
    }

    fn run(
        &self,
        program: &str,
        args: &[&str],
        stdin: Option<&str>,
    ) -> Result<Output, OracleError> {
        let mut cmd = Command::new(self.bin.join(program));
        cmd.args(args)
            .current_dir(self.root.path())
            .env("LC_ALL", "C");
        cmd.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        if self.as_nobody {
            cmd.uid(NOBODY).gid(NOGROUP);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| OracleError::Setup(format!("{program}: {e}")))?;
        if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
            // psql reads the whole script; a statement that never ends is
            // bounded by statement_timeout and by the wait below.
            let _ = pipe.write_all(text.as_bytes());
        }
        let mut stdout = child.stdout.take().expect("piped");
        let mut stderr = child.stderr.take().expect("piped");
        let out_thread = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stdout.read_to_end(&mut buf);
            buf
        });
        let err_thread = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stderr.read_to_end(&mut buf);
            buf
        });
        let deadline = Instant::now() + STATEMENT_TIMEOUT * 3;
        let status = loop {
            if let Some(status) = child
                .try_wait()
                .map_err(|e| OracleError::Judge(e.to_string()))?
            {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err(OracleError::Judge(format!(
                    "{program} did not finish within {} s",
                    (STATEMENT_TIMEOUT * 3).as_secs_f64()
                )));
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        Ok(Output {
            status,
            stdout: out_thread.join().unwrap_or_default(),
            stderr: err_thread.join().unwrap_or_default(),
        })
    }

    fn psql(&self, database: &str, script: &str) -> Result<Output, OracleError> {
        let host = self.path("");
        self.run(
            "psql",
            &[
                "-X", "-q", "-A", "-t", "-h", &host, "-p", PORT, "-U", "postgres", "-d", database,
                "-f", "-",
            ],
            Some(script),
        )
    }

    /// Runs `sql` in a fresh copy of the schema, inside a read-only
    /// transaction, and reports what PostgreSQL did.
    pub fn judge(&self, sql: &str) -> Result<PgReading, OracleError> {
        // psql would read a backslash outside quotes as a meta-command
        // (`\\! cmd` runs a shell): such statements are not judged at all.
        if sql.contains('\\') {
            return Err(OracleError::Judge(
                "the statement holds a backslash, which psql could run as a meta-command".into(),
            ));
        }
        let db = self.clean_database()?;
        let timeout_ms = STATEMENT_TIMEOUT.as_millis();
        let script = format!(
            "\\set VERBOSITY sqlstate\nSET statement_timeout = {timeout_ms};\nBEGIN TRANSACTION READ ONLY;\nSELECT 1 AS rbv_begin;\n{sql}\n;\n\\echo rbv-after\nSELECT 'ro=' || current_setting('transaction_read_only'), 'xid=' || coalesce(txid_current_if_assigned()::text, '');\nROLLBACK;\n"
        );
        let out = self.psql(&db, &script)?;
        let verdict = parse(
            &String::from_utf8_lossy(&out.stdout),
            &String::from_utf8_lossy(&out.stderr),
        );
        if verdict.escaped_readonly_txn || verdict.xid_assigned {
            // Whatever it did may have stayed: the next statement gets a new copy.
            *self.current.lock().unwrap_or_else(|e| e.into_inner()) = None;
            let _ = self.psql(
                "postgres",
                &format!("DROP DATABASE IF EXISTS {db} WITH (FORCE);"),
            );
        }
        Ok(verdict)
    }

    /// A database that no statement has changed: the last one, unless a
    /// statement escaped its read-only transaction there, else a new copy of
    /// the template (copies are slow; most statements change nothing).
    fn clean_database(&self) -> Result<String, OracleError> {
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(db) = current.as_ref() {
            return Ok(db.clone());
        }
        let db = format!("j{}", self.next_db.fetch_add(1, Ordering::Relaxed));
        let setup = self.psql(
            "postgres",
            &format!("CREATE DATABASE {db} TEMPLATE rbv_template;"),
        )?;
        expect_success("create database", &setup)?;
        *current = Some(db.clone());
        Ok(db)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.path("data");
        let _ = self.run(
            "pg_ctl",
            &["-D", &data, "-m", "immediate", "-w", "stop"],
            None,
        );
    }
}

fn expect_success(what: &str, out: &Output) -> Result<(), OracleError> {
    if out.status.success() {
        Ok(())
    } else {
        Err(OracleError::Setup(format!(
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// Reads psql's output: the first `ERROR:  XXXXX` is the statement's
/// SQLSTATE; the line after `rbv-after` tells whether the transaction is
/// still read-only and whether an xid was assigned.
fn parse(stdout: &str, stderr: &str) -> PgReading {
    let sqlstate = stderr
        .lines()
        .filter_map(|l| l.split("ERROR:").nth(1))
        .map(|rest| rest.trim().chars().take(5).collect::<String>())
        .find(|s| s.len() == 5)
        .unwrap_or_else(|| "00000".to_owned());
    let after = stdout
        .lines()
        .skip_while(|l| *l != "rbv-after")
        .nth(1)
        .unwrap_or("");
    // An aborted transaction (the statement failed) answers 25P02 to the
    // probe: then nothing escaped and nothing was committed.
    let escaped = after.contains("ro=off");
    let xid = after
        .split('|')
        .find_map(|p| p.strip_prefix("xid="))
        .is_some_and(|x| !x.trim().is_empty());
    let label = match sqlstate.as_str() {
        "00000" => "ok",
        "25006" => "readonly_violation",
        "42601" => "syntax_error",
        _ => "other_error",
    };
    PgReading {
        label,
        sqlstate,
        escaped_readonly_txn: escaped,
        xid_assigned: xid,
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn psql_output_is_read() {
        let v = parse(
            "1\n",
            "psql:<stdin>:5: ERROR:  25006\npsql:<stdin>:8: ERROR:  25P02\n",
        );
        assert_eq!(
            (v.label, v.sqlstate.as_str(), v.confirms_write()),
            ("readonly_violation", "25006", true)
        );
        let v = parse("1\nrbv-after\nro=off|xid=\n", "");
        assert!(v.escaped_readonly_txn && v.confirms_write() && v.label == "ok");
        let v = parse("1\nrbv-after\nro=on|xid=\n", "");
        assert!(!v.confirms_write());
        let v = parse("rbv-after\nro=on|xid=742\n", "");
        assert!(v.xid_assigned);
        assert_eq!(parse("", "ERROR:  42601").label, "syntax_error");
    }
}
