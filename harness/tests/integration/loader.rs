//! The case loader, the judge and execution, against small fixture trees
//! (`tests/data/loader/`) and a scripted fake implementation.

use rbv::case::{self, Action, Case, LoadError, Matcher, Suite};
use rbv_protocol::{Band, Capability};
use std::path::Path;
use std::time::{Duration, Instant};

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/loader")
        .join(name)
}

fn good() -> Suite {
    match case::load_dir(&data("good")) {
        Ok(suite) => suite,
        Err(errors) => panic!(
            "{}",
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

const CATALOGUE: &str = "requirements:\n  - {id: R-1, title: t, rule: r, section: \"§1\", level: MUST}\nprofiles:\n  - {key: rule_of_two_threshold, values: [2, 3], default: 2, section: \"§2.3\", description: d}\n";

fn load(files: &[(&str, &str)]) -> Result<Suite, Vec<LoadError>> {
    let mut all = vec![("REQUIREMENTS.yaml".to_owned(), CATALOGUE.to_owned())];
    all.extend(files.iter().map(|(p, s)| (p.to_string(), s.to_string())));
    case::load_files(&all)
}

fn errors(files: &[(&str, &str)]) -> Vec<LoadError> {
    match load(files) {
        Ok(_) => panic!("loaded without errors"),
        Err(e) => e,
    }
}

const HEAD: &str = "id: a/b\nrequirements: [R-1]\nsource: {proposal: \"§1\"}\n";

// ---------------------------------------------------------------- loading

#[test]
fn an_unknown_key_names_file_line_and_column() {
    let src = format!(
        "{HEAD}steps:\n  - evaluate: {{id: \"mcp:db/q\", kind: sql, arguments: {{sql: \"SELECT 1\"}}}}\n    expect: {{band: auto, colour: red}}\n"
    );
    let errs = errors(&[("sql/bad.yaml", &src)]);
    assert_eq!(errs.len(), 1, "{errs:?}");
    let e = &errs[0];
    assert_eq!(
        (e.path.as_str(), e.line, e.column),
        ("sql/bad.yaml", 6, 26),
        "{e}"
    );
    assert!(e.message.contains("colour"), "{e}");
    let shown = e.to_string();
    let mut lines = shown.lines();
    assert!(
        lines.next().unwrap().starts_with("sql/bad.yaml:6:26: "),
        "{shown}"
    );
    assert_eq!(
        lines.next().unwrap(),
        "        expect: {band: auto, colour: red}"
    );
    assert_eq!(lines.next().unwrap(), format!("    {}^", " ".repeat(25)));
}

#[test]
fn an_unknown_key_in_a_fixture_file_is_found_by_load_dir() {
    let errs = case::load_dir(&data("bad")).unwrap_err();
    let shown: Vec<String> = errs
        .iter()
        .map(|e| format!("{}:{}:{}", e.path, e.line, e.column))
        .collect();
    // Every bad file is reported, not only the first.
    assert_eq!(shown, ["one.yaml:4:1", "two.yaml:6:20"], "{errs:#?}");
    assert!(errs[0].message.contains("tagz"), "{}", errs[0]);
    assert!(errs[1].message.contains("Escalate"), "{}", errs[1]);
}

#[test]
fn a_wrong_type_points_at_the_value() {
    let src = format!("{HEAD}tags: bypass\nsteps:\n  - reset_session: {{}}\n");
    let e = &errors(&[("x.yaml", &src)])[0];
    assert_eq!((e.line, e.column), (4, 7), "{e}");
    assert!(e.message.contains("invalid type"), "{e}");
    let src = format!("{HEAD}steps:\n  - invoke: {{operation: {{id: \"mcp:a/b\"}}}}\n    expect: {{allowed: \"yes\"}}\n");
    let e = &errors(&[("x.yaml", &src)])[0];
    assert_eq!((e.line, e.column), (6, 23), "{e}");
}

#[test]
fn duplicate_ids_across_files_name_both_places() {
    let src = format!("{HEAD}steps:\n  - reset_session: {{}}\n");
    let errs = errors(&[
        ("a.yaml", &src),
        ("b.yaml", &format!("# again\n---\n{src}")),
    ]);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!((errs[0].path.as_str(), errs[0].line), ("b.yaml", 3));
    assert!(
        errs[0].message.contains("duplicate case id `a/b`") && errs[0].message.contains("a.yaml:1")
    );
}

#[test]
fn a_case_cannot_take_the_fuzz_campaigns_area() {
    // A report tells findings from cases by the `fuzz/` area; a case file
    // from a pull request must not pose as a finding (which binds like a
    // MUST) nor hide one.
    let src = "id: fuzz/url_loopback/0001\nrequirements: [R-1]\nsource: {proposal: \"§1\"}\nsteps:\n  - reset_session: {}\n";
    let errs = errors(&[("x.yaml", src)]);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!((errs[0].line, errs[0].column), (1, 5), "{}", errs[0]);
    assert!(errs[0].message.contains("`fuzz/` area"), "{}", errs[0]);
    // Only the area: an id that merely contains the word loads.
    let src = "id: regressions/fetch/fuzz-url_loopback-0001\nrequirements: [R-1]\nsource: {proposal: \"§1\"}\nsteps:\n  - reset_session: {}\n";
    assert!(load(&[("x.yaml", src)]).is_ok());
}

#[test]
fn semantic_errors_are_load_errors() {
    let step = |s: &str| format!("{HEAD}steps:\n{s}");
    let cases = [
        (
            step("  - validate_manifest: {fixture: nope}\n"),
            (5, 34),
            "unknown plugin fixture `nope`",
        ),
        (
            step("  - invoke: {operation: {id: \"mcp:a/b\"}, token: {capture: t}}\n"),
            (5, 49),
            "capture `t` is used before",
        ),
        (
            format!("{HEAD}profile: {{threshold: 2}}\nsteps: [{{reset_session: {{}}}}]\n"),
            (4, 11),
            "unknown profile key",
        ),
        (
            format!(
                "{HEAD}profile: {{rule_of_two_threshold: 4}}\nsteps: [{{reset_session: {{}}}}]\n"
            ),
            (4, 11),
            "no value 4",
        ),
        (
            step("  - project: {}\n    evaluate: {id: x}\n"),
            (6, 5),
            "exactly one action",
        ),
        (
            step("  - project: {}\n    expect: {granted: true}\n"),
            (6, 13),
            "`granted` does not apply",
        ),
        (
            "id: a/b\nrequirements: []\nsource: {note: x}\nsteps: [{reset_session: {}}]\n"
                .to_string(),
            (2, 15),
            "at least one requirement",
        ),
    ];
    for (src, (line, column), text) in cases {
        let errs = errors(&[("c.yaml", &src)]);
        assert_eq!(errs.len(), 1, "{src}\n{errs:?}");
        let e = &errs[0];
        assert_eq!((e.line, e.column), (line, column), "{src}\n{e}");
        assert!(e.message.contains(text), "{src}\n{e}");
    }
}

#[test]
fn a_broken_catalogue_or_fixture_is_reported_once() {
    let case = format!(
        "{HEAD}profile: {{rule_of_two_threshold: 3}}\nsteps:\n  - validate_manifest: {{fixture: p}}\n"
    );
    let files = [
        (
            "REQUIREMENTS.yaml".to_owned(),
            "requirements: [{id: R-1}]\nprofiles: []\n".to_owned(),
        ),
        (
            "plugins/p.yaml".to_owned(),
            "manifest: {}\nskills: nope\n".to_owned(),
        ),
        ("c.yaml".to_owned(), case),
    ];
    let errs = case::load_files(&files).unwrap_err();
    let shown: Vec<String> = errs
        .iter()
        .map(|e| format!("{}:{}: {}", e.path, e.line, e.message))
        .collect();
    assert_eq!(errs.len(), 3, "{shown:#?}");
    assert!(
        shown[0].starts_with("REQUIREMENTS.yaml:1: missing field `title`"),
        "{shown:#?}"
    );
    assert!(
        shown[1].starts_with("c.yaml:6: plugin fixture `p` has errors"),
        "{shown:#?}"
    );
    assert!(
        shown[2].starts_with("plugins/p.yaml:2: invalid type"),
        "{shown:#?}"
    );
}

#[test]
fn table_errors_name_table_row_and_position() {
    let table = |rows: &str| {
        format!(
            "table:\n  id: \"t/${{x}}\"\n  requirements: [R-1]\n  source: {{note: n}}\n  template:\n    steps:\n      - project: {{scope: \"${{scope}}\"}}\n  rows:\n{rows}"
        )
    };
    let e = &errors(&[(
        "t.yaml",
        &table("    - {x: a, scope: local}\n    - {x: b}\n"),
    )])[0];
    assert_eq!((e.line, e.column), (7, 26), "{e}");
    assert!(
        e.message
            .starts_with("table `t/${x}` row 2: undefined variable `scope`"),
        "{e}"
    );
    let e = &errors(&[("t.yaml", &table("    - {x: a, scope: local, extra: 1}\n"))])[0];
    assert_eq!((e.line, e.column), (9, 28), "{e}");
    assert!(
        e.message
            .contains("row 1: row variable `extra` is used by no placeholder"),
        "{e}"
    );
    // A bad row value is reported where the row writes it.
    let e = &errors(&[("t.yaml", &table("    - {x: a, scope: Local}\n"))])[0];
    assert_eq!((e.line, e.column), (9, 21), "{e}");
}

#[test]
fn an_18_row_table_expands_to_18_typed_cases() {
    let suite = good();
    let projection: Vec<&Case> = suite
        .cases
        .iter()
        .filter(|c| c.area() == "projection")
        .collect();
    assert_eq!(projection.len(), 18);
    let first = suite
        .case("projection/reversible-local-trusted")
        .expect("expanded id");
    assert_eq!(first.tags, ["projection", "precision"]);
    assert_eq!(first.origin.row, Some(1));
    assert_eq!(first.origin.line, 12);
    let Action::Project(p) = &first.steps[0].action else {
        panic!("{:?}", first.steps[0])
    };
    assert_eq!(p.scope, Some(rbv_protocol::Scope::Local));
    assert_eq!(first.steps[0].expect.band, Some(Matcher::Exact(Band::Auto)));
    let last = suite
        .case("projection/irreversible-external-untrusted")
        .unwrap();
    assert_eq!(last.title.as_deref(), Some("The worst corner"));
    assert_eq!(last.requirements, ["RBV-PRJ-001", "RBV-R2-001"]);
    assert!(last.needs.contains(&Capability::Projection));
    // Typed substitution also for non-strings.
    let src = "table:\n  id: \"n/${n}\"\n  requirements: [R-1]\n  source: {note: n}\n  template:\n    steps:\n      - concurrent: [{invoke: {operation: {id: \"mcp:a/b\"}}}, {invoke: {operation: {id: \"mcp:a/b\"}}}]\n        expect: {allowed_count: \"${n}\"}\n  rows: [{n: 0}, {n: 2}]\n";
    let suite = load(&[("n.yaml", src)]).unwrap();
    assert_eq!(suite.cases[1].steps[0].expect.allowed_count, Some(2));
}

#[test]
fn hostile_yaml_is_rejected_quickly_without_overflowing() {
    let mut bomb = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let prev = format!("*a{}", i - 1);
        bomb.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            [prev.as_str(); 9].join(", ")
        ));
    }
    let started = Instant::now();
    let errs = case::load_files(&[("bomb.yaml".into(), bomb)]).unwrap_err();
    assert_eq!(errs[0].path, "bomb.yaml");
    assert!(
        errs[0].message.contains("alias replay limit"),
        "{}",
        errs[0]
    );
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let errs = case::load_files(&[("deep.yaml".into(), deep)]).unwrap_err();
    assert_eq!(errs[0].path, "deep.yaml");
    assert!(errs[0].message.contains("recursion limit"), "{}", errs[0]);
    let deep_block = format!("{}x\n", "- ".repeat(10_000));
    let errs = case::load_files(&[("block.yaml".into(), deep_block)]).unwrap_err();
    assert_eq!(errs[0].path, "block.yaml");
    assert!(errs[0].message.contains("Depth"), "{}", errs[0]);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn needs_are_derived_from_steps() {
    let suite = good();
    let replay = suite.case("tokens/replay-is-blocked").unwrap();
    assert_eq!(
        replay.needs,
        [Capability::Manifest, Capability::Tokens].into()
    );
    let declared = suite.case("manifest/declared-floor").unwrap();
    assert_eq!(
        declared.needs,
        [Capability::Manifest, Capability::Audit].into()
    );
    let r2 = suite.case("rule-of-two/threshold-three").unwrap();
    assert_eq!(r2.needs, [Capability::RuleOfTwo, Capability::Shell].into());
    assert_eq!(replay.plugins.len(), 1);
    assert_eq!(replay.plugins[0].manifest["name"], "db-tools");
}

#[test]
fn a_workspace_is_absolute_and_needs_its_capability() {
    let step = |s: &str| format!("{HEAD}steps:\n{s}");
    for (src, line) in [
        (step("  - set_policy: {workspace: {root: srv/app}}\n"), 5),
        (
            step("  - evaluate:\n      id: \"client:shell\"\n      workspace: {root: /srv/app, cwd: web}\n"),
            7,
        ),
    ] {
        let errs = errors(&[("c.yaml", &src)]);
        assert_eq!(errs.len(), 1, "{src}\n{errs:?}");
        assert_eq!(errs[0].line, line, "{}", errs[0]);
        assert!(errs[0].message.contains("not an absolute path"), "{}", errs[0]);
    }
    let session = step("  - set_policy: {workspace: {root: /srv/app}}\n");
    let call = step(
        "  - evaluate: {id: \"client:shell\", kind: shell, arguments: {command: make}, workspace: {root: /srv/app}}\n",
    );
    for (src, needs) in [
        (session, vec![Capability::Workspace]),
        (call, vec![Capability::Shell, Capability::Workspace]),
    ] {
        let suite = load(&[("c.yaml", &src)]).unwrap_or_else(|e| panic!("{e:?}"));
        let case = suite.case("a/b").unwrap();
        assert_eq!(case.needs, needs.into_iter().collect(), "{src}");
    }
}

#[path = "loader/execution.rs"]
mod execution;

#[path = "loader/features.rs"]
mod features;

#[path = "loader/defects.rs"]
mod defects;

// ---------------------------------------------------------------- lint

#[test]
fn lint_reports_coverage_and_problems() {
    let report = case::lint(&good());
    let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    // The declared-floor case guards the unsafe side (`declared: null`), the
    // table guards both; every MUST has a case.
    assert!(errors.is_empty(), "{errors:#?}");
    let prj = report
        .coverage
        .iter()
        .find(|c| c.id == "RBV-PRJ-001")
        .unwrap();
    assert_eq!((prj.unsafe_cases, prj.precision_cases), (17, 4));
    assert!(
        report
            .to_string()
            .contains("| RBV-PRJ-001 | MUST | 17 | 4 |"),
        "{report}"
    );
    let tok = report
        .coverage
        .iter()
        .find(|c| c.id == "RBV-TOK-001")
        .unwrap();
    assert_eq!(tok.unsafe_cases, 2);
    assert!(report
        .warnings
        .iter()
        .any(|w| w.subject == "RBV-TOK-001" && w.message.contains("unsafe-side")));

    let catalogue = "requirements:\n  - {id: R-1, title: t, rule: r, section: \"§1\", level: MUST}\n  - {id: R-2, title: t, rule: r, section: \"§1\", level: INTERPRETATION}\n";
    let files = [
        ("REQUIREMENTS.yaml".to_owned(), catalogue.to_owned()),
        (
            "x.yaml".to_owned(),
            "id: x/only-precision\nrequirements: [R-9]\nsource: {note: n}\nsteps:\n  - project: {}\n    expect: {band: auto}\n".to_owned(),
        ),
    ];
    let report = case::lint(&case::load_files(&files).unwrap());
    let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("unknown requirement `R-9`")),
        "{errors:#?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("guards only precision")),
        "{errors:#?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("R-1: a MUST requirement with no case")),
        "{errors:#?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("R-2: an INTERPRETATION needs")),
        "{errors:#?}"
    );
    assert!(!report.is_ok());
}

