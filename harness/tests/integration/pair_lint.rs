//! `rbv lint` on the pairwise interaction table, against small trees: the
//! pairs come from the catalogue's `contributors` and paths; a pair no
//! judged step covers fails unless the requirement declares it `unpaired`
//! with a reason; a case that sets both features up but judges them on
//! different operations covers nothing; an unknown contributor is refused.

use rbv::case::{self, pairs};

fn catalogue(contributors: &str, unpaired: &str) -> String {
    format!(
        "requirements:\n  - {{id: R-1, title: t, rule: r, section: \"§1\", level: INTERPRETATION, \
         rationale: why, capability: manifest, safe_side: true, paths: [evaluate], \
         contributors: {contributors}{unpaired}}}\n"
    )
}

/// A declared soft-ack raised to escalate by a policy floor for the same
/// operation: both bear on the judged step.
const BOTH: &str = "id: p/declared-raised-by-policy\nrequirements: [R-1]\nsource: {note: n}\n\
plugins: [{manifest: {name: p, version: 1.0.0, permissions: {operations: [{id: \"mcp:p/x\", band: soft-ack}]}}}]\n\
steps:\n  - set_policy: {floors: {\"mcp:p/x\": escalate}}\n  - evaluate: {plugin: p, id: \"mcp:p/x\"}\n    expect: {band: escalate}\n";

/// The floor names another operation than the one judged.
const APART: &str = "id: p/floor-elsewhere\nrequirements: [R-1]\nsource: {note: n}\n\
plugins: [{manifest: {name: p, version: 1.0.0, permissions: {operations: [{id: \"mcp:p/x\", band: soft-ack}]}}}]\n\
steps:\n  - set_policy: {floors: {\"mcp:p/y\": escalate}}\n  - evaluate: {plugin: p, id: \"mcp:p/x\"}\n    expect: {band: soft-ack}\n";

fn load(catalogue: &str, cases: &[&str]) -> Result<case::Suite, Vec<String>> {
    let mut files = vec![("REQUIREMENTS.yaml".to_owned(), catalogue.to_owned())];
    for (i, c) in cases.iter().enumerate() {
        files.push((format!("c{i}.yaml"), (*c).to_owned()));
    }
    case::load_files(&files).map_err(|e| e.iter().map(ToString::to_string).collect())
}

