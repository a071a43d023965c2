//! `rbv list`.

use super::cases::CasesArgs;
use crate::runner::select;
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub cases: CasesArgs,
    /// List only cases whose id contains PATTERN (repeatable; any matches).
    #[arg(long, value_name = "PATTERN")]
    pub filter: Vec<String>,
}

pub fn run(args: ListArgs) -> anyhow::Result<ExitCode> {
    let Some(suite) = args.cases.load_or_say() else {
        return Ok(ExitCode::from(super::EXIT_HARNESS));
    };
    let chosen = select(&suite.cases, &args.filter);
    // Ids and requirement names come from case files: no escape
    // sequence or bidi control of theirs reaches the terminal.
    let esc = rbv_report::text::terminal;
    let width = chosen.iter().map(|c| esc(&c.id).len()).max().unwrap_or(0);
    let mut out = String::new();
    for case in &chosen {
        out.push_str(&format!(
            "{:width$}  {}\n",
            esc(&case.id),
            esc(&case.requirements.join(","))
        ));
    }
    out.push_str(&format!("{} cases\n", chosen.len()));
    super::output::emit(&out);
    Ok(ExitCode::SUCCESS)
}
