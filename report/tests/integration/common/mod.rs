//! Synthetic reports for the renderer tests: every verdict, hostile text
//! (markup, URLs, control characters) in the fields a report quotes.
#![allow(dead_code)]

use rbv_report::model::*;
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

pub fn catalogue() -> BTreeMap<String, RequirementInfo> {
    let info = |level, title: &str| RequirementInfo {
        level,
        title: Some(title.to_owned()),
        section: Some("§4.3".to_owned()),
    };
    BTreeMap::from([
        (
            "RBV-SQL-001".to_owned(),
            info(RequirementLevel::Must, "Writes escalate"),
        ),
        (
            "RBV-SQL-002".to_owned(),
            info(RequirementLevel::Should, "Reads stay auto"),
        ),
        (
            "RBV-FET-001".to_owned(),
            info(RequirementLevel::Interpretation, "Loopback is auto"),
        ),
        (
            "RBV-TOK-001".to_owned(),
            info(RequirementLevel::Must, "Tokens are single-use"),
        ),
    ])
}

fn req(id: &str) -> RequirementRef {
    let level = catalogue().get(id).map(|i| i.level);
    RequirementRef {
        id: id.to_owned(),
        level,
    }
}

pub const DIFF_MARKER: &str = "-  \"band\": \"escalate\"";

/// A case list with every kind of verdict, in no particular order.
pub fn cases() -> Vec<CaseResult> {
    let mut out = Vec::new();
    let mut pass = |id: &str, r: &str, sides: (bool, bool)| {
        let mut c = CaseResult::new(id, Verdict::Pass);
        c.requirements = vec![req(r)];
        c.guards = Sides {
            unsafe_side: sides.0,
            precision: sides.1,
        };
        c.duration_ms = 1.25;
        out.push(c);
    };
    pass("sql/select/plain", "RBV-SQL-002", (false, true));
    pass("sql/insert/plain", "RBV-SQL-001", (true, false));
    pass("tokens/replay/basic", "RBV-TOK-001", (true, false));
    pass("fetch/loopback/ipv4", "RBV-FET-001", (true, true));

    let mut under = CaseResult::new(
        "sql/cte/data-modifying-delete",
        Verdict::Fail {
            kind: FailKind::Under,
        },
    );
    under.title = Some("A DELETE inside a CTE <is> a write".to_owned());
    under.requirements = vec![req("RBV-SQL-001")];
    under.tags = vec!["bypass".to_owned()];
    under.guards = Sides {
        unsafe_side: true,
        precision: false,
    };
    under.step = Some(1);
    under.message = Some("step 1 (evaluate): band auto is below escalate".to_owned());
    under.request = Some(
        "{\"type\": \"evaluate\", \"sql\": \"WITH d AS (DELETE FROM t) SELECT 1\"}".to_owned(),
    );
    under.expected = Some("{\n  \"band\": \"escalate\"\n}\n".to_owned());
    under.observed = Some("{\n  \"band\": \"auto\"\n}\n".to_owned());
    under.diff = Some(format!(
        "--- expected\n+++ observed\n@@ -1,3 +1,3 @@\n {{\n{DIFF_MARKER}\n+  \"band\": \"auto\"\n }}\n"
    ));
    under.duration_ms = 3.5;
    out.push(under);

    let mut over = CaseResult::new(
        "fetch/loopback/ipv6",
        Verdict::Fail {
            kind: FailKind::Over,
        },
    );
    over.requirements = vec![req("RBV-FET-001")];
    over.guards = Sides {
        unsafe_side: true,
        precision: true,
    };
    over.step = Some(1);
    over.message =
        Some("band escalate is above auto for http://[::1]/ <script>alert(1)</script>".to_owned());
    over.request = Some("{\"url\": \"https://evil.example/?x=<img src=x>\"}".to_owned());
    over.diff = Some("-auto\n+escalate\n".to_owned());
    out.push(over);

    let mut crash = CaseResult::new(
        "tokens/replay/concurrent",
        Verdict::Error {
            kind: ErrorKind::Crash,
        },
    );
    crash.requirements = vec![req("RBV-TOK-001")];
    crash.guards = Sides {
        unsafe_side: true,
        precision: false,
    };
    crash.step = Some(2);
    crash.message = Some("the child exited".to_owned());
    crash.line = Some("panic at 'index out of bounds'".to_owned());
    crash.stderr_tail = Some("thread 'main' panicked\u{1b}[0m at src/main.rs:3\n".to_owned());
    out.push(crash);

    let mut cap = CaseResult::new(
        "shell/quoted/echo-rm",
        Verdict::Skip {
            reason: "needs capability shell".to_owned(),
            cause: SkipCause::Capability,
        },
    );
    cap.requirements = vec![req("RBV-SQL-002")];
    cap.guards = Sides {
        unsafe_side: false,
        precision: true,
    };
    out.push(cap);

    let mut prof = CaseResult::new(
        "sql/rule-of-two/threshold-3",
        Verdict::Skip {
            reason: "profile rule_of_two_threshold".to_owned(),
            cause: SkipCause::Profile,
        },
    );
    prof.requirements = vec![req("RBV-SQL-001")];
    prof.guards = Sides {
        unsafe_side: true,
        precision: false,
    };
    out.push(prof);
    out
}

pub fn implementation() -> Implementation {
    Implementation {
        name: "acme-gate".to_owned(),
        version: "1.2.3".to_owned(),
        protocol_version: 1,
        capabilities: vec![
            "sql".into(),
            "manifest".into(),
            "fetch".into(),
            "tokens".into(),
        ],
        profile: BTreeMap::from([(
            "rule_of_two_threshold".to_owned(),
            serde_json::Value::from(2u64),
        )]),
    }
}

pub fn suite() -> SuiteInfo {
    SuiteInfo {
        version: "0.1.0".to_owned(),
        cases_sha256: "ab".repeat(32),
    }
}

pub fn report_from(cases: Vec<CaseResult>, started_secs: u64) -> Report {
    Report::assemble(
        suite(),
        implementation(),
        catalogue(),
        cases,
        SystemTime::UNIX_EPOCH + Duration::from_secs(started_secs),
        1234.5,
    )
}

pub fn sample() -> Report {
    report_from(cases(), 1_796_000_000)
}

/// A report of `name` where every listed case has the given verdict and
/// the rest pass.
pub fn variant(name: &str, verdicts: &[(&str, Verdict)]) -> Report {
    let mut cases = cases();
    for c in &mut cases {
        c.verdict = Verdict::Pass;
        for (id, v) in verdicts {
            if c.id == *id {
                c.verdict = v.clone();
            }
        }
    }
    let mut r = report_from(cases, 1_796_000_000);
    r.implementation.name = name.to_owned();
    r
}
