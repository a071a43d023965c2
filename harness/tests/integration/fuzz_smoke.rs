//! Every fuzz target under plain `cargo test` on stable: a seeded smoke run
//! against the reference finds nothing, each fuzzable mutant is found by its
//! target, and every stored regression artifact replays clean.

use arbitrary::Unstructured;
use rbv::fuzz::driver::{drive, Options};
use rbv::fuzz::{targets, InProcess, TARGETS};
use rbv_reference::Mutant;
use std::path::Path;
use std::time::Duration;

fn smoke(execs: u64, stop_at_first: bool) -> Options {
    Options {
        seed: 0x5eed,
        time: Duration::from_secs(60),
        max_execs: execs,
        stop_at_first,
    }
}

#[test]
fn the_reference_survives_every_target() {
    for target in TARGETS {
        let mut subject = InProcess::new(None);
        let outcome = drive(target, &mut subject, &smoke(400, false));
        assert_eq!(outcome.execs, 400, "{}", target.name);
        let found: Vec<String> = outcome
            .found
            .iter()
            .map(|f| f.finding.to_string())
            .collect();
        assert!(
            found.is_empty(),
            "{} found in the reference:\n{}",
            target.name,
            found.join("\n")
        );
    }
}

/// The mutants a fuzz target must find, with the target that finds each.
const FUZZABLE: &[(&str, &str)] = &[
    ("shape-bound-token", "token_binding"),
    ("replayable-token", "token_binding"),
    ("model-minted-token", "token_binding"),
    ("first-keyword-sql", "sql_bypass"),
    ("declared-band-as-ceiling", "sql_bypass"),
    ("credential-catalog-blind", "sql_bypass"),
    ("substring-loopback", "url_loopback"),
    ("whatwg-only-host", "url_loopback"),
    ("infrastructure-blind", "url_loopback"),
    ("quoted-string-blind", "shell_bypass"),
    ("program-options-as-data", "shell_bypass"),
    ("mode-change-as-edit", "shell_bypass"),
    ("build-tool-prefix-allow", "shell_bypass"),
    ("sensitive-reads-only", "shell_bypass"),
    ("push-flags-only", "shell_bypass"),
    ("whole-plugin-invalid", "manifest"),
    ("permissive-default", "manifest"),
    ("rule-of-two-off", "rule_of_two"),
    ("session-bypass-flag", "rule_of_two"),
];

#[test]
fn each_fuzzable_mutant_is_found_by_its_target() {
    let (mut shrunk_bytes, mut found_bytes) = (0, 0);
    for (mutant, target) in FUZZABLE {
        let mutant: Mutant = mutant.parse().unwrap();
        let target = targets::by_name(target).unwrap();
        let outcome = drive(
            target,
            &mut InProcess::new(Some(mutant)),
            &smoke(5_000, true),
        );
        let found = outcome.found.first().unwrap_or_else(|| {
            panic!(
                "{} found nothing in {mutant} within {} execs",
                target.name, outcome.execs
            )
        });
        eprintln!(
            "{mutant}: found by {} after {} execs: {}",
            target.name, found.after_execs, found.finding
        );
        // The shrunk input still finds the same bug in the mutant.
        assert!(found.artifact.len() <= found.found_len);
        let shrunk = (target.check)(
            &mut Unstructured::new(&found.artifact),
            &mut InProcess::new(Some(mutant)),
        )
        .unwrap()
        .unwrap_or_else(|| panic!("{mutant}: the shrunk input finds nothing"));
        assert_eq!(shrunk.key(), found.finding.key(), "{mutant}");
        shrunk_bytes += found.artifact.len();
        found_bytes += found.found_len;
        // The same bytes must be clean on the reference: the finding is the mutant's defect.
        let again = (target.check)(
            &mut Unstructured::new(&found.artifact),
            &mut InProcess::new(None),
        )
        .unwrap();
        assert!(
            again.is_none(),
            "{mutant}'s artifact also fails the reference: {}",
            again.unwrap()
        );
        // The promoted case must be a loadable YAML document.
        let yaml = found.finding.to_yaml(&found.artifact, "2026-11-30");
        let suite = rbv::case::load_files(&[
            ("REQUIREMENTS.yaml".to_owned(), catalogue()),
            (
                format!("{}.yaml", found.finding.case_id(&found.artifact)),
                yaml.clone(),
            ),
        ]);
        assert!(
            suite.is_ok(),
            "the promoted case does not load: {:?}\n{yaml}",
            suite.err()
        );
    }
    eprintln!("shrinking: {found_bytes} input bytes down to {shrunk_bytes}");
    assert!(
        shrunk_bytes * 2 < found_bytes,
        "shrinking barely shrinks: {found_bytes} input bytes down to {shrunk_bytes}"
    );
}

/// A long run keeps one finding per shrunk case: no two findings build the
/// same case, every exec that found something is counted once, and one bug
/// is shrunk a bounded number of times.
#[test]
fn findings_are_told_apart_by_their_shrunk_case() {
    use rbv::fuzz::driver::SHRINKS_PER_BUG;
    use rbv::fuzz::minimize::signature;
    let target = targets::by_name("sql_bypass").unwrap();
    let mutant: Mutant = "first-keyword-sql".parse().unwrap();
    let outcome = drive(
        target,
        &mut InProcess::new(Some(mutant)),
        &smoke(3_000, false),
    );
    assert!(!outcome.found.is_empty());
    let mut seen = std::collections::BTreeSet::new();
    let mut per_bug = std::collections::BTreeMap::new();
    for f in &outcome.found {
        assert_eq!(f.signature, signature(&f.finding));
        assert!(seen.insert(f.signature), "two findings build the same case");
        *per_bug
            .entry(format!("{:?}", f.finding.key()))
            .or_insert(0u32) += 1;
    }
    assert!(
        per_bug.values().all(|&n| n <= SHRINKS_PER_BUG),
        "{per_bug:?}"
    );
    let counted: u64 = outcome.found.iter().map(|f| f.count).sum();
    assert!(counted >= outcome.found.len() as u64);
    assert!(counted <= outcome.execs);
}