fn errors(catalogue: &str, cases: &[&str]) -> Vec<String> {
    let suite = load(catalogue, cases).unwrap_or_else(|e| panic!("{e:?}"));
    case::lint(&suite)
        .errors
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn an_uncovered_pair_fails_and_a_case_on_one_step_covers_it() {
    let cat = catalogue("[declared, policy]", "");
    // Both set up in the case, but on different operations: no cover.
    let apart = errors(&cat, &[APART]);
    assert!(
        apart.iter().any(|e| e.contains(
            "R-1:declared×policy: the contributor×contributor pair declared×policy has no judged step"
        )),
        "{apart:?}"
    );
    let suite = load(&cat, &[APART]).unwrap();
    let report = case::lint(&suite);
    let shown = report.to_string();
    assert!(
        shown.contains("interaction pairs: 1 derived, 0 covered, 0 declared unpaired, 1 uncovered"),
        "{shown}"
    );
    assert!(
        shown.contains("| R-1 | contributor×contributor | declared×policy | **missing** |"),
        "{shown}"
    );
    // One step on whose operation both bear covers it.
    let covered = errors(&cat, &[APART, BOTH]);
    assert_eq!(covered, Vec::<String>::new());
    let suite = load(&cat, &[APART, BOTH]).unwrap();
    let report = case::lint(&suite);
    assert_eq!(
        pairs::counts(&report.pairs),
        pairs::Counts {
            total: 1,
            covered: 1,
            declared: 0,
            uncovered: 0
        }
    );
    assert!(
        report
            .to_string()
            .contains("| R-1 | contributor×contributor | declared×policy | covered-unsafe (1) |"),
        "{report}"
    );
}

#[test]
fn a_declared_pair_needs_a_reason_and_must_stay_uncovered() {
    let declared = catalogue(
        "[declared, policy]",
        ", unpaired: {\"declared×policy\": the rule reads the manifest alone}",
    );
    assert_eq!(errors(&declared, &[APART]), Vec::<String>::new());
    let suite = load(&declared, &[APART]).unwrap();
    assert!(case::lint(&suite)
        .to_string()
        .contains("interaction pairs: 1 derived, 0 covered, 1 declared unpaired, 0 uncovered"));
    // Covered after all: the declaration goes.
    let stale = errors(&declared, &[BOTH]);
    assert!(
        stale
            .iter()
            .any(|e| e.contains("declares the pair declared×policy `unpaired`, but p/declared-raised-by-policy covers it")),
        "{stale:?}"
    );
    // No reason, or a pair the requirement does not have.
    let empty = catalogue(
        "[declared, policy]",
        ", unpaired: {\"declared×policy\": \"\"}",
    );
    assert!(
        errors(&empty, &[APART])
            .iter()
            .any(|e| e.contains("`unpaired` `declared×policy`: say why")),
        "{:?}",
        errors(&empty, &[APART])
    );
    let foreign = catalogue(
        "[declared, policy]",
        ", unpaired: {\"declared×critical\": x}",
    );
    assert!(errors(&foreign, &[BOTH]).iter().any(|e| e
        .contains("`unpaired` names `declared×critical`, which is no pair of this requirement")));
}

#[test]
fn an_unknown_repeated_or_missing_contributor_is_refused() {
    let unknown = errors(&catalogue("[declared, polcy]", ""), &[BOTH]);
    assert!(
        unknown
            .iter()
            .any(|e| e.contains("R-1: unknown contributor `polcy` in `contributors` (known: declared, default, undeclared, inspector, rule-of-two, policy, critical)")),
        "{unknown:?}"
    );
    let twice = errors(&catalogue("[policy, policy]", ""), &[BOTH]);
    assert!(
        twice
            .iter()
            .any(|e| e.contains("`contributors` names `policy` twice")),
        "{twice:?}"
    );
    let missing = "requirements:\n  - {id: R-1, title: t, rule: r, section: \"§1\", level: INTERPRETATION, rationale: why, capability: manifest, safe_side: true, paths: [evaluate]}\n";
    assert!(errors(missing, &[BOTH])
        .iter()
        .any(|e| e.contains("R-1: no `contributors`")));
}

#[test]
fn each_contributor_pairs_with_each_path_the_rule_is_observed_through() {
    // The capability's default paths: evaluate and invoke.
    let cat = "requirements:\n  - {id: R-1, title: t, rule: r, section: \"§1\", level: INTERPRETATION, rationale: why, capability: manifest, safe_side: true, contributors: [policy]}\n";
    let evaluate_only = errors(cat, &[BOTH]);
    assert!(
        evaluate_only
            .iter()
            .any(|e| e.contains("R-1:invoke×policy: the path×contributor pair invoke×policy")),
        "{evaluate_only:?}"
    );
    assert!(!evaluate_only.iter().any(|e| e.contains("evaluate×policy")));
    let invoke = BOTH
        .replace("id: p/declared-raised-by-policy", "id: p/invoke")
        .replace(
            "  - evaluate: {plugin: p, id: \"mcp:p/x\"}\n    expect: {band: escalate}\n",
            "  - invoke: {operation: {plugin: p, id: \"mcp:p/x\"}}\n    expect: {allowed: false}\n",
        );
    assert_eq!(errors(cat, &[BOTH, &invoke]), Vec::<String>::new());
}

/// An undeclared operation beside a declaration covers declared×undeclared;
/// a plugin declaring nothing does not.
#[test]
fn declared_and_undeclared_meet_where_a_declaration_is_loaded() {
    let cat = catalogue("[declared, undeclared]", "");
    let beside = "id: p/beside\nrequirements: [R-1]\nsource: {note: n}\n\
plugins: [{manifest: {name: p, version: 1.0.0, permissions: {operations: [{id: \"mcp:p/x\", band: auto}]}}}]\n\
steps:\n  - evaluate: {plugin: p, id: \"mcp:p/other\"}\n    expect: {declared: null}\n";
    let alone = "id: p/alone\nrequirements: [R-1]\nsource: {note: n}\n\
plugins: [{manifest: {name: p, version: 1.0.0}}]\n\
steps:\n  - evaluate: {plugin: p, id: \"mcp:p/other\"}\n    expect: {declared: null}\n";
    assert!(errors(&cat, &[alone])
        .iter()
        .any(|e| e.contains("R-1:declared×undeclared")));
    assert_eq!(errors(&cat, &[beside]), Vec::<String>::new());
}
