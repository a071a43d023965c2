//! `rbv compare`, `rbv diff` and `rbv baseline`: arguments and printing;
//! the work is in `crate::reporting`.

use crate::reporting;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Two or more `report.json` files, one per implementation.
    #[arg(required = true, num_args = 2.., value_name = "REPORT.json")]
    pub reports: Vec<PathBuf>,
    /// Write `compare.md` and `compare.html` into DIR instead of printing
    /// the Markdown.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Prints (or writes) the interop matrix. Exit 0: disagreement is a
/// finding, not a failure.
pub fn compare(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let markdown = reporting::compare_reports(&args.reports, args.out.as_deref())?;
    match &args.out {
        Some(dir) => eprintln!(
            "rbv compare: wrote compare.md and compare.html into {}",
            dir.display()
        ),
        None => print_escaped(&markdown),
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The earlier run's `report.json`.
    #[arg(value_name = "OLD.json")]
    pub old: PathBuf,
    /// The later run's `report.json`.
    #[arg(value_name = "NEW.json")]
    pub new: PathBuf,
}

/// Prints the Markdown of newly failing and newly fixed cases and of the
/// cases missing from the new run. Exit 1 when the new run regressed (a
/// newly failing case, a lower level, a missing case or a capability no
/// longer claimed).
pub fn diff(args: DiffArgs) -> anyhow::Result<ExitCode> {
    let (markdown, regressed) = reporting::diff_reports(&args.old, &args.new)?;
    print_escaped(&markdown);
    Ok(if regressed {
        ExitCode::from(super::EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Markdown made of reports, which may be hostile: printed with every
/// control and bidi character escaped (the Markdown already keeps their
/// text inside table cells, on rbv's lines).
fn print_escaped(markdown: &str) {
    let mut out = String::with_capacity(markdown.len());
    for line in rbv_report::text::terminal_lines(markdown) {
        out.push_str(&line);
        out.push('\n');
    }
    // A closed pipe (`rbv diff … | head`) is not an error.
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush());
}

#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// Rewrite the baseline from a run: one entry per failing case, keeping
    /// the reasons of entries already in the file.
    #[arg(long, required = true)]
    pub update: bool,
    /// The run's `report.json`.
    #[arg(long, value_name = "REPORT.json")]
    pub from: PathBuf,
    /// The baseline file (YAML; JSON when it ends in `.json`).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

pub fn baseline(args: BaselineArgs) -> anyhow::Result<ExitCode> {
    let updated = reporting::update_baseline(&args.from, &args.out)?;
    let todo = updated
        .entries()
        .filter(|e| e.reason.starts_with(rbv_report::baseline::TODO_REASON))
        .count();
    eprintln!(
        "rbv baseline: {} entries written to {}{}",
        updated.len(),
        args.out.display(),
        if todo > 0 {
            format!(" ({todo} need a reason)")
        } else {
            String::new()
        }
    );
    Ok(ExitCode::SUCCESS)
}
