//! `rbv run`.

use super::cases::CasesArgs;
use super::duration::parse_duration;
use super::output::{render, Style};
use super::{EXIT_FAILED, EXIT_HARNESS};
use crate::fuzz::{campaign, InProcess, OverTransport, Subject};
use crate::reporting::{self, RunRecord};
use crate::runner::{self, RunOptions, Summary};
use crate::transport::{Connect, ProcessConfig, Target};
use clap::Args;
use rbv_reference::{Mutant, Profile};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The implementation's adapter, a shell command line
    /// (`--impl "python3 adapters/python/examples/toy_adapter.py"`). Without it, the
    /// built-in reference runs through the same protocol.
    #[arg(long = "impl", value_name = "CMD", env = "RBV_IMPL")]
    pub implementation: Option<String>,
    /// Run a mutant of the built-in reference (not with --impl).
    #[arg(long, value_name = "NAME", value_parser = super::serve::parse_mutant, conflicts_with = "implementation")]
    pub mutant: Option<Mutant>,
    #[command(flatten)]
    pub cases: CasesArgs,
    /// Run only cases whose id contains PATTERN (repeatable; any matches).
    #[arg(long, value_name = "PATTERN")]
    pub filter: Vec<String>,
    /// Workers (persistent children; with --all-mutants, threads); default:
    /// one per core.
    #[arg(
        long,
        short = 'j',
        value_name = "N",
        default_value_t = 0,
        hide_default_value = true
    )]
    pub jobs: usize,
    /// How long one answer may take (`5s`, `500ms`).
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// How long the whole run may take (`90s`, `15m`, `1h`): cases not
    /// started by then are errors (timeout), and no answer is awaited past
    /// it.
    #[arg(long, value_name = "DURATION", default_value = "15m", value_parser = parse_duration)]
    pub deadline: Duration,
    /// When the run started plus `deadline` (set by `run`).
    #[arg(skip)]
    pub deadline_at: Option<Instant>,
    /// Start a fresh child for every case (for adapters that cannot stay alive).
    #[arg(long)]
    pub spawn_per_case: bool,
    /// Validate every message the implementation sends against the protocol's
    /// JSON Schema; a violation is that case's error.
    #[arg(long)]
    pub validate_protocol: bool,
    /// Run the built-in reference linked in, without the protocol (a quick
    /// check of the suite itself; not with --impl).
    #[arg(long, hide = true, conflicts_with_all = ["implementation", "spawn_per_case", "validate_protocol"])]
    pub in_process: bool,
    /// Write the report (JSON, JUnit, Markdown, HTML, badge) into DIR. DIR
    /// may be a symbolic link (the report goes where it leads); a link
    /// planted inside DIR is replaced, never written through.
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
    /// Known failures (YAML, one reason each): listed failures do not fail
    /// the run, a listed case that passes does (stale baseline).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Run the selected cases against the built-in reference and every
    /// planted mutant (in process) and say which mutants each case kills;
    /// fails when the reference fails a selected case.
    #[arg(long, conflicts_with_all = ["implementation", "mutant", "spawn_per_case", "validate_protocol", "report", "baseline"])]
    pub all_mutants: bool,
    /// After the cases, fuzz the implementation for this long (`3m`, `90s`):
    /// every target whose capabilities it claims, the time split equally
    /// across them, against a fresh child of the same command (the built-in
    /// reference or its mutant in process). Each finding fails its
    /// capability like a MUST case and carries its case for `rbv promote`.
    /// `--deadline` bounds the campaign too. Not with --spawn-per-case: an
    /// exec's requests share a session.
    #[arg(long, value_name = "DURATION", value_parser = parse_fuzz_budget, conflicts_with_all = ["all_mutants", "spawn_per_case"])]
    pub fuzz: Option<Duration>,
    /// Seed of the campaign's input streams (with --fuzz).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "fuzz")]
    pub seed: u64,
    /// The campaign's exec budget, split equally across its targets, each
    /// share capped by its time share (with --fuzz): the same seed, binary
    /// and exec budget give the same campaign on any machine.
    #[arg(long, value_name = "N", requires = "fuzz", value_parser = clap::value_parser!(u64).range(1..))]
    pub fuzz_execs: Option<u64>,
    /// Second judges of the campaign's findings (with --fuzz), as `rbv fuzz`
    /// has them: `postgres` (sql_bypass, a throwaway PostgreSQL),
    /// `url-parsers` (url_loopback, the parsers of `rbv oracle url`), `bash`
    /// (shell_bypass, bash in a sandbox). The report names the ones asked
    /// for and keeps each one's word on each finding it judged.
    #[arg(long, value_name = "ORACLE", value_delimiter = ',', requires = "fuzz", value_parser = ["postgres", "url-parsers", "bash"])]
    pub fuzz_oracles: Vec<String>,
}

