//! `rbv rules`.

use super::cases::CasesArgs;
use crate::case::rules;
use clap::Args;
use rbv_protocol::Capability;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct RulesArgs {
    /// The input language: `shell`, `sql` or `fetch`.
    #[arg(value_parser = language)]
    pub capability: Capability,
    #[command(flatten)]
    pub cases: CasesArgs,
}

fn language(text: &str) -> Result<Capability, String> {
    let names: Vec<&str> = rules::LANGUAGES.iter().map(|c| c.as_str()).collect();
    text.parse::<Capability>()
        .ok()
        .filter(|c| rules::LANGUAGES.contains(c))
        .ok_or_else(|| format!("expected one of: {}", names.join(", ")))
}

pub fn run(args: RulesArgs) -> anyhow::Result<ExitCode> {
    let Some(suite) = args.cases.load_or_say() else {
        return Ok(ExitCode::from(super::EXIT_HARNESS));
    };
    let page = rules::page(&suite, args.capability).expect("the parser admits languages only");
    super::output::emit(&page);
    Ok(ExitCode::SUCCESS)
}
