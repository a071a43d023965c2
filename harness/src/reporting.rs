//! Glue between a run and `rbv-report`: turning cases, their runs and the
//! handshake into the report model, applying a baseline, and the work of
//! `rbv compare`, `rbv diff` and `rbv baseline`.
//!
//! What the runner calls, after `runner::run`:
//!
//! ```ignore
//! let started = std::time::SystemTime::now();            // before runner::run
//! let outcome = runner::run(&suite.cases, &target, &options);
//! let mut record = reporting::RunRecord::new(&suite, &outcome, started);
//! record.cases_sha256 = args.cases.digest()?;
//! if let Some(path) = &args.baseline {                   // `--baseline FILE`
//!     record.baseline = Some(reporting::load_baseline(path)?);
//! }
//! let report = reporting::write_report(&dir, &record)?;  // `--report DIR`
//! // exit 1 when `report.summary.run_failed` (failures not in the baseline,
//! // or a stale baseline entry), else 0.
//! ```
//!
//! Without `--report`, `reporting::build_report(&record)` gives the same
//! `Report` without writing files.
//!
//! The CLI of `rbv compare`, `rbv diff` and `rbv baseline` is in
//! `cli/report_cmds.rs`: `CompareArgs`/`compare`, `DiffArgs`/`diff`,
//! `BaselineArgs`/`baseline`, each `fn(Args) -> anyhow::Result<ExitCode>`.

use crate::case::{answers_to, reasons_to, Case, Exchange, Suite};
use crate::runner::RunOutcome;
use crate::transport::Identity;
use crate::verdict::Verdict;
use anyhow::Context;
use rbv_report::compare::Matrix;
use rbv_report::diff::ReportDiff;
use rbv_report::model as m;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

pub use rbv_report::{Baseline, BaselineEntry, BaselineStatus, Report};

/// One case as the run ended it.
#[derive(Clone, Debug)]
pub struct CaseRecord<'a> {
    pub case: &'a Case,
    /// Borrowed from a run's outcome ([`RunRecord::new`]), or owned
    /// ([`RunRecord::taking`]), which the report then moves its text out of.
    pub verdict: Cow<'a, Verdict>,
    /// The exchanges a report shows; `None` when the case never reached
    /// an implementation.
    pub exchanges: Option<Cow<'a, [Exchange]>>,
    pub duration: Duration,
}

/// Everything a report is made of.
#[derive(Clone, Debug)]
pub struct RunRecord<'a> {
    /// The handshake; `None` when no connection succeeded.
    pub identity: Option<&'a Identity>,
    /// What was run (a command line); names the implementation when there
    /// was no handshake.
    pub target: String,
    pub suite: &'a Suite,
    pub cases: Vec<CaseRecord<'a>>,
    pub started: SystemTime,
    pub elapsed: Duration,
    /// See [`suite_digest`]; empty when unknown.
    pub cases_sha256: String,
    /// Applied by [`write_report`] and [`build_report`] when present.
    pub baseline: Option<Baseline>,
    /// How the run was made; see [`conditions`]. Without them the report
    /// cannot tell a filtered run from a whole one.
    pub conditions: Option<m::Conditions>,
    /// The fuzz campaign run after the cases (`rbv run --fuzz`).
    pub campaign: Option<m::Campaign>,
}

impl<'a> RunRecord<'a> {
    /// The record of a runner outcome; a result whose case is not in
    /// `suite` is left out (the runner only runs the suite's cases).
    pub fn new(suite: &'a Suite, outcome: &'a RunOutcome, started: SystemTime) -> Self {
        let cases = outcome
            .results
            .iter()
            .filter_map(|r| {
                Some(CaseRecord {
                    case: suite.case(&r.id)?,
                    verdict: Cow::Borrowed(&r.verdict),
                    exchanges: r.exchanges.as_deref().map(Cow::Borrowed),
                    duration: r.duration,
                })
            })
            .collect();
        RunRecord {
            identity: outcome.identity.as_ref(),
            target: outcome.target.clone(),
            suite,
            cases,
            started,
            elapsed: outcome.elapsed,
            cases_sha256: String::new(),
            baseline: None,
            conditions: None,
            campaign: None,
        }
    }

