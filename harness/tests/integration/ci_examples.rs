//! The CI examples of `docs/ci/` parse, hold what their README promises, and
//! use only flags rbv has. (actionlint and the SchemaStore schemas lint them
//! in `.ci/run`; this check needs nothing but the workspace.)

use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/ci");

fn yaml(name: &str) -> (String, Value) {
    let text = std::fs::read_to_string(format!("{DIR}/{name}")).unwrap();
    let value: Value = serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    (text, value)
}

fn steps(workflow: &Value, job: &str) -> Vec<Value> {
    workflow["jobs"][job]["steps"].as_array().unwrap().clone()
}

/// Every `uses:` names an action at a version (`owner/repo@v4`) or a local path.
fn pinned(workflow: &Value) {
    for job in workflow["jobs"].as_object().unwrap().values() {
        let uses = job["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["uses"].as_str())
            .chain(job["uses"].as_str());
        for u in uses {
            assert!(
                u.starts_with("./") || u.split_once('@').is_some_and(|(_, v)| !v.is_empty()),
                "unpinned action {u}"
            );
        }
    }
}

/// The `--flags` given to `rbv run` in a text (on lines that build its
/// arguments) are flags `rbv run --help` documents.
fn run_flags_exist(name: &str, text: &str) {
    let help = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(["run", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let mut flags = BTreeSet::new();
    for line in text
        .lines()
        .filter(|l| l.contains("rbv run") || l.contains("args=(run") || l.contains("args+=(--"))
    {
        for word in line.split(|c: char| c.is_whitespace() || c == '(' || c == ')') {
            if word.starts_with("--") && word.len() > 2 {
                flags.insert(word.to_owned());
            }
        }
    }
    assert!(
        flags.contains("--impl") && flags.contains("--report"),
        "{name}: {flags:?}"
    );
    for flag in flags {
        assert!(
            help.contains(&format!("{flag} ")) || help.contains(&format!("{flag}\n")),
            "{name}: rbv run has no {flag}"
        );
    }
}

#[test]
fn the_reusable_workflow_takes_the_documented_inputs_and_does_each_job() {
    let (text, w) = yaml("rbv-certify.yml");
    let call = &w["on"]["workflow_call"];
    assert!(
        call.is_object(),
        "`on: workflow_call` (a reusable workflow)"
    );
    let inputs = call["inputs"].as_object().unwrap();
    for name in [
        "adapter-command",
        "capabilities",
        "baseline-report",
        "rbv-version",
        "rbv-ref",
        "known-failures",
        "fuzz",
        "fuzz-seed",
        "fuzz-execs",
    ] {
        assert!(inputs.contains_key(name), "input {name}");
        let readme = std::fs::read_to_string(format!("{DIR}/README.md")).unwrap();
        assert!(
            readme.contains(&format!("`{name}`")),
            "README.md documents input {name}"
        );
    }
    assert_eq!(inputs["adapter-command"]["required"], true);
    for (name, input) in inputs {
        assert!(input["description"].is_string(), "{name} has a description");
        assert!(input["type"].is_string(), "{name} has a type");
    }
    pinned(&w);
    let steps = steps(&w, "certify");
    let uses: Vec<&str> = steps.iter().filter_map(|s| s["uses"].as_str()).collect();
    for action in [
        "actions/checkout@",
        "actions/upload-artifact@",
        "actions/github-script@",
    ] {
        assert!(uses.iter().any(|u| u.starts_with(action)), "uses {action}");
    }
    let runs: String = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    for needle in [
        "cargo install",
        "rbv diff",
        "--validate-protocol",
        "--fuzz \"$FUZZ\"",
        "exit \"$failed\"",
    ] {
        assert!(runs.contains(needle), "a step runs {needle}");
    }
    // The comment and the gate run after a failing run too.
    for name in [
        "Upload the report",
        "Fail on a failing run, a regression or a missing capability",
    ] {
        let step = steps.iter().find(|s| s["name"] == name).unwrap();
        assert!(step["if"].as_str().unwrap().contains("always()"), "{name}");
    }
    assert_eq!(
        w["jobs"]["certify"]["permissions"]["pull-requests"],
        "write"
    );
    run_flags_exist("rbv-certify.yml", &text);
}

#[test]
fn the_example_caller_calls_the_reusable_workflow() {
    let (_, w) = yaml("example-caller.yml");
    pinned(&w);
    let job = &w["jobs"]["certify"];
    assert_eq!(job["uses"], "./.github/workflows/rbv-certify.yml");
    assert!(job["with"]["adapter-command"].is_string());
    let (_, reusable) = yaml("rbv-certify.yml");
    let known = reusable["on"]["workflow_call"]["inputs"]
        .as_object()
        .unwrap();
    for key in job["with"].as_object().unwrap().keys() {
        assert!(
            known.contains_key(key),
            "the reusable workflow has no input {key}"
        );
    }
}

#[test]
fn the_gitlab_example_publishes_junit_and_gates_on_run_and_diff() {
    let (text, g) = yaml("gitlab-ci.yml");
    let job = &g["rbv"];
    assert_eq!(job["artifacts"]["reports"]["junit"], "rbv-report/junit.xml");
    assert_eq!(job["artifacts"]["when"], "always");
    let script: Vec<&str> = job["script"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let all = script.join("\n");
    for needle in [
        "cargo install",
        "rbv run --impl",
        "rbv diff",
        "merge_requests/$CI_MERGE_REQUEST_IID/notes",
    ] {
        assert!(all.contains(needle), "the script runs {needle}");
    }
    assert!(
        script.last().unwrap().contains("run_status")
            && script.last().unwrap().contains("diff_status")
    );
    run_flags_exist("gitlab-ci.yml", &text);
}

#[test]
fn every_yaml_file_in_docs_ci_parses_and_has_jobs() {
    let mut seen = 0;
    for entry in std::fs::read_dir(DIR).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if !(name.ends_with(".yml") || name.ends_with(".yaml")) {
            continue;
        }
        let (_, v) = yaml(&name);
        if name.starts_with("gitlab") {
            assert!(
                v.as_object()
                    .unwrap()
                    .values()
                    .any(|j| j["script"].is_array()),
                "{name}: a job"
            );
        } else {
            assert!(
                v["jobs"].as_object().is_some_and(|j| !j.is_empty()),
                "{name}: jobs"
            );
            assert!(
                v["on"].is_object() || v["on"].is_string() || v["on"].is_array(),
                "{name}: on"
            );
            pinned(&v);
        }
        seen += 1;
    }
    assert!(seen >= 4, "{seen} YAML files");
}
