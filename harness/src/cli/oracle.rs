//! `rbv oracle sql`: ask a throwaway PostgreSQL whether statements write.
//! `rbv oracle url`: ask the URL parsers agents' tools use which host a URL
//! names (scripts/label-url-parsers.py labels the URL corpus with it).
//! `rbv oracle shell`: run shell lines under bash in a sandbox and say
//! which programs ran and which files changed.

use crate::oracle::postgres::Cluster;
use crate::oracle::shell::Sandbox;
use crate::oracle::url::Parsers;
use anyhow::{bail, Context};
use rbv_protocol::Band;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct OracleArgs {
    #[command(subcommand)]
    pub oracle: OracleKind,
}

#[derive(Debug, clap::Subcommand)]
pub enum OracleKind {
    /// Run each statement inside a read-only transaction of a throwaway
    /// cluster and print PostgreSQL's verdict as a JSON line.
    Sql {
        /// Statements to judge; with none, one statement per line of --file
        /// or of standard input.
        statements: Vec<String>,
        /// A file with one statement per line.
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// Read each URL with the WHATWG parser (node), Python's urllib and
    /// urllib3, libcurl and Go's net/url, and print every reading as a JSON
    /// line. The first line names the parsers and their versions.
    Url {
        /// URLs to read; with none, one JSON request `{"url", "base"}` per
        /// line of --file or of standard input.
        urls: Vec<String>,
        /// A file of JSON requests, one per line.
        #[arg(long)]
        file: Option<PathBuf>,
        /// Fail unless every parser is installed.
        #[arg(long)]
        require_all: bool,
    },
    /// Run each shell line under `bash -c` in a sandbox (no network, a
    /// throwaway root, every program a stub that logs; `rm`, `sed`, `find`
    /// and the like then run for real) and print, as a JSON line, which
    /// programs ran and which files changed.
    Shell {
        /// Lines to run; with none, one line per line of --file or of
        /// standard input.
        lines: Vec<String>,
        /// A file with one shell line per line.
        #[arg(long)]
        file: Option<PathBuf>,
        /// Also give the sandbox's verdict on this band for each line.
        #[arg(long, value_parser = parse_band)]
        band: Option<Band>,
    },
}

fn parse_band(text: &str) -> Result<Band, String> {
    serde_json::from_value(serde_json::Value::from(text))
        .map_err(|_| format!("`{text}` is not a band (auto, soft-ack, escalate)"))
}

fn lines(file: Option<PathBuf>) -> anyhow::Result<Vec<String>> {
    let text = match file {
        Some(path) => std::fs::read_to_string(&path).with_context(|| path.display().to_string())?,
        None => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s)?;
            s
        }
    };
    Ok(text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect())
}

pub fn run(args: OracleArgs) -> anyhow::Result<ExitCode> {
    match args.oracle {
        OracleKind::Sql { statements, file } => sql(statements, file),
        OracleKind::Url {
            urls,
            file,
            require_all,
        } => url(urls, file, require_all),
        OracleKind::Shell {
            lines: l,
            file,
            band,
        } => shell(l, file, band),
    }
}

fn sql(mut statements: Vec<String>, file: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    if statements.is_empty() {
        statements = lines(file)?;
    }
    let cluster = Cluster::start()?;
    for sql in statements {
        let line = match cluster.judge(&sql) {
            Ok(v) => serde_json::json!({"sql": sql, "pg": v, "confirms_write": v.confirms_write()}),
            Err(e) => serde_json::json!({"sql": sql, "error": e.to_string()}),
        };
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

fn url(urls: Vec<String>, file: Option<PathBuf>, require_all: bool) -> anyhow::Result<ExitCode> {
    let requests: Vec<(String, Option<String>)> = if urls.is_empty() {
        lines(file)?
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let v: serde_json::Value = serde_json::from_str(line)
                    .with_context(|| format!("request line {}: not JSON", i + 1))?;
                let url = v["url"]
                    .as_str()
                    .with_context(|| format!("request line {}: no string `url`", i + 1))?;
                Ok((url.to_owned(), v["base"].as_str().map(str::to_owned)))
            })
            .collect::<anyhow::Result<_>>()?
    } else {
        urls.into_iter().map(|u| (u, None)).collect()
    };
    let mut parsers = Parsers::start()?;
    for (name, why) in &parsers.missing {
        eprintln!("rbv oracle url: parser {name} unavailable: {why}");
    }
    if require_all && !parsers.missing.is_empty() {
        bail!(
            "--require-all: {} parser(s) unavailable",
            parsers.missing.len()
        );
    }
    println!(
        "{}",
        serde_json::json!({"parsers": parsers.versions(), "missing": parsers.missing})
    );
    for (url, base) in requests {
        let readings = parsers.read(&url, base.as_deref())?;
        let loopback: std::collections::BTreeMap<&str, Option<bool>> = readings
            .0
            .iter()
            .map(|(n, r)| (n.as_str(), r.loopback()))
            .collect();
        println!(
            "{}",
            serde_json::json!({"url": url, "base": base, "readings": readings.0,
                "loopback": loopback, "all_loopback": readings.all_loopback(),
                "not_loopback": readings.not_loopback()})
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn shell(
    mut commands: Vec<String>,
    file: Option<PathBuf>,
    band: Option<Band>,
) -> anyhow::Result<ExitCode> {
    if commands.is_empty() {
        commands = lines(file)?;
    }
    let sandbox = Sandbox::start()?;
    eprintln!("rbv oracle shell: sandbox: {}", sandbox.mode());
    for line in commands {
        let json = match sandbox.observe(&line) {
            Ok(o) => {
                let mut v = serde_json::json!({"line": line, "observed": o,
                    "effects": o.has_effects()});
                if let Some(band) = band {
                    let verdict = crate::oracle::shell::confirm(&o, band);
                    v["verdict"] = serde_json::json!({"band": band, "label": verdict.label(),
                        "text": verdict.to_string()});
                }
                v
            }
            Err(e) => serde_json::json!({"line": line, "error": e.to_string()}),
        };
        println!("{json}");
    }
    Ok(ExitCode::SUCCESS)
}