/// A campaign budget: a duration above zero.
fn parse_fuzz_budget(text: &str) -> Result<Duration, String> {
    let budget = parse_duration(text)?;
    if budget.is_zero() {
        return Err(format!("`{text}`: a campaign needs a budget above zero"));
    }
    Ok(budget)
}

/// The command line that serves the built-in reference: this very binary.
pub fn self_adapter(mutant: Option<Mutant>, echo: bool) -> anyhow::Result<String> {
    self_adapter_with(mutant, echo, &Profile::default())
}

/// The built-in reference with a profile other than the default; only the
/// keys that differ are passed.
pub fn self_adapter_with(
    mutant: Option<Mutant>,
    echo: bool,
    profile: &Profile,
) -> anyhow::Result<String> {
    let exe = std::env::current_exe()?;
    let mut command = format!("exec {} serve", shell_quote(&exe.to_string_lossy()));
    if let Some(m) = mutant {
        command.push_str(&format!(" --mutant {m}"));
    }
    let default = Profile::default().to_handshake_map();
    for (key, value) in profile.to_handshake_map() {
        if default.get(&key) != Some(&value) {
            let value = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned);
            command.push_str(&format!(" --profile {key}={value}"));
        }
    }
    if echo {
        command.push_str(" --echo");
    }
    Ok(command)
}

/// `text` as one word for `sh`.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

impl RunArgs {
    pub fn process_config(&self, profile: &Profile) -> anyhow::Result<ProcessConfig> {
        let command = match &self.implementation {
            Some(command) => command.clone(),
            None => self_adapter_with(self.mutant, false, profile)?,
        };
        let mut config = ProcessConfig::new(command);
        if self.timeout.is_zero() {
            anyhow::bail!("--timeout must be above zero");
        }
        config.timeout = self.timeout;
        config.deadline = self.deadline_at;
        // Under `rbv launch`: a session of its own, killed when rbv dies.
        config.launcher = crate::transport::launch::launcher();
        if self.validate_protocol {
            config.validate = Some(protocol_validator());
        }
        Ok(config)
    }

    /// What to connect to; `profile` configures the built-in reference
    /// (an implementation given with `--impl` has the profile it declares).
    pub fn target(&self, profile: &Profile) -> anyhow::Result<Target> {
        if self.in_process {
            return Ok(Target::InProcess(self.mutant, *profile));
        }
        let config = self.process_config(profile)?;
        Ok(if self.spawn_per_case {
            Target::SpawnPerCase(config)
        } else {
            Target::Process(config)
        })
    }

    /// What the report records about this run.
    fn conditions(
        &self,
        outcome: &runner::RunOutcome,
        suite_cases: usize,
    ) -> rbv_report::model::Conditions {
        use rbv_report::model::RunMode;
        let mode = if self.in_process {
            RunMode::InProcess
        } else if self.spawn_per_case {
            RunMode::SpawnPerCase
        } else {
            RunMode::Process
        };
        let options = RunOptions {
            filters: Vec::new(),
            jobs: self.jobs,
            deadline: None,
        };
        reporting::conditions(&reporting::RunSettings {
            command: &outcome.target,
            mode,
            filters: &self.filter,
            validate_protocol: self.validate_protocol,
            timeout: self.timeout,
            jobs: options.jobs(),
            profile_per_case: self.implementation.is_none(),
            suite_cases,
        })
    }
}

