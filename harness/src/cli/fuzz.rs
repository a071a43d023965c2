//! `rbv fuzz` and `rbv promote`: the fuzz targets on the stable toolchain,
//! against the reference, a mutant, or any implementation.

use super::duration::parse_duration;
use crate::fuzz::driver::{drive_with, Options};
use crate::fuzz::group::Group;
use crate::fuzz::promote::{promote, today};
use crate::fuzz::{targets, InProcess, OverTransport, Subject, TARGETS};
use crate::transport::{Connect, ProcessConfig, Target as AdapterTarget};
use crate::verdict::FailKind;
use anyhow::{anyhow, bail, Context};
use rbv_protocol::Capability;
use rbv_reference::Mutant;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct SubjectArgs {
    /// The implementation to fuzz, a shell command speaking rbv's protocol
    /// (default: the reference, linked in).
    #[arg(long = "impl", value_name = "CMD", env = "RBV_IMPL")]
    pub implementation: Option<String>,
    /// Fuzz a mutant of the reference (see `rbv-ref --list-mutants`).
    #[arg(long, env = "RBV_MUTANT", conflicts_with = "implementation")]
    pub mutant: Option<String>,
    /// How long one answer may take (with --impl): `5s`, `500ms`.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// With --impl, let the implementation run on any CPU. By default the
    /// fuzzer and the child share the CPU the fuzzer started on: they take
    /// strict turns, and a turn across CPUs costs a wakeup (BENCHMARKS.md).
    #[arg(long)]
    pub no_pin: bool,
}

#[derive(Debug, clap::Args)]
pub struct FuzzArgs {
    /// The target: token_binding, sql_bypass, shell_bypass, url_loopback,
    /// manifest, rule_of_two, projection, case_loader, protocol_decoder.
    #[arg(long, required_unless_present = "reach")]
    pub target: Option<String>,
    /// Print which generator productions reach each input requirement of
    /// cases/REQUIREMENTS.yaml (every target, seeded, against the
    /// reference), and how many generated inputs reach each grammar
    /// production the embedded cases cover (read as `rbv lint --coverage`
    /// reads a case); fail when a MUST requirement has no production, or a
    /// covered production is reached by no input and not listed in
    /// harness/fuzz-reach-gaps.yaml (or listed and reached).
    #[arg(long, conflicts_with = "target")]
    pub reach: bool,
    /// The catalogue for --reach (default: the one embedded in the binary,
    /// so that an installed rbv needs no checkout).
    #[arg(long, value_name = "FILE")]
    pub catalogue: Option<PathBuf>,
    /// Print the run's statistics as one JSON object on stdout at the end.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub subject: SubjectArgs,
    /// How long to run: `60s`, `2m`, `500ms`.
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    pub time: Duration,
    /// Seed of the input stream; a run is reproducible from it.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Stop after this many execs.
    #[arg(long)]
    pub max_execs: Option<u64>,
    /// Stop at the first finding.
    #[arg(long)]
    pub stop_at_first: bool,
    /// Confirm each PostgreSQL-dialect SQL finding with a throwaway
    /// PostgreSQL (sql_bypass); MySQL and SQLite findings are not confirmed.
    #[arg(long)]
    pub postgres: bool,
    /// Confirm each URL finding with the URL parsers agents' tools use
    /// (url_loopback: WHATWG, Python, urllib3, libcurl, Go; `rbv oracle url`).
    #[arg(long)]
    pub parsers: bool,
    /// Confirm each shell finding with bash in a sandbox (shell_bypass: no
    /// network, a throwaway root, stub programs that log; `rbv oracle
    /// shell`): which programs really ran, which files really changed.
    #[arg(long)]
    pub bash: bool,
    /// Where to keep the bytes of each finding (for `rbv promote`), with
    /// the case it became (`<artifact>.yaml`, for `promote --no-reproduce`).
    #[arg(long, value_name = "DIR", default_value = "rbv-fuzz-artifacts")]
    pub artifact_dir: PathBuf,
    /// Show and keep at most this many bugs in full, each by its smallest
    /// shrunk finding (findings are grouped by generator family, oracle
    /// reason and how the answer differed); the others are only counted in
    /// the summary.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub max_findings: usize,
    /// Write the target's seed corpus into DIR and exit (no fuzzing).
    #[arg(long, value_name = "DIR")]
    pub write_seeds: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct PromoteArgs {
    /// The target that produced the artifact.
    #[arg(long)]
    pub target: String,
    /// The artifact (libFuzzer's crash file, or bytes printed by `rbv fuzz`).
    pub artifact: PathBuf,
    #[command(flatten)]
    pub subject: SubjectArgs,
    /// The repository root that holds `cases/` and `corpora/`.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Do not rerun the target against the subject (the bug may be fixed
    /// by now): promote the case `rbv fuzz` recorded next to the artifact
    /// (`<artifact>.yaml`), after checking that the reference passes it.
    #[arg(long, conflicts_with_all = ["implementation", "mutant"])]
    pub no_reproduce: bool,
}

fn subject(args: &SubjectArgs) -> anyhow::Result<Box<dyn Subject>> {
    if let Some(command) = &args.implementation {
        let mut config = ProcessConfig::new(command.clone());
        config.timeout = args.timeout;
        if !args.no_pin {
            // Before the spawn: the child inherits it.
            crate::transport::affinity::pin_current_thread_here();
        }
        config.launcher = crate::transport::launch::launcher();
        let target = AdapterTarget::Process(config);
        let transport = target
            .connect()
            .map_err(|e| anyhow!("cannot start `{command}`: {}", e.message))?;
        return Ok(Box::new(OverTransport::restartable(transport, target)));
    }
    let mutant = args
        .mutant
        .as_deref()
        .map(str::parse::<Mutant>)
        .transpose()
        .map_err(|e| anyhow!(e))?;
    Ok(Box::new(InProcess::new(mutant)))
}

/// The flags that name the same subject again, for the promote hint.
fn subject_flags(args: &SubjectArgs) -> String {
    match (&args.implementation, &args.mutant) {
        (Some(cmd), _) => format!(" --impl {}", crate::fuzz::finding::yaml_string(cmd)),
        (None, Some(m)) => format!(" --mutant {m}"),
        (None, None) => String::new(),
    }
}

fn target(name: &str) -> anyhow::Result<&'static targets::Target> {
    targets::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        anyhow!("no fuzz target `{name}` (targets: {})", names.join(", "))
    })
}