    /// The record of a runner outcome whose results it takes (leaving
    /// `outcome.results` empty), so that [`into_report`] frees each result
    /// as it turns it into the report's: with large answers, holding both
    /// at once was a run's peak memory.
    pub fn taking(suite: &'a Suite, outcome: &'a mut RunOutcome, started: SystemTime) -> Self {
        let results = std::mem::take(&mut outcome.results);
        let outcome: &'a RunOutcome = outcome;
        let mut record = RunRecord::new(suite, outcome, started);
        record.cases = results
            .into_iter()
            .filter_map(|r| {
                Some(CaseRecord {
                    case: suite.case(&r.id)?,
                    verdict: Cow::Owned(r.verdict),
                    exchanges: r.exchanges.map(Cow::Owned),
                    duration: r.duration,
                })
            })
            .collect();
        record
    }
}

/// The suite's fingerprint: sha256 of the case files' contents (every
/// `*.yaml`/`*.yml` under `cases_dir`, or the embedded corpus for `None`).
pub fn suite_digest(cases_dir: Option<&Path>) -> anyhow::Result<String> {
    let contents: Vec<Vec<u8>> = match cases_dir {
        None => crate::embedded::files()
            .into_iter()
            .map(|(_, text)| text.into_bytes())
            .collect(),
        Some(dir) => {
            // The same files the loader read, read the same careful way
            // (the entries it could not read were errors of the load).
            let (files, _unread) = crate::case::files::read_tree(dir);
            files
                .into_iter()
                .map(|(_, text)| text.into_bytes())
                .collect()
        }
    };
    Ok(rbv_report::cases_sha256(contents))
}

fn implementation(run: &RunRecord) -> m::Implementation {
    match run.identity {
        Some(id) => {
            let hs = &id.handshake;
            m::Implementation {
                name: hs.implementation.name.clone(),
                version: hs.implementation.version.clone(),
                protocol_version: hs.protocol_version,
                capabilities: hs.capabilities.clone(),
                profile: hs.profile.clone(),
            }
        }
        None => m::Implementation {
            name: run.target.clone(),
            version: "(no handshake)".to_owned(),
            protocol_version: 0,
            capabilities: Vec::new(),
            profile: BTreeMap::new(),
        },
    }
}

