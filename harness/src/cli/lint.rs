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
    // Messages quote case files, which may hold terminal escapes.
    let shown = |text: String| {
        rbv_report::text::terminal_lines(&text)
            .collect::<Vec<_>>()
            .join("\n    ")
    };
    for error in &report.errors {
        println!("error: {}", shown(error.to_string()));
    }
    for warning in &report.warnings {
        println!("warning: {}", shown(warning.to_string()));
    }
    if args.coverage {
        for line in rbv_report::text::terminal_lines(&report.to_string()) {
            println!("{line}");
        }
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