/// The real suite must load once it exists.
#[test]
fn the_real_cases_directory_loads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    if !root.join(case::CATALOGUE).exists() {
        return;
    }
    if let Err(errors) = case::load_dir(&root) {
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!("{} load errors:\n{}", errors.len(), shown.join("\n"));
    }
}

/// A case that needs no capability runs against every implementation, so
/// its steps may only be requests every implementation answers in kind.
#[test]
fn lint_refuses_a_base_case_that_sends_a_claimed_request() {
    let catalogue =
        "requirements:\n  - {id: R-1, title: t, rule: r, section: \"§1\", level: MUST}\n";
    let case = |steps: &str| {
        let files = [
            ("REQUIREMENTS.yaml".to_owned(), catalogue.to_owned()),
            (
                "x.yaml".to_owned(),
                format!("id: x/base\nrequirements: [R-1]\nsource: {{note: n}}\nreason: r\nsteps:\n{steps}"),
            ),
        ];
        let report = case::lint(&case::load_files(&files).unwrap());
        report
            .errors
            .iter()
            .map(ToString::to_string)
            .filter(|e| e.contains("needs no capability"))
            .collect::<Vec<_>>()
    };
    let evaluate = case("  - reset_session: {}\n  - evaluate: {id: \"client:notes\"}\n");
    assert!(
        evaluate.len() == 1 && evaluate[0].contains("step 2 sends `evaluate`"),
        "{evaluate:#?}"
    );
    let event = case("  - record_event: {kind: state_change}\n");
    assert!(event.len() == 1, "{event:#?}");
    let raw = case("  - send_raw: '{\"id\":$ID,\"session\":\"$SESSION\",\"type\":\"evaluate\"}'\n    expect: {type: error}\n  - reset_session: {}\n");
    assert!(raw.is_empty(), "{raw:#?}");
    let declared = "  - evaluate: {id: \"client:notes\"}\nneeds: [manifest]\n";
    assert!(case(declared).is_empty());
}