pub fn run(args: FuzzArgs) -> anyhow::Result<ExitCode> {
    if args.reach {
        return reach(&args);
    }
    let target = target(args.target.as_deref().unwrap_or_default())?;
    if let Some(dir) = &args.write_seeds {
        std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
        let seeds = crate::fuzz::driver::seeds(target.name);
        for (name, bytes) in &seeds {
            std::fs::write(dir.join(name), bytes)
                .with_context(|| dir.join(name).display().to_string())?;
        }
        println!("wrote {} seeds to {}", seeds.len(), dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    super::fuzz_oracles::Oracles::check(&args, target.name)?;
    let mut subject = subject(&args.subject)?;
    let missing: Vec<&Capability> = target
        .needs
        .iter()
        .filter(|c| !subject.claims(**c))
        .collect();
    if !missing.is_empty() {
        bail!(
            "{} does not claim {}, which target {} needs",
            subject.name(),
            missing
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            target.name
        );
    }
    let options = Options {
        seed: args.seed,
        time: args.time,
        max_execs: args.max_execs.unwrap_or(u64::MAX),
        stop_at_first: args.stop_at_first,
    };
    eprintln!(
        "rbv fuzz: target {} against {}, seed {}, up to {} s",
        target.name,
        subject.name(),
        args.seed,
        args.time.as_secs_f64()
    );
    let progress = super::fuzz_progress::Progress::new(args.time);
    let (outcome, fired) = crate::fuzz::reach::record(|| {
        drive_with(target, subject.as_mut(), &options, &mut |t| {
            progress.tick(t)
        })
    });
    progress.finish();
    let date = today();
    let mut oracles = super::fuzz_oracles::Oracles::start(&args, !outcome.found.is_empty())?;
    if !outcome.found.is_empty() {
        std::fs::create_dir_all(&args.artifact_dir)
            .with_context(|| args.artifact_dir.display().to_string())?;
    }
    // One entry per bug: its smallest shrunk input stands for the group.
    let groups = outcome.groups();
    for group in groups.iter().take(args.max_findings) {
        let found = group.representative;
        let (short, _) = crate::fuzz::finding::artifact_hash(&found.artifact);
        let path = args.artifact_dir.join(format!("{}-{short}", target.name));
        let yaml = found.finding.to_yaml(&found.artifact, &date);
        std::fs::write(&path, &found.artifact).with_context(|| path.display().to_string())?;
        // A finding quotes the implementation's answers: escaped, and
        // every line after rbv's `# `.
        for line in rbv_report::text::terminal_lines(&found.finding.to_string()) {
            println!("# {line}");
        }
        // Its case must fail where it was found, or it captures nothing.
        let reproduced = crate::fuzz::promote::reproduce_recorded(
            &found.finding,
            &found.artifact,
            &date,
            subject.as_mut(),
        );
        if let Err(why) = &reproduced {
            for line in rbv_report::text::terminal_lines(why) {
                println!("# {line}");
            }
        } else {
            let recorded = recorded_case(&path);
            std::fs::write(&recorded, &yaml).with_context(|| recorded.display().to_string())?;
        }
        println!(
            "# {} finding(s), 1 bug ({} distinct shrunk case(s)); this one found after {} execs ({:.1} ms); artifact ({} bytes, shrunk from {}): {}",
            group.findings,
            group.cases,
            found.after_execs,
            found.after.as_secs_f64() * 1000.0,
            found.artifact.len(),
            found.found_len,
            path.display()
        );
        for word in oracles.judge(&found.finding, subject.as_mut()) {
            println!("# {word}");
        }
        if reproduced.is_ok() {
            println!(
                "# promote: rbv promote --target {} {}{}   (after a fix: --no-reproduce)",
                target.name,
                path.display(),
                subject_flags(&args.subject)
            );
            println!("---\n{yaml}");
        }
    }
    if !groups.is_empty() {
        print!(
            "{}",
            summary(&groups, outcome.findings(), args.max_findings)
        );
    }
    eprintln!(
        "rbv fuzz: {} execs in {:.1?} ({:.0} exec/s), {} finding(s), {} bug(s){}",
        outcome.execs,
        outcome.elapsed,
        outcome.execs_per_second(),
        outcome.findings(),
        groups.len(),
        match outcome.restarts {
            0 => String::new(),
            n => format!(", the implementation restarted {n} time(s)"),
        }
    );
    if args.json {
        let stats = serde_json::json!({
            "target": target.name,
            "subject": rbv_report::text::terminal(&subject.name()),
            "seed": args.seed,
            "execs": outcome.execs,
            "elapsed_ms": outcome.elapsed.as_secs_f64() * 1000.0,
            "execs_per_second": outcome.execs_per_second(),
            // One entry per bug, described by its representative.
            "findings": groups.iter().map(|g| {
                let f = g.representative;
                serde_json::json!({
                    "families": g.families,
                    "requirement": g.bug.requirement,
                    "difference": g.bug.difference,
                    "summary": rbv_report::text::terminal(&f.finding.summary),
                    "after_execs": f.after_execs,
                    "after_ms": f.after.as_secs_f64() * 1000.0,
                    "count": g.findings,
                    "cases": g.cases,
                    "input_bytes": f.artifact.len(),
                    "found_input_bytes": f.found_len,
                })
            }).collect::<Vec<_>>(),
            "bugs": groups.len(),
            "finding_execs": outcome.findings(),
            "productions": fired.keys().map(|(g, p)| format!("{g}/{p}")).collect::<Vec<_>>(),
        });
        println!("{stats}");
    }
    if let Some(why) = &outcome.died {
        eprintln!(
            "rbv fuzz: the implementation stopped answering ({}); the run is incomplete and proves nothing past that point",
            rbv_report::text::one_line(why, 400)
        );
        return Ok(ExitCode::from(super::EXIT_FAILED));
    }
    if outcome.execs == 0 {
        eprintln!("rbv fuzz: no exec ran: the run proves nothing");
        return Ok(ExitCode::from(super::EXIT_HARNESS));
    }
    Ok(if outcome.found.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}

/// Where `rbv fuzz` records the case a finding became, next to its bytes.
fn recorded_case(artifact: &std::path::Path) -> PathBuf {
    let mut name = artifact.as_os_str().to_owned();
    name.push(".yaml");
    PathBuf::from(name)
}

/// One line per bug (its families, rule, direction, how the answer differed, how
/// many findings and distinct shrunk cases), the ones past `shown` marked
/// as not kept.
fn summary(groups: &[Group<'_>], findings: u64, shown: usize) -> String {
    let mut out = format!("# {findings} finding(s), {} bug(s):\n", groups.len());
    for (i, g) in groups.iter().enumerate() {
        let kept = if i < shown {
            ""
        } else {
            "  (not kept: --max-findings)"
        };
        out.push_str(&format!(
            "#   {:<28} {:<12} {:<9} x{} in {} case(s): {}{kept}\n",
            rbv_report::text::terminal(&g.families.join(",")),
            g.bug.requirement,
            match g.bug.kind {
                FailKind::Under => "unsafe",
                FailKind::Over => "precision",
                FailKind::Mismatch => "mismatch",
            },
            g.findings,
            g.cases,
            rbv_report::text::terminal(&g.bug.difference),
        ));
    }
    out
}

/// The hint that shows a promoted case in the suite: the new file is in
/// `ROOT/cases`, not in the corpus built into rbv.
fn run_hint(root: &std::path::Path, case_id: &str) -> String {
    format!(
        "rbv run --cases {} --filter {case_id}",
        root.join("cases").display()
    )
}

/// `rbv fuzz --reach`: the map, and failure on a hole or a stale tag.
fn reach(args: &FuzzArgs) -> anyhow::Result<ExitCode> {
    let (name, text) = match &args.catalogue {
        Some(path) => (
            path.display().to_string(),
            std::fs::read_to_string(path).with_context(|| path.display().to_string())?,
        ),
        None => (
            format!("(embedded) cases/{}", rbv_cases::CATALOGUE),
            rbv_cases::get(rbv_cases::CATALOGUE)
                .context("the embedded corpus has no catalogue")?
                .to_owned(),
        ),
    };
    let catalogue: crate::case::requirements::Catalogue =
        serde_saphyr::from_str(&text).map_err(|e| anyhow!("{name}: {e}"))?;
    let grammar = crate::fuzz::reach_grammar::table(&crate::embedded::files())
        .map_err(|e| anyhow!("the embedded corpus: {e}"))?;
    let map = crate::fuzz::reach_map::measure(&catalogue, &grammar, args.max_execs.unwrap_or(3000));
    if args.json {
        println!("{}", serde_json::to_string_pretty(&map)?);
    } else {
        print!("{map}");
    }
    Ok(if map.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}

pub fn promote_cmd(args: PromoteArgs) -> anyhow::Result<ExitCode> {
    let target = target(&args.target)?;
    let bytes =
        std::fs::read(&args.artifact).with_context(|| args.artifact.display().to_string())?;
    if args.no_reproduce {
        let recorded = recorded_case(&args.artifact);
        let yaml = std::fs::read_to_string(&recorded).with_context(|| {
            format!(
                "{} (`rbv fuzz` records the case of each finding there; without it, promote against the failing implementation)",
                recorded.display()
            )
        })?;
        let promoted = crate::fuzz::promote::promote_recorded(target, &bytes, &yaml, &args.root)
            .map_err(|e| anyhow!(e))?;
        println!("wrote {}", promoted.case_path.display());
        println!("kept  {}", promoted.artifact_path.display());
        println!(
            "the reference passes it; run `{}` to see it in the suite",
            run_hint(&args.root, &promoted.case_id)
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut subject = subject(&args.subject)?;
    let promoted =
        promote(target, &bytes, subject.as_mut(), &args.root, &today()).map_err(|e| anyhow!(e))?;
    println!("{}", promoted.finding);
    println!("wrote {}", promoted.case_path.display());
    println!("kept  {}", promoted.artifact_path.display());
    // The new case must pass on the reference: rerun the target there.
    let mut reference = InProcess::new(None);
    let again =
        (target.check)(&mut arbitrary::Unstructured::new(&bytes), &mut reference).unwrap_or(None);
    if let Some(f) = again {
        bail!(
            "the reference fails its own promoted case — a bug in the reference or the oracle: {f}"
        );
    }
    println!(
        "the reference passes it; run `{}` to see it in the suite",
        run_hint(&args.root, &promoted.finding.case_id(&bytes))
    );
    Ok(ExitCode::SUCCESS)
}
