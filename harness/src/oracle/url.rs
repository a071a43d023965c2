//! URL parsers as an oracle for the loopback carve-out: the WHATWG URL
//! Standard (Node.js's `URL`), Python's `urllib.parse` and urllib3's
//! `parse_url` (requests), libcurl's URL API, and Go's `net/url` — the
//! parsers that agents' fetch tools use. Each runs as a long-lived child
//! (the reader programs in `oracle/readers/`, embedded here) that answers
//! one JSON line per URL with the host it reads and, when that host is an
//! address literal, the address its client connects to.
//!
//! A carve-out is confirmed wrong when some parser reads a host that is not
//! loopback: the tool that uses that parser fetches elsewhere, and the
//! answer enters the run as trusted. A parser that is not installed is left
//! out and named in [`Parsers::missing`]; nothing here needs the network.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::IpAddr;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

const WHATWG: &str = include_str!("readers/whatwg.mjs");
const PYTHON: &str = include_str!("readers/python.py");
const GO: &str = include_str!("readers/gonet.go");

/// What one parser read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reading {
    /// The parser accepted the URL.
    pub ok: bool,
    /// The host as the parser returns it (an IPv6 literal without brackets).
    pub host: Option<String>,
    /// The address the client connects to, when the host is an address
    /// literal to that client; `None` for a name (resolved later).
    pub addr: Option<String>,
    pub error: Option<String>,
}

impl Reading {
    /// Whether the host this parser read is loopback: an address in
    /// 127.0.0.0/8, `::1` or IPv4-mapped 127.x; a name `localhost` or under
    /// `.localhost` (one trailing dot allowed, any case). `None` when the
    /// parser read no host (it refused the URL, or found no authority): it
    /// fetches nothing.
    pub fn loopback(&self) -> Option<bool> {
        if !self.ok {
            return None;
        }
        if let Some(addr) = &self.addr {
            let addr = addr.split('%').next().unwrap_or(addr);
            return Some(match addr.parse::<IpAddr>() {
                Ok(IpAddr::V4(ip)) => ip.is_loopback(),
                Ok(IpAddr::V6(ip)) => {
                    ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
                }
                Err(_) => false,
            });
        }
        let name = self.host.as_deref()?.to_ascii_lowercase();
        let name = name.strip_suffix('.').unwrap_or(&name);
        Some(
            name == "localhost"
                || name
                    .strip_suffix(".localhost")
                    .is_some_and(|l| !l.is_empty() && !l.ends_with('.')),
        )
    }
}

/// Every parser's reading of one URL.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Readings(pub BTreeMap<String, Reading>);

impl Readings {
    /// The parsers that read a host that is not loopback.
    pub fn not_loopback(&self) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(_, r)| r.loopback() == Some(false))
            .map(|(n, _)| n.as_str())
            .collect()
    }

    /// Every parser read a host, and every host is loopback.
    pub fn all_loopback(&self) -> bool {
        !self.0.is_empty() && self.0.values().all(|r| r.loopback() == Some(true))
    }

    /// Whether the parsers confirm that carving out this URL (`carved`:
    /// the implementation answered auto for a GET) is wrong, or that
    /// refusing the carve-out is needless: `Some(reason)` when they do.
    pub fn confirms(&self, carved: bool) -> Option<String> {
        let others = self.not_loopback();
        if carved && !others.is_empty() {
            let hosts: Vec<String> = others
                .iter()
                .map(|n| format!("{n} reads `{}`", self.0[*n].host.as_deref().unwrap_or("")))
                .collect();
            return Some(format!("carved out as loopback, but {}", hosts.join(", ")));
        }
        if !carved && self.all_loopback() {
            let names: Vec<&str> = self.0.keys().map(String::as_str).collect();
            return Some(format!(
                "not carved out, although every parser ({}) reads a loopback host",
                names.join(", ")
            ));
        }
        None
    }

    /// One line for a finding.
    pub fn describe(&self, carved: bool) -> String {
        match self.confirms(carved) {
            Some(why) => format!("the URL parsers confirm it: {why}"),
            None => {
                let readings: Vec<String> = self
                    .0
                    .iter()
                    .map(|(n, r)| match (&r.host, r.ok) {
                        (Some(h), true) => format!("{n} `{h}`"),
                        (None, true) => format!("{n} no host"),
                        _ => format!("{n} refuses it"),
                    })
                    .collect();
                format!(
                    "the URL parsers do not confirm it ({})",
                    readings.join(", ")
                )
            }
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ParserError {
    #[error("no URL parser could be started: {0}")]
    NoParser(String),
    #[error("URL parser `{0}` failed: {1}")]
    Reader(String, String),
}

struct Reader {
    name: String,
    version: String,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Reader {
    fn spawn(name: &str, mut command: Command) -> Result<Reader, String> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {:?}: {e}", command.get_program()))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut first = String::new();
        let hello: Option<BTreeMap<String, String>> = stdout
            .read_line(&mut first)
            .ok()
            .and_then(|_| serde_json::from_str(&first).ok());
        let Some(version) = hello.and_then(|h| h.get("version").cloned()) else {
            let _ = child.kill();
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut e, &mut err);
            }
            let _ = child.wait();
            return Err(format!("no greeting ({})", err.trim()));
        };
        Ok(Reader {
            name: name.to_owned(),
            version,
            child,
            stdin,
            stdout,
        })
    }

    fn read(&mut self, url: &str, base: Option<&str>) -> Result<Reading, String> {
        let request = serde_json::json!({"url": url, "base": base});
        writeln!(self.stdin, "{request}").map_err(|e| e.to_string())?;
        self.stdin.flush().map_err(|e| e.to_string())?;
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => Err("the reader exited".into()),
            Ok(_) => serde_json::from_str(&line).map_err(|e| format!("{e}: {line}")),
            Err(e) => Err(e.to_string()),
        }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The running parsers.
pub struct Parsers {
    readers: Vec<Reader>,
    /// Parsers that could not be started, with the reason.
    pub missing: Vec<(String, String)>,
    _dir: tempfile::TempDir,
}

fn program(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_owned())
}

