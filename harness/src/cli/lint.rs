//! `rbv lint`.

use super::cases::CasesArgs;
use crate::case::lint;
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct LintArgs {
    #[command(flatten)]
    pub cases: CasesArgs,
    /// Print requirement coverage (unsafe side and precision side per requirement).
    #[arg(long)]
    pub coverage: bool,
}

pub fn run(args: LintArgs) -> anyhow::Result<ExitCode> {
    let suite = match args.cases.load() {
        Ok(suite) => suite,
        Err(error) => {
            eprintln!("rbv: {error}");
            return Ok(ExitCode::from(super::EXIT_HARNESS));
        }
    };
    let report = lint::lint(&suite);
    for error in &report.errors {
        println!("error: {error}");
    }
    for warning in &report.warnings {
        println!("warning: {warning}");
    }
    if args.coverage {
        print!("{report}");
    }
    println!(
        "rbv lint: {} cases, {} errors, {} warnings",
        suite.cases.len(),
        report.errors.len(),
        report.warnings.len()
    );
    Ok(if report.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}
