//! The interop matrix and the run-to-run diff on small synthetic reports.

use crate::common;

use rbv_report::compare::Matrix;
use rbv_report::diff::ReportDiff;
use rbv_report::model::*;

fn under() -> Verdict {
    Verdict::Fail {
        kind: FailKind::Under,
    }
}

fn over() -> Verdict {
    Verdict::Fail {
        kind: FailKind::Over,
    }
}

#[test]
fn matrix_shows_disagreements_and_cases_only_one_fails() {
    let a = common::variant("alpha", &[("sql/cte/data-modifying-delete", under())]);
    let b = common::variant(
        "beta",
        &[
            ("fetch/loopback/ipv6", over()),
            ("sql/cte/data-modifying-delete", under()),
        ],
    );
    let c = common::variant("gamma", &[("fetch/loopback/ipv6", over())]);
    let m = Matrix::build(&[a, b, c]);
    assert_eq!(
        m.columns
            .iter()
            .map(|c| c.label.as_str())
            .collect::<Vec<_>>(),
        ["alpha 1.2.3", "beta 1.2.3", "gamma 1.2.3"]
    );
    let row = |id: &str| m.rows.iter().find(|r| r.id == id).unwrap();
    let cte = row("sql/cte/data-modifying-delete");
    assert_eq!(cte.cells, [Some("under"), Some("under"), Some("pass")]);
    assert!(cte.disagree);
    assert_eq!(cte.only_failing, None, "two fail it");
    let v6 = row("fetch/loopback/ipv6");
    assert!(v6.disagree);
    assert!(!row("sql/insert/plain").disagree);
    assert_eq!(m.disagreements().count(), 2);

    // Only one fails: alpha alone fails a case the others pass.
    let a = common::variant("alpha", &[("tokens/replay/basic", under())]);
    let b = common::variant("beta", &[]);
    let m = Matrix::build(&[a, b]);
    assert_eq!(
        m.rows
            .iter()
            .find(|r| r.id == "tokens/replay/basic")
            .unwrap()
            .only_failing,
        Some(0)
    );

    let md = m.to_markdown();
    assert!(md.contains("### Disagreements (1 of 9 cases)"), "{md}");
    assert!(
        md.contains("| tokens/replay/basic | under | pass |"),
        "{md}"
    );
    assert!(
        md.contains("- **alpha 1.2.3** (1): `tokens/replay/basic`"),
        "{md}"
    );

    let html = m.to_html();
    for forbidden in ["http://", "https://", "src="] {
        assert!(!html.contains(forbidden));
    }
    assert!(html.contains("data-status=\"disagree\" data-verdict=\"only-one\""));
    assert_eq!(html.matches("<tr class=\"case\"").count(), 9);
}

#[test]
fn same_named_implementations_get_distinct_columns() {
    let a = common::variant("same", &[]);
    let m = Matrix::build(&[a.clone(), a]);
    assert_eq!(m.columns[1].label, "same 1.2.3 #2");
    assert_eq!(m.disagreements().count(), 0);
    assert!(m.to_markdown().contains("agree on every case"));
}

#[test]
fn diff_names_newly_failing_and_newly_fixed_cases() {
    let old = common::variant(
        "x",
        &[
            ("sql/cte/data-modifying-delete", under()),
            ("fetch/loopback/ipv6", over()),
        ],
    );
    let mut new = common::variant(
        "x",
        &[
            ("tokens/replay/basic", under()),
            ("fetch/loopback/ipv6", under()),
        ],
    );
    let mut added = CaseResult::new(
        "audit/new-case",
        Verdict::Error {
            kind: ErrorKind::Timeout,
        },
    );
    added.message = Some("no answer in 5000 ms".to_owned());
    new.cases.push(added);
    new.refresh();

    let d = ReportDiff::between(&old, &new);
    let ids = |v: &[rbv_report::diff::Change]| v.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
    assert_eq!(
        ids(&d.newly_failing),
        ["audit/new-case", "tokens/replay/basic"]
    );
    assert_eq!(d.newly_failing[0].old, None);
    assert_eq!(ids(&d.newly_fixed), ["sql/cte/data-modifying-delete"]);
    assert_eq!(ids(&d.changed_failure), ["fetch/loopback/ipv6"]);
    assert_eq!(d.added, 1);
    assert!(d.regressed());

    let md = d.to_markdown();
    assert!(md.contains("### Newly failing (2)"));
    assert!(
        md.contains("| `tokens/replay/basic` | pass | under |"),
        "{md}"
    );
    assert!(
        md.contains("| `audit/new-case` | new | timeout | timeout: no answer in 5000 ms |"),
        "{md}"
    );
    assert!(md.contains("### Newly fixed (1)"));

    // Fixing everything is not a regression.
    let fixed = common::variant("x", &[]);
    let d = ReportDiff::between(&old, &fixed);
    assert!(d.newly_failing.is_empty() && !d.regressed());
    assert_eq!(d.newly_fixed.len(), 2);
}

#[test]
fn diff_lists_missing_cases_and_lost_capabilities_as_regressions() {
    let old = common::variant("x", &[]);
    let mut new = common::variant("x", &[]);
    new.cases.retain(|c| c.id != "tokens/replay/basic");
    new.refresh();
    let d = ReportDiff::between(&old, &new);
    assert_eq!(d.removed, ["tokens/replay/basic"]);
    assert!(d.newly_failing.is_empty());
    assert!(d.regressed(), "a case that disappeared is a regression");
    let md = d.to_markdown();
    assert!(md.contains("### Missing from the new run (1)\n\n- `tokens/replay/basic`"));

    let mut new = common::variant("x", &[]);
    new.implementation.capabilities.retain(|c| c != "tokens");
    new.refresh();
    let d = ReportDiff::between(&old, &new);
    assert!(d.removed.is_empty());
    assert_eq!(d.lost_capabilities, ["tokens"]);
    assert!(
        d.regressed(),
        "a capability no longer claimed is a regression"
    );
    assert!(d.to_markdown().contains("**No longer claimed:** tokens"));

    assert!(!ReportDiff::between(&old, &common::variant("x", &[])).regressed());
}

#[test]
fn diff_and_compare_show_levels_per_capability_and_cases_run() {
    let with_needs = |name: &str, verdicts: &[(&str, Verdict)]| {
        let mut r = common::variant(name, verdicts);
        for c in &mut r.cases {
            c.needs = vec![c.area.clone()];
        }
        r.refresh();
        r
    };
    let old = with_needs("x", &[]);
    let new = with_needs("x", &[("sql/insert/plain", under())]);
    let d = ReportDiff::between(&old, &new);
    assert_eq!(
        d.capability_levels,
        [("sql".to_owned(), "Precise".to_owned(), "None".to_owned())]
    );
    assert!(d.to_markdown().contains("| sql | Precise | None |"));

    let m = Matrix::build(&[old, new]);
    let md = m.to_markdown();
    assert!(md.contains("| cases run | 9 | 9 |"), "{md}");
    assert!(md.contains("| skipped | 0 | 0 |"), "{md}");
    assert!(md.contains("| capability sql | Precise | None |"), "{md}");
    assert!(
        md.contains("| capability shell | not claimed | not claimed |"),
        "{md}"
    );
    assert!(m
        .to_html()
        .contains("<th>capability sql</th><td>Precise</td><td>None</td>"));
}