fn catalogue() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/REQUIREMENTS.yaml"),
    )
    .expect("cases/REQUIREMENTS.yaml")
}

#[test]
fn finding_requirements_exist_in_the_catalogue() {
    let catalogue = catalogue();
    for id in targets::req::ALL {
        assert!(
            catalogue.contains(&format!("id: {id}")),
            "{id} is cited by a fuzz oracle but not in the catalogue"
        );
    }
}

/// Every stored input — the seed corpora and the promoted regressions —
/// replays clean on the reference.
#[test]
fn stored_corpora_and_regression_artifacts_replay_clean_on_the_reference() {
    let corpora = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora");
    let mut replayed = 0;
    for target in TARGETS {
        let seeds = corpora.join(target.name);
        let regressions = seeds.join("regressions");
        let files = [seeds, regressions]
            .into_iter()
            .filter_map(|dir| std::fs::read_dir(dir).ok())
            .flat_map(|entries| entries.flatten())
            .filter(|e| e.path().is_file());
        for entry in files {
            let bytes = std::fs::read(entry.path()).unwrap();
            let mut subject = InProcess::new(None);
            let finding =
                (target.check)(&mut Unstructured::new(&bytes), &mut subject).unwrap_or(None);
            assert!(
                finding.is_none(),
                "{}: {}",
                entry.path().display(),
                finding.unwrap()
            );
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} stored inputs");
    assert!(
        replayed >= 9 * 32,
        "the seed corpora are missing: run `rbv fuzz --target T --write-seeds corpora/T`"
    );
}

/// `promote` writes a case that passes on the reference and fails on the
/// mutant that produced the finding, and keeps the artifact bytes.
#[test]
fn a_promoted_finding_passes_on_the_reference_and_fails_on_its_mutant() {
    use rbv::fuzz::promote::promote;
    use rbv::transport::in_process::InProcess as InProcessTransport;
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("cases")).unwrap();
    std::fs::write(root.path().join("cases/REQUIREMENTS.yaml"), catalogue()).unwrap();
    for (mutant, target) in [
        ("shape-bound-token", "token_binding"),
        ("first-keyword-sql", "sql_bypass"),
        ("declared-band-as-ceiling", "sql_bypass"),
        ("credential-catalog-blind", "sql_bypass"),
    ] {
        let mutant: Mutant = mutant.parse().unwrap();
        let target = targets::by_name(target).unwrap();
        let outcome = drive(
            target,
            &mut InProcess::new(Some(mutant)),
            &smoke(5_000, true),
        );
        let artifact = &outcome.found.first().expect("the mutant is found").artifact;
        let promoted = promote(
            target,
            artifact,
            &mut InProcess::new(Some(mutant)),
            root.path(),
            "2026-11-30",
        )
        .unwrap();
        assert_eq!(std::fs::read(&promoted.artifact_path).unwrap(), *artifact);
        assert!(promoted
            .case_path
            .starts_with(root.path().join("cases/regressions")));
        let suite =
            rbv::case::load_dir(&root.path().join("cases")).unwrap_or_else(|e| panic!("{e:?}"));
        let id = promoted.finding.case_id(artifact);
        let case = suite
            .cases
            .iter()
            .find(|c| c.id == id)
            .expect("the promoted case loads");
        let on_reference =
            rbv::case::execute(case, &mut InProcessTransport::new(None), "p1").verdict;
        assert!(
            on_reference.is_pass(),
            "{id} on the reference: {on_reference:?}"
        );
        let on_mutant =
            rbv::case::execute(case, &mut InProcessTransport::new(Some(mutant)), "p2").verdict;
        assert_eq!(
            on_mutant.label(),
            "under",
            "{id} on {mutant}: {on_mutant:?}"
        );
    }
}

#[test]
fn the_libfuzzer_entry_fuzzes_an_implementation_named_by_rbv_impl() {
    use rbv::fuzz::driver::artifact;
    use rbv::fuzz::libfuzzer::LibFuzzerSubject;
    let target = &targets::TOKEN_BINDING;
    let adapter = |extra: &str| format!("{} serve{extra}", env!("CARGO_BIN_EXE_rbv"));
    let first_finding = |subject: &LibFuzzerSubject| {
        (0..300u64).find(|&i| {
            matches!(
                subject.check(target.check, &artifact(0x5eed, i)),
                Ok(Some(_))
            )
        })
    };
    // One child for the whole run: the reference over the protocol survives…
    let reference = LibFuzzerSubject::new(Some(adapter("")), None, target.needs);
    assert!(matches!(reference, LibFuzzerSubject::Implementation(_)));
    assert_eq!(first_finding(&reference), None);
    // …and a mutant behind the same protocol is caught.
    let mutant = LibFuzzerSubject::new(
        Some(adapter(" --mutant shape-bound-token")),
        None,
        target.needs,
    );
    assert!(first_finding(&mutant).is_some());
    // Without RBV_IMPL the reference (or a mutant) is linked in.
    assert!(matches!(
        LibFuzzerSubject::new(None, Some(Mutant::ShapeBoundToken), target.needs),
        LibFuzzerSubject::Reference(Some(Mutant::ShapeBoundToken))
    ));
}
