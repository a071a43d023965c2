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
    /// Also apply the project-wide rules (every MUST has a case and is
    /// checked through every path that can observe it, the catalogue, the
    /// coverage warnings) to the files of `--cases` / `--add-cases`. The
    /// embedded corpus always gets them.
    #[arg(long)]
    pub project: bool,
}

pub fn run(args: LintArgs) -> anyhow::Result<ExitCode> {
    let (suite, added) = match args.cases.load_with_added() {
        Ok(loaded) => loaded,
        Err(error) => {
            eprintln!("rbv: {error}");
            return Ok(ExitCode::from(super::EXIT_HARNESS));
        }
    };
    // A contributed tree is judged on its own files: the rules about the
    // whole corpus would bury its findings under the rest of the corpus's.
    let only_added = args.cases.add_cases.is_some();
    let given = |c: &crate::case::Case| !only_added || added.contains(&c.origin.file);
    let scope = if args.project || args.cases.is_embedded_corpus() {
        lint::Scope::Project
    } else {
        lint::Scope::Files(&given)
    };
    let report = lint::lint_scoped(&suite, scope);
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
    let judged = match scope {
        lint::Scope::Project => suite.cases.len(),
        lint::Scope::Files(given) => suite.cases.iter().filter(|c| given(c)).count(),
    };
    if let lint::Scope::Files(_) = scope {
        println!(
            "note: the given files' own rules only; --project adds the project-wide ones \
             (every MUST through every path, the catalogue, coverage)"
        );
    }
    println!(
        "rbv lint: {judged} cases, {} errors, {} warnings",
        report.errors.len(),
        report.warnings.len()
    );
    Ok(if report.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}
