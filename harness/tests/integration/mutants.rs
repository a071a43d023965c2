//! The suite proves it can fail: every mutant of the reference (one
//! realistic defect each) fails at least `MIN_CAUGHT` cases, and the
//! reference itself fails none. Runs in process (the protocol path is
//! covered by the conformance test); prints what caught each mutant.

use rbv::case::{load_dir, Suite};
use rbv::runner::{run, RunOptions, Summary};
use rbv::transport::Target;
use rbv::verdict::Verdict;
use rbv_reference::{Mutant, Profile};
use std::collections::BTreeSet;

/// How many cases must catch every mutant.
const MIN_CAUGHT: usize = 3;

fn suite() -> Suite {
    let dir = std::env::var_os("RBV_CASES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../cases").into());
    load_dir(&dir).unwrap_or_else(|errors| {
        panic!(
            "{}",
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

fn options() -> RunOptions {
    RunOptions {
        filters: Vec::new(),
        jobs: 0,
        deadline: None,
    }
}

#[test]
fn the_reference_fails_no_case() {
    let suite = suite();
    let outcome = run(
        &suite.cases,
        &Target::InProcess(None, Default::default()),
        &options(),
    );
    let failed: Vec<String> = outcome
        .results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Fail(_) | Verdict::Error(_)))
        .map(|r| format!("{}: {:?}", r.id, r.verdict))
        .collect();
    assert!(
        failed.is_empty(),
        "the reference fails:\n{}",
        failed.join("\n")
    );
    assert!(
        Summary::of(&outcome.results).passed > 0,
        "no case passed at all"
    );
}

/// Every case passes the reference under every profile value it does not
/// exclude: the reference answers every open question each way, so a case
/// that fails under a value it did not rule out would fail a client that
/// answers that question differently, and correctly.
#[test]
fn the_reference_fails_no_case_under_any_profile_value() {
    let suite = suite();
    let mut failed = Vec::new();
    let mut ran = 0;
    for (key, values) in rbv_reference::profile::KEYS {
        let default = Profile::default().to_handshake_map()[key].clone();
        for value in values {
            let mut profile = Profile::default();
            profile.set(key, value).expect("a catalogue value");
            if profile.to_handshake_map()[key] == default {
                continue;
            }
            let outcome = run(&suite.cases, &Target::InProcess(None, profile), &options());
            let summary = Summary::of(&outcome.results);
            ran += summary.passed;
            failed.extend(
                outcome
                    .results
                    .iter()
                    .filter(|r| matches!(r.verdict, Verdict::Fail(_) | Verdict::Error(_)))
                    .map(|r| format!("{key}={value}: {}: {}", r.id, r.verdict.label())),
            );
        }
    }
    assert!(ran > 0, "no case passed under any non-default profile");
    assert!(
        failed.is_empty(),
        "cases that fail the reference under a profile value they do not exclude \
         (add a `profile:` condition, or fix the case):\n{}",
        failed.join("\n")
    );
}

#[test]
fn every_mutant_is_caught() {
    let suite = suite();
    // A case the reference itself fails proves nothing about a mutant.
    let reference = run(
        &suite.cases,
        &Target::InProcess(None, Default::default()),
        &options(),
    );
    let sound: BTreeSet<&str> = reference
        .results
        .iter()
        .filter(|r| r.verdict.is_pass())
        .map(|r| r.id.as_str())
        .collect();
    let mut escaped = Vec::new();
    for &mutant in Mutant::ALL {
        let outcome = run(
            &suite.cases,
            &Target::InProcess(Some(mutant), Default::default()),
            &options(),
        );
        let caught: Vec<_> = outcome
            .results
            .iter()
            .filter(|r| matches!(r.verdict, Verdict::Fail(_)) && sound.contains(r.id.as_str()))
            .collect();
        let errors = outcome
            .results
            .iter()
            .filter(|r| matches!(r.verdict, Verdict::Error(_)))
            .count();
        let requirements: BTreeSet<&str> = caught
            .iter()
            .filter_map(|r| suite.case(&r.id))
            .flat_map(|c| c.requirements.iter().map(String::as_str))
            .collect();
        println!(
            "{mutant}: caught by {} cases ({errors} errors); requirements {requirements:?}",
            caught.len()
        );
        for r in caught.iter().take(8) {
            println!("    {} ({})", r.id, r.verdict.label());
        }
        if caught.len() < MIN_CAUGHT {
            escaped.push(format!(
                "{mutant} ({}): caught by {} cases",
                mutant.description(),
                caught.len()
            ));
        }
    }
    assert!(
        escaped.is_empty(),
        "mutants the suite does not catch:\n{}",
        escaped.join("\n")
    );
}