fn go_reader(dir: &Path) -> Result<Command, String> {
    let source = dir.join("gonet.go");
    let binary = dir.join("gonet");
    let out = Command::new(program("RBV_GO", "go"))
        .arg("build")
        .arg("-o")
        .arg(&binary)
        .arg(&source)
        .current_dir(dir)
        .env("GO111MODULE", "off")
        .output()
        .map_err(|e| format!("cannot run go: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "go build failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(Command::new(binary))
}

impl Parsers {
    /// Starts every parser this machine has: `node` (RBV_NODE), `python3`
    /// (RBV_PYTHON) for urllib, urllib3 and libcurl through ctypes, `go`
    /// (RBV_GO) to build the net/url reader. Fails only when none starts.
    pub fn start() -> Result<Parsers, ParserError> {
        let dir = tempfile::tempdir().map_err(|e| ParserError::NoParser(e.to_string()))?;
        for (file, text) in [
            ("whatwg.mjs", WHATWG),
            ("python.py", PYTHON),
            ("gonet.go", GO),
        ] {
            std::fs::write(dir.path().join(file), text)
                .map_err(|e| ParserError::NoParser(format!("{file}: {e}")))?;
        }
        let python = program("RBV_PYTHON", "python3");
        let mut readers = Vec::new();
        let mut missing = Vec::new();
        let mut node = Command::new(program("RBV_NODE", "node"));
        node.arg(dir.path().join("whatwg.mjs"));
        let mut commands: Vec<(&str, Result<Command, String>)> = vec![("whatwg", Ok(node))];
        for name in ["urllib", "requests", "curl"] {
            let mut c = Command::new(&python);
            c.arg(dir.path().join("python.py")).arg(name);
            commands.push((name, Ok(c)));
        }
        commands.push(("go", go_reader(dir.path())));
        for (name, command) in commands {
            match command.and_then(|c| Reader::spawn(name, c)) {
                Ok(reader) => readers.push(reader),
                Err(why) => missing.push((name.to_owned(), why)),
            }
        }
        if readers.is_empty() {
            let why: Vec<String> = missing.iter().map(|(n, w)| format!("{n}: {w}")).collect();
            return Err(ParserError::NoParser(why.join("; ")));
        }
        Ok(Parsers {
            readers,
            missing,
            _dir: dir,
        })
    }

    /// The parsers running, with their versions (provenance).
    pub fn versions(&self) -> BTreeMap<String, String> {
        self.readers
            .iter()
            .map(|r| (r.name.clone(), r.version.clone()))
            .collect()
    }

    /// Every running parser's reading of `url` (resolved against `base`).
    pub fn read(&mut self, url: &str, base: Option<&str>) -> Result<Readings, ParserError> {
        let mut readings = BTreeMap::new();
        for reader in &mut self.readers {
            let reading = reader
                .read(url, base)
                .map_err(|e| ParserError::Reader(reader.name.clone(), e))?;
            readings.insert(reader.name.clone(), reading);
        }
        Ok(Readings(readings))
    }
}

/// The parsers' word on a url_loopback finding: the implementation
/// answered `band` for a GET of `url`; a carve-out is an `auto`.
pub fn judge(
    parsers: &mut Parsers,
    url: &str,
    band: rbv_protocol::Band,
) -> Result<String, ParserError> {
    Ok(parsers
        .read(url, None)?
        .describe(band == rbv_protocol::Band::Auto))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(host: Option<&str>, addr: Option<&str>) -> Reading {
        Reading {
            ok: true,
            host: host.map(str::to_owned),
            addr: addr.map(str::to_owned),
            error: None,
        }
    }

    #[test]
    fn loopback_of_a_reading() {
        assert_eq!(
            reading(Some("127.1"), Some("127.0.0.1")).loopback(),
            Some(true)
        );
        assert_eq!(reading(Some("2130706433"), None).loopback(), Some(false));
        assert_eq!(reading(Some("LOCALHOST."), None).loopback(), Some(true));
        assert_eq!(
            reading(Some("::ffff:127.0.0.1"), Some("::ffff:127.0.0.1")).loopback(),
            Some(true)
        );
        assert_eq!(
            reading(Some("::1%lo"), Some("::1%lo")).loopback(),
            Some(true)
        );
        assert_eq!(reading(Some("evil.com"), None).loopback(), Some(false));
        assert_eq!(reading(None, None).loopback(), None);
        let refused = Reading {
            ok: false,
            ..reading(Some("localhost"), None)
        };
        assert_eq!(refused.loopback(), None);
    }

    #[test]
    fn a_carve_out_is_confirmed_wrong_when_a_parser_reads_elsewhere() {
        let mut r = Readings::default();
        r.0.insert(
            "whatwg".into(),
            reading(Some("127.0.0.1"), Some("127.0.0.1")),
        );
        r.0.insert("curl".into(), reading(Some("evil.com"), None));
        assert!(r.confirms(true).unwrap().contains("curl reads `evil.com`"));
        assert_eq!(r.confirms(false), None);
        r.0.insert("curl".into(), reading(Some("localhost"), None));
        assert_eq!(r.confirms(true), None);
        assert!(r.confirms(false).is_some());
    }
}
