//! `rbv oracle sql`: ask a throwaway PostgreSQL whether statements write.

use crate::oracle::postgres::Cluster;
use anyhow::Context;
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
}

pub fn run(args: OracleArgs) -> anyhow::Result<ExitCode> {
    let OracleKind::Sql {
        mut statements,
        file,
    } = args.oracle;
    if statements.is_empty() {
        let text = match file {
            Some(path) => {
                std::fs::read_to_string(&path).with_context(|| path.display().to_string())?
            }
            None => {
                let mut s = String::new();
                std::io::stdin().read_to_string(&mut s)?;
                s
            }
        };
        statements = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect();
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