impl RunArgs {
    /// What the campaign fuzzes: a fresh child of the command under test
    /// (the cases' children are gone), or the reference in process.
    fn fuzz_subject(&self) -> anyhow::Result<Box<dyn Subject>> {
        if self.implementation.is_none() {
            return Ok(Box::new(InProcess::new(self.mutant)));
        }
        // Before the spawn, which inherits it: the fuzzer and the child take
        // strict turns, and a turn across CPUs costs a wakeup (`rbv fuzz`).
        crate::transport::affinity::pin_current_thread_here();
        let mut config = self.process_config(&Profile::default())?;
        // The campaign caps its own time by the deadline (`campaign::Plan`):
        // a request cut off by it would read as the implementation's failure.
        config.deadline = None;
        let target = Target::Process(config);
        let transport = target.connect().map_err(|e| {
            anyhow::anyhow!("cannot start the implementation to fuzz it: {}", e.message)
        })?;
        Ok(Box::new(OverTransport::restartable(transport, target)))
    }

    /// Runs the campaign `--fuzz` asks for; its lines for the output.
    fn campaign(
        &self,
        budget: Duration,
        catalogue: &crate::case::requirements::Catalogue,
    ) -> anyhow::Result<(rbv_report::model::Campaign, Vec<String>)> {
        let plan = campaign::Plan {
            budget,
            max_execs: self.fuzz_execs,
            seed: self.seed,
            deadline: self.deadline_at,
        };
        let mut subject = self.fuzz_subject()?;
        let mut current = String::new();
        let ran = campaign::run(&plan, subject.as_mut(), &mut |target, _| {
            // A long campaign says where it is: a line per target that runs
            // long enough to tick.
            if target != current {
                current = target.to_owned();
                eprintln!("rbv run --fuzz: fuzzing with target {target}");
            }
        });
        let wanted = |id: &str| self.fuzz_oracles.iter().any(|o| o == id);
        let found = |target: &str| {
            ran.targets
                .iter()
                .any(|t| t.target.name == target && !t.outcome.found.is_empty())
        };
        use super::fuzz_oracles::{Oracles, Wanted};
        use crate::fuzz::targets::{SHELL_BYPASS, SQL_BYPASS, URL_LOOPBACK};
        // One judge per target whose findings it can judge; each started
        // only when there is a finding to judge.
        let mut judges: Vec<(&str, Oracles)> = Vec::new();
        for (target, wants) in [
            (
                SQL_BYPASS.name,
                Wanted {
                    postgres: wanted("postgres"),
                    ..Wanted::default()
                },
            ),
            (
                URL_LOOPBACK.name,
                Wanted {
                    parsers: wanted("url-parsers"),
                    ..Wanted::default()
                },
            ),
            (
                SHELL_BYPASS.name,
                Wanted {
                    bash: wanted("bash"),
                    ..Wanted::default()
                },
            ),
        ] {
            if wants != Wanted::default() {
                judges.push((target, Oracles::start_these(wants, found(target))?));
            }
        }
        let mut ids = self.fuzz_oracles.clone();
        ids.sort();
        ids.dedup();
        let report = ran.to_report_judged(
            catalogue,
            &crate::fuzz::promote::today(),
            ids,
            &mut |target, found| {
                judges
                    .iter_mut()
                    .filter(|(name, _)| *name == target.name)
                    .flat_map(|(_, o)| o.judge(&found.finding, subject.as_mut()))
                    .collect()
            },
        );
        let lines = campaign_lines(&report);
        Ok((report, lines))
    }
}

/// How many findings the terminal shows with their whole case.
const SHOWN_REPRODUCTIONS: usize = 3;

