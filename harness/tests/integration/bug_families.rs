//! The fuzzers find realistic bugs nobody planted: each family of
//! support/bugs.rs, put in front of the correct reference, yields a
//! finding of its target, and the reference alone yields none.

use crate::support::bugs::{Bug, Buggy, ALL};
use rbv::fuzz::driver::{drive, Options};
use rbv::fuzz::targets::by_name;
use rbv::fuzz::InProcess;
use std::time::Duration;

fn first_finding(bug: Bug, target: &str) -> Option<String> {
    let mut subject = Buggy::new(InProcess::new(None), bug);
    let options = Options {
        seed: 1,
        time: Duration::from_secs(30),
        max_execs: 20_000,
        stop_at_first: true,
    };
    let outcome = drive(by_name(target).unwrap(), &mut subject, &options);
    outcome
        .found
        .first()
        .map(|f| f.finding.requirement.to_owned())
}

#[test]
fn every_token_family_is_found() {
    for (bug, name, target) in ALL.iter().filter(|(_, _, t)| *t == "token_binding") {
        let found = first_finding(*bug, target);
        assert!(found.is_some(), "{name} was not found");
    }
}

#[test]
fn first_statement_sql_and_prefix_loopback_are_found() {
    assert_eq!(
        first_finding(Bug::FirstStatementSql, "sql_bypass").as_deref(),
        Some("RBV-SQL-005")
    );
    assert!(first_finding(Bug::PrefixLoopback, "url_loopback").is_some());
    assert!(first_finding(Bug::SkillBandWins, "sql_bypass").is_some());
}
