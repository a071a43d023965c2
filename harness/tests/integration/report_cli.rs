//! `rbv compare`, `rbv diff` and `rbv baseline` through their clap
//! arguments.

use clap::{Parser, Subcommand};
use rbv::cli::report_cmds;
use rbv_report::model::*;
use std::path::Path;
use std::process::ExitCode;
use std::time::SystemTime;

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    Compare(report_cmds::CompareArgs),
    Diff(report_cmds::DiffArgs),
    Baseline(report_cmds::BaselineArgs),
}

fn rbv(args: &[&str]) -> anyhow::Result<ExitCode> {
    let cli = Cli::try_parse_from(std::iter::once("rbv").chain(args.iter().copied()))?;
    match cli.command {
        Cmd::Compare(a) => report_cmds::compare(a),
        Cmd::Diff(a) => report_cmds::diff(a),
        Cmd::Baseline(a) => report_cmds::baseline(a),
    }
}

fn write(dir: &Path, name: &str, fail: Option<&str>) -> String {
    let ids = ["sql/a", "sql/b", "shell/c"];
    let cases = ids
        .iter()
        .map(|id| {
            let v = if Some(*id) == fail {
                Verdict::Fail {
                    kind: FailKind::Under,
                }
            } else {
                Verdict::Pass
            };
            let mut c = CaseResult::new(*id, v);
            c.guards.unsafe_side = true;
            c
        })
        .collect();
    let implementation = Implementation {
        name: name.to_owned(),
        version: "1".to_owned(),
        protocol_version: 1,
        capabilities: vec![],
        profile: Default::default(),
    };
    let suite = SuiteInfo {
        version: "0".to_owned(),
        cases_sha256: String::new(),
    };
    let report = Report::assemble(
        suite,
        implementation,
        Default::default(),
        cases,
        SystemTime::now(),
        1.0,
    );
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, rbv_report::render::json::render(&report).unwrap()).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn compare_diff_and_baseline_run_from_their_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "alpha", None);
    let b = write(dir.path(), "beta", Some("sql/b"));

    assert!(rbv(&["compare", &a]).is_err(), "compare needs two reports");
    let out = dir.path().join("matrix");
    let code = rbv(&["compare", &a, &b, "--out", out.to_str().unwrap()]).unwrap();
    assert_eq!(code, ExitCode::SUCCESS);
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    assert!(md.contains("| sql/b | pass | under |"), "{md}");
    assert!(std::fs::read_to_string(out.join("compare.html"))
        .unwrap()
        .contains("sql/b"));

    assert_eq!(
        rbv(&["diff", &a, &b]).unwrap(),
        ExitCode::from(1),
        "a newly failing case"
    );
    assert_eq!(rbv(&["diff", &b, &a]).unwrap(), ExitCode::SUCCESS, "a fix");

    let file = dir.path().join("known.yaml");
    assert!(
        rbv(&["baseline", "--from", &b, "--out", file.to_str().unwrap()]).is_err(),
        "--update is required"
    );
    rbv(&[
        "baseline",
        "--update",
        "--from",
        &b,
        "--out",
        file.to_str().unwrap(),
    ])
    .unwrap();
    let written = rbv_report::Baseline::load(&file).unwrap();
    assert_eq!(
        written
            .entries()
            .map(|e| e.case.as_str())
            .collect::<Vec<_>>(),
        ["sql/b"]
    );
    assert!(rbv(&[
        "diff",
        &a,
        dir.path().join("missing.json").to_str().unwrap()
    ])
    .is_err());
}