/// The campaign for the terminal: one line per target, each finding with
/// its reproduction, and the certificate's clause.
fn campaign_lines(c: &rbv_report::model::Campaign) -> Vec<String> {
    use rbv_report::text;
    let mut lines = Vec::new();
    for t in &c.targets {
        let mut line = format!(
            "fuzz: {} {} execs in {:.1} s, {} finding(s)",
            t.name,
            t.execs,
            t.elapsed_ms / 1000.0,
            t.findings
        );
        line.push_str(&t.short_of_budget());
        lines.push(line);
    }
    for (i, f) in c.findings.iter().enumerate() {
        let message = f.result.message.as_deref().unwrap_or("");
        // The finding quotes the implementation: escaped, every line after
        // rbv's own prefix.
        for line in text::terminal_lines(message) {
            lines.push(format!("FUZZ {} {line}", f.result.id));
        }
        for word in &f.oracle_words {
            lines.push(format!("  # {}", text::terminal(word)));
        }
        if i < SHOWN_REPRODUCTIONS {
            for line in text::terminal_lines(&f.reproduction) {
                lines.push(format!("  | {line}"));
            }
        }
    }
    if c.findings.len() > SHOWN_REPRODUCTIONS {
        lines.push(format!(
            "(the cases of the other {} findings are in the report: --report DIR)",
            c.findings.len() - SHOWN_REPRODUCTIONS
        ));
    }
    lines.push(format!("campaign: {}", c.clause()));
    lines
}

fn protocol_validator() -> crate::transport::Validate {
    let validator = rbv_protocol::schema::ProtocolValidator::new();
    std::sync::Arc::new(move |value| validator.validate_response(value))
}

