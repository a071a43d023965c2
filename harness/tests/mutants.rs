//! The suite proves it can fail: every mutant of the reference (one
//! realistic defect each) fails at least `MIN_CAUGHT` cases, and the
//! reference itself fails none. Runs in process (the protocol path is
//! covered by the conformance test); prints what caught each mutant.

use rbv::adapter::Target;
use rbv::case::{load_dir, Suite};
use rbv::runner::{run, RunOptions, Summary};
use rbv::verdict::Verdict;
use rbv_reference::Mutant;
use std::collections::BTreeSet;

/// How many cases must catch every mutant.
const MIN_CAUGHT: usize = 2;

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
