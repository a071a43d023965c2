//! The `rbv` command line: parsing and printing only; the work is done by
//! the library (`runner`, `case`, `reporting`).
//!
//! Exit codes: 0 all passed (skips allowed), 1 a failure or an error of the
//! implementation, 2 a usage or harness error, 128 + the signal's number
//! on SIGINT, SIGTERM or SIGHUP (see `transport::interrupt`).

pub mod cases;
pub mod duration;
pub mod fuzz;
mod fuzz_oracles;
mod fuzz_progress;
pub mod lint;
pub mod list;
pub mod oracle;
pub mod output;
pub mod report_cmds;
pub mod rules;
pub mod run;
pub mod serve;
pub mod show;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "rbv",
    version,
    about = "Conformance suite and fuzzing harness for the portable risk-band vocabulary"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the suite against an implementation (the built-in reference by default).
    Run(run::RunArgs),
    /// List the cases (id and requirements).
    List(list::ListArgs),
    /// Print one case as it runs: tables expanded, fixtures resolved, the
    /// requests of its steps, with file:line.
    Show(show::ShowArgs),
    /// Check the cases: references, coverage, precision guards.
    Lint(lint::LintArgs),
    /// Print the normative rules page of an input language (shell, sql,
    /// fetch): the catalogue's rules, then every input the cases judge under
    /// each (docs/rules/).
    Rules(rules::RulesArgs),
    /// Serve the built-in reference on stdin/stdout (what `rbv run` starts
    /// without `--impl`).
    #[command(hide = true)]
    Serve(serve::ServeArgs),
    /// Start an implementation in a session of its own, killed with
    /// everything it started when rbv dies (what `rbv run` starts).
    #[command(hide = true)]
    Launch {
        /// Serve rbv on the socket given as stdin: start the command once
        /// per request (`--spawn-per-case`).
        #[arg(long)]
        serve: bool,
        /// The implementation's command line, for `sh -c`.
        #[arg(allow_hyphen_values = true)]
        command: String,
    },
    /// Measure the harness: cases/s, overhead over raw pipes, persistent
    /// workers against a child per case.
    Bench(crate::bench::BenchArgs),
    /// Fuzz an implementation on the stable toolchain (seeded RNG); prints
    /// findings as ready-to-paste YAML cases.
    Fuzz(fuzz::FuzzArgs),
    /// Turn a fuzz artifact into a regression case under cases/regressions/.
    Promote(fuzz::PromoteArgs),
    /// Ask an outside oracle (a throwaway PostgreSQL, the URL parsers, bash
    /// in a sandbox) about inputs.
    Oracle(oracle::OracleArgs),
    /// Compare reports of several implementations side by side.
    Compare(report_cmds::CompareArgs),
    /// What changed between two reports of one implementation.
    Diff(report_cmds::DiffArgs),
    /// Write a baseline of known failures from a report.
    Baseline(report_cmds::BaselineArgs),
}

/// Exit status of a run that found failures or errors.
pub const EXIT_FAILED: u8 = 1;
/// Exit status of a usage or harness error.
pub const EXIT_HARNESS: u8 = 2;

/// Parses the arguments and runs the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // The reference served and the launcher are themselves children: their parent
    // decides when they die.
    if !matches!(cli.command, Command::Serve(_) | Command::Launch { .. }) {
        crate::transport::interrupt::install();
        crate::transport::interrupt::become_subreaper();
    }
    let result = match cli.command {
        Command::Run(args) => run::run(args),
        Command::List(args) => list::run(args),
        Command::Show(args) => show::run(args),
        Command::Lint(args) => lint::run(args),
        Command::Rules(args) => rules::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Launch { serve, command } => {
            return match serve {
                true => crate::transport::fork_server::serve(&command),
                false => crate::transport::launch::run(&command),
            }
        }
        Command::Bench(args) => crate::bench::run(args),
        Command::Compare(args) => report_cmds::compare(args),
        Command::Diff(args) => report_cmds::diff(args),
        Command::Baseline(args) => report_cmds::baseline(args),
        Command::Fuzz(args) => fuzz::run(args),
        Command::Promote(args) => fuzz::promote_cmd(args),
        Command::Oracle(args) => oracle::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("rbv: error: {error:#}");
            ExitCode::from(EXIT_HARNESS)
        }
    }
}