pub fn run(mut args: RunArgs) -> anyhow::Result<ExitCode> {
    args.deadline_at = Some(Instant::now() + args.deadline);
    let (suite, _, unread) = match args.cases.load_readable() {
        Ok(loaded) => loaded,
        Err(error) => {
            eprintln!("rbv: {error}");
            return Ok(ExitCode::from(EXIT_HARNESS));
        }
    };
    // An entry of the tree rbv would not read (a link, a loop) is an error
    // naming it; the rest runs and is reported, and the run exits 2.
    for error in &unread {
        eprintln!("{error}");
    }
    if args.all_mutants {
        let options = RunOptions {
            filters: args.filter.clone(),
            jobs: args.jobs,
            deadline: args.deadline_at,
        };
        let kills = crate::mutation::kills(&suite.cases, &options);
        super::output::emit(&kills.render());
        return Ok(if kills.reference_fails.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(EXIT_FAILED)
        });
    }
    // Fail on a bad command line before anything runs.
    args.target(&Profile::default())?;
    // Read the baseline before running: a bad file is a usage error, and
    // should not cost a whole run first.
    let baseline = args
        .baseline
        .as_deref()
        .map(reporting::load_baseline)
        .transpose()?;
    let options = RunOptions {
        filters: args.filter.clone(),
        jobs: args.jobs,
        deadline: args.deadline_at,
    };
    let started = std::time::SystemTime::now();
    let mut outcome = if args.implementation.is_some() {
        runner::run(&suite.cases, &args.target(&Profile::default())?, &options)
    } else {
        // The built-in reference answers every open question each way: a case
        // written for another profile runs against the reference started
        // with that profile, so that none is skipped for its profile.
        runner::run_per_profile(&suite.cases, &options, &|profile| {
            args.target(profile).expect("checked above")
        })
    };
    let summary = Summary::of(&outcome.results);
    let ran = outcome.results.len();
    let style = Style::for_stdout();
    let mut text = render(&outcome, style);
    let mut failed = summary.failed() > 0;
    let campaign = match args.fuzz {
        Some(budget) => {
            let (campaign, lines) = args.campaign(budget, &suite.catalogue)?;
            for line in lines {
                insert_before_summary(&mut text, &line);
            }
            failed |= !campaign.findings.is_empty() || campaign.incomplete();
            Some(campaign)
        }
        None => None,
    };
    if args.report.is_some() || baseline.is_some() {
        let conditions = args.conditions(&outcome, suite.cases.len());
        // The report takes the results: each is freed as the report's is
        // made, so the two are never all held at once.
        let mut record = RunRecord::taking(&suite, &mut outcome, started);
        record.cases_sha256 = args.cases.digest()?;
        record.baseline = baseline;
        record.conditions = Some(conditions);
        record.campaign = campaign;
        let report = reporting::into_report(record);
        if let Some(dir) = &args.report {
            let written = {
                let _unit = crate::transport::interrupt::defer_exit();
                rbv_report::write_all(&report, dir)
            };
            if let Err(e) = written {
                // The run's results are not lost with its report.
                super::output::emit(&text);
                eprintln!(
                    "rbv: cannot write the report into {}: {e}",
                    rbv_report::text::terminal(&dir.display().to_string())
                );
                return Ok(ExitCode::from(EXIT_HARNESS));
            }
        }
        if let Some(status) = &report.baseline {
            let mut note = format!(
                "baseline: {} known failures, {} stale entries, {} not in this run",
                status.known_failures.len(),
                status.stale.len(),
                status.unmatched.len()
            );
            for id in &status.stale {
                note.push_str(&format!("\nstale baseline entry (the case passes): {id}"));
            }
            insert_before_summary(&mut text, &note);
            failed = report.summary.run_failed;
        }
        if let Some(dir) = &args.report {
            let cert = &report.summary.certification;
            let note = match cert.partial {
                Some(p) => format!("report: {} ({}: no level)", dir.display(), p.label()),
                None => match &cert.campaign {
                    Some(clause) => {
                        format!("report: {} ({} · {clause})", dir.display(), cert.statement)
                    }
                    None => format!("report: {} ({})", dir.display(), cert.statement),
                },
            };
            insert_before_summary(&mut text, &note);
        }
    }
    if args.spawn_per_case {
        insert_before_summary(
            &mut text,
            "mode: spawn-per-case (a child per case: state leaking between sessions is not tested)",
        );
    }
    // With a report, its note above says so already.
    if args.report.is_none() && !args.filter.is_empty() {
        let note = format!(
            "partial run: {ran} of {} cases (--filter): no level",
            suite.cases.len()
        );
        insert_before_summary(&mut text, &note);
    }
    if !unread.is_empty() {
        let note = format!(
            "not read: {} entries of the cases tree (named on stderr): this run is incomplete",
            unread.len()
        );
        insert_before_summary(&mut text, &note);
    }
    super::output::emit(&text);
    if !unread.is_empty() {
        eprintln!(
            "rbv: {} entries of the cases tree were not read (above): the cases read ran, but an incomplete tree is no pass",
            unread.len()
        );
        return Ok(ExitCode::from(EXIT_HARNESS));
    }
    if summary.passed + summary.failed() == 0 {
        // Zero failures out of zero cases is not a pass.
        eprintln!(
            "rbv: no case ran ({} selected, {} skipped): this run proves nothing{}",
            ran,
            summary.skipped,
            if ran == 0 {
                " (check --cases and --filter)"
            } else {
                ""
            }
        );
        return Ok(ExitCode::from(EXIT_HARNESS));
    }
    Ok(if failed {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Adds `note` above the last two lines (the breakdown and the summary),
/// which always end the output.
fn insert_before_summary(text: &mut String, note: &str) {
    let mut lines: Vec<&str> = text.lines().collect();
    let at = lines.len().saturating_sub(2);
    lines.insert(at, note);
    *text = lines.join("\n") + "\n";
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run with no `--deadline` still ends: a hung implementation must
    /// not hold a CI job until its own timeout kills everything.
    #[test]
    fn a_run_without_deadline_gets_15_minutes_and_its_help_says_so() {
        use clap::{CommandFactory, Parser};
        let cli = crate::cli::Cli::try_parse_from(["rbv", "run"]).expect("parses");
        let crate::cli::Command::Run(args) = cli.command else {
            panic!("not `run`: {:?}", cli.command);
        };
        assert_eq!(args.deadline, Duration::from_secs(15 * 60));
        let help = crate::cli::Cli::command()
            .find_subcommand_mut("run")
            .expect("a run subcommand")
            .render_long_help()
            .to_string();
        // The lines of `--deadline`'s entry: up to the next option.
        let entry: Vec<&str> = help
            .lines()
            .map(str::trim_start)
            .skip_while(|l| !l.starts_with("--deadline "))
            .enumerate()
            .take_while(|(i, l)| *i == 0 || !l.starts_with('-'))
            .map(|(_, l)| l)
            .collect();
        assert!(entry.contains(&"[default: 15m]"), "{help}");
    }

    #[test]
    fn shell_quoting_survives_quotes_and_spaces() {
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }
}
