//! `rbv show CASE`.

use super::cases::CasesArgs;
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The case id (as `rbv list` prints it).
    #[arg(value_name = "CASE")]
    pub id: String,
    #[command(flatten)]
    pub cases: CasesArgs,
}

/// Prints the case as the engine runs it; an unknown id names the cases
/// whose ids contain it. Exit 2 when there is no such case.
pub fn run(args: ShowArgs) -> anyhow::Result<ExitCode> {
    let Some(suite) = args.cases.load_or_say() else {
        return Ok(ExitCode::from(super::EXIT_HARNESS));
    };
    if let Some(case) = suite.case(&args.id) {
        // A case file arrives in a pull request: its text is escaped.
        let text = crate::case::show::render(case, &suite.catalogue);
        let safe: Vec<String> = rbv_report::text::terminal_lines(&text).collect();
        super::output::emit(&(safe.join("\n") + "\n"));
        return Ok(ExitCode::SUCCESS);
    }
    let near: Vec<&str> = crate::runner::select(&suite.cases, std::slice::from_ref(&args.id))
        .into_iter()
        .map(|c| c.id.as_str())
        .take(10)
        .collect();
    eprintln!("rbv: no case `{}`", rbv_report::text::terminal(&args.id));
    if !near.is_empty() {
        let near: Vec<String> = near
            .iter()
            .map(|id| rbv_report::text::terminal(id))
            .collect();
        eprintln!("cases whose id contains it:\n  {}", near.join("\n  "));
    }
    Ok(ExitCode::from(super::EXIT_HARNESS))
}