/// Why a case was skipped, decided the way the case engine decides to skip:
/// a missing capability first, then the profile.
fn skip_cause(case: &Case, identity: Option<&Identity>) -> m::SkipCause {
    let missing = identity.is_none_or(|id| !case.needs.is_subset(&id.capabilities));
    if missing {
        m::SkipCause::Capability
    } else if !case.profile.is_empty() {
        m::SkipCause::Profile
    } else {
        m::SkipCause::Other
    }
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// The requests the deciding step sent (several for a `concurrent` step).
fn requests_of(exchanges: Option<&[Exchange]>, step: usize) -> Option<String> {
    let sent: Vec<String> = exchanges?
        .iter()
        .filter(|e| e.step == step)
        .map(|e| pretty(&e.request_value()))
        .collect();
    (!sent.is_empty()).then(|| sent.join("\n"))
}

fn capped(mut text: String, max: usize) -> String {
    rbv_report::text::cap(&mut text, max);
    text
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

fn filled(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

fn case_result(rec: CaseRecord, run: &RunRecord) -> m::CaseResult {
    let case = rec.case;
    let catalogue = &run.suite.catalogue;
    let exchanges = rec.exchanges.as_deref();
    let verdict = match rec.verdict.as_ref() {
        Verdict::Pass => m::Verdict::Pass,
        Verdict::Fail(f) => m::Verdict::Fail { kind: f.kind },
        Verdict::Skip { reason } => m::Verdict::Skip {
            reason: reason.clone(),
            cause: skip_cause(case, run.identity),
        },
        Verdict::Error(e) => m::Verdict::Error { kind: e.kind },
    };
    let guards = case.guards();
    let mut out = m::CaseResult::new(case.id.clone(), verdict);
    out.title = case.title.clone();
    out.requirements = case
        .requirements
        .iter()
        .map(|id| m::RequirementRef {
            id: id.clone(),
            level: catalogue.requirement(id).map(|r| r.level),
        })
        .collect();
    out.tags = case.tags.clone();
    out.needs = case.needs.iter().map(|c| c.as_str().to_owned()).collect();
    out.guards = guards;
    out.duration_ms = rec.duration.as_secs_f64() * 1000.0;
    match rec.verdict.into_owned() {
        Verdict::Fail(f) => {
            out.step = Some(f.step);
            out.message = Some(f.message);
            out.request = requests_of(exchanges, f.step);
            out.expected = filled(f.expected);
            out.observed = filled(f.observed);
            out.diff = filled(f.diff);
        }
        Verdict::Error(e) => {
            out.step = e.step;
            out.message = Some(e.message);
            out.request = e.step.and_then(|s| requests_of(exchanges, s));
            out.line = e.line;
            out.stderr_tail = filled(e.stderr_tail);
        }
        Verdict::Pass | Verdict::Skip { .. } => {}
    }
    if let (Some(exchanges), Some(step)) = (exchanges, out.step) {
        let answers: Vec<String> = answers_to(exchanges, step).map(pretty).collect();
        if !answers.is_empty() {
            out.answer = Some(capped(answers.join("\n"), m::MAX_ANSWER));
        }
        out.reasons = reasons_to(exchanges, step)
            .take(m::MAX_REASONS)
            .map(|r| capped(r.to_owned(), m::MAX_REASON))
            .collect();
    }
    if out.verdict.is_failure() {
        out.counts_against = case
            .counts_against(out.step, catalogue)
            .into_iter()
            .collect();
    }
    out
}

/// The report of a run, with its baseline applied when it has one.
pub fn build_report(run: &RunRecord) -> Report {
    into_report(run.clone())
}

/// [`build_report`] of a record it consumes: each case's result is freed
/// once the report's is made (see [`RunRecord::taking`]).
pub fn into_report(mut run: RunRecord) -> Report {
    let catalogue = run
        .suite
        .catalogue
        .requirements
        .iter()
        .map(|r| {
            let info = m::RequirementInfo {
                level: r.level,
                title: non_empty(&r.title),
                section: non_empty(&r.section),
            };
            (r.id.clone(), info)
        })
        .collect();
    let suite = m::SuiteInfo {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        cases_sha256: run.cases_sha256.clone(),
    };
    let records = std::mem::take(&mut run.cases);
    let cases = records.into_iter().map(|c| case_result(c, &run)).collect();
    let mut report = Report::assemble(
        suite,
        implementation(&run),
        catalogue,
        cases,
        run.started,
        run.elapsed.as_secs_f64() * 1000.0,
    );
    if let Some(c) = run.conditions {
        report = report.with_conditions(c);
    }
    if let Some(c) = run.campaign {
        report = report.with_campaign(c);
    }
    if let Some(b) = &run.baseline {
        rbv_report::apply_baseline(&mut report, b);
    }
    report
}

/// Builds the report (baseline applied) and writes every format into
/// `dir`: report.json, report.schema.json, junit.xml, summary.md,
/// report.html, badge.svg. Returns the report; the run fails when
/// `report.summary.run_failed`.
pub fn write_report(dir: &Path, run: &RunRecord) -> anyhow::Result<Report> {
    let report = build_report(run);
    let _unit = crate::transport::interrupt::defer_exit();
    rbv_report::write_all(&report, dir)
        .with_context(|| format!("writing the report into {}", dir.display()))?;
    Ok(report)
}

/// What a run's report records about how it was made, beyond the
/// handshake: `command` is what ran, `suite_cases` the cases before
/// filtering.
#[derive(Clone, Debug)]
pub struct RunSettings<'a> {
    pub command: &'a str,
    pub mode: m::RunMode,
    pub filters: &'a [String],
    pub validate_protocol: bool,
    pub timeout: Duration,
    pub jobs: usize,
    /// The built-in reference restarted with each case's profile.
    pub profile_per_case: bool,
    pub suite_cases: usize,
}

/// The conditions of a run, for [`RunRecord::conditions`].
pub fn conditions(settings: &RunSettings) -> m::Conditions {
    m::Conditions {
        rbv_version: env!("CARGO_PKG_VERSION").to_owned(),
        command: settings.command.to_owned(),
        mode: settings.mode,
        filters: settings.filters.to_vec(),
        validate_protocol: settings.validate_protocol,
        timeout_ms: u64::try_from(settings.timeout.as_millis()).unwrap_or(u64::MAX),
        jobs: settings.jobs,
        profile_source: if settings.profile_per_case {
            "per-case"
        } else {
            "handshake"
        }
        .to_owned(),
        platform: format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
        suite_cases: settings.suite_cases,
        known_capabilities: rbv_protocol::Capability::ALL
            .iter()
            .map(|c| c.as_str().to_owned())
            .collect(),
    }
}

/// Reads a baseline file (YAML, or JSON for `.json`).
pub fn load_baseline(path: &Path) -> anyhow::Result<Baseline> {
    Ok(Baseline::load(path)?)
}

/// Marks the report's cases the baseline lists (known failure, or stale
/// when the case passes) and recomputes the summary.
pub fn apply_baseline(report: &mut Report, baseline: &Baseline) -> BaselineStatus {
    rbv_report::apply_baseline(report, baseline)
}

/// Reads a `report.json`.
pub fn load_report(path: &Path) -> anyhow::Result<Report> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Report::from_json(&text)
        .with_context(|| format!("{} is not an rbv report.json", path.display()))
}

/// `rbv compare`: the interop matrix of several reports. With `out`,
/// writes `compare.md` and `compare.html` there; returns the Markdown.
pub fn compare_reports(paths: &[PathBuf], out: Option<&Path>) -> anyhow::Result<String> {
    if paths.len() < 2 {
        anyhow::bail!("compare needs at least two reports");
    }
    let reports = paths
        .iter()
        .map(|p| load_report(p))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let matrix = Matrix::build(&reports);
    let markdown = matrix.to_markdown();
    if let Some(dir) = out {
        let files = [
            ("compare.md", markdown.clone().into_bytes()),
            ("compare.html", matrix.to_html().into_bytes()),
        ];
        rbv_report::files::write_unit(dir, &files)
            .with_context(|| format!("writing into {}", dir.display()))?;
    }
    Ok(markdown)
}

/// `rbv diff`: what changed from `old` to `new`, as Markdown, and whether
/// the new run regressed (a newly failing case, a lower level, a case
/// missing from it, or a capability it no longer claims).
pub fn diff_reports(old: &Path, new: &Path) -> anyhow::Result<(String, bool)> {
    let d = ReportDiff::between(&load_report(old)?, &load_report(new)?);
    Ok((d.to_markdown(), d.regressed()))
}

/// `rbv baseline --update`: the baseline the run `from` asks for, keeping
/// the reasons of the entries already in `out` (if it exists), written to
/// `out`. Returns the new baseline.
pub fn update_baseline(from: &Path, out: &Path) -> anyhow::Result<Baseline> {
    let report = load_report(from)?;
    let existing = if out.exists() {
        load_baseline(out)?
    } else {
        Baseline::default()
    };
    let updated = existing.update_from(&report);
    updated.save(out)?;
    Ok(updated)
}
