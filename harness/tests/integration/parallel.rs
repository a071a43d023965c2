//! The work rayon does in parallel (loading the corpus, `rbv run
//! --all-mutants`) gives what the sequential work gives, whatever the
//! number of threads and whichever task ends first.

use rbv::case::{self, LoadError, Suite};
use rbv::mutation::{kills, verdicts, Kills, CHUNK};
use rbv::runner::{run_per_profile, RunOptions};
use rbv::transport::Target;
use rbv::verdict::Verdict;
use rbv_reference::Mutant;
use std::collections::BTreeMap;

fn on_threads<T: Send>(threads: usize, work: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
        .install(work)
}

const CATALOGUE: &str =
    "requirements:\n  - {id: R-1, title: t, rule: r, section: \"§1\", level: MUST}\n";

/// `dup/x` in 40 files; the first file also holds a 400-row table, so that
/// it is the last to be built when files are built in parallel.
fn files_with_duplicates() -> Vec<(String, String)> {
    let case = |id: &str| {
        format!(
            "id: {id}\nrequirements: [R-1]\nsource: {{note: n}}\nsteps:\n  - reset_session: {{}}\n"
        )
    };
    let rows: String = (0..400).map(|n| format!("    - {{n: {n}}}\n")).collect();
    let table = format!(
        "table:\n  id: \"t/${{n}}\"\n  requirements: [R-1]\n  source: {{note: n}}\n  template:\n    steps:\n      - project: {{scope: local}}\n        expect: {{band: \"${{n}}\"}}\n  rows:\n{rows}"
    );
    let mut files = vec![("REQUIREMENTS.yaml".to_owned(), CATALOGUE.to_owned())];
    files.push(("a00.yaml".into(), format!("{table}---\n{}", case("dup/x"))));
    for i in 1..40 {
        // Each file also has an error of its own, at a line that varies.
        let pad = "# pad\n".repeat(i % 7);
        files.push((
            format!("a{i:02}.yaml"),
            format!(
                "{pad}{}---\nid: bad/{i}\nrequirements: []\nsource: {{note: n}}\nsteps: []\n",
                case("dup/x")
            ),
        ));
    }
    files
}

fn load_errors(files: &[(String, String)]) -> Vec<LoadError> {
    case::load_files(files).expect_err("the files hold errors")
}

#[test]
fn load_errors_are_in_file_order_and_the_first_definition_is_the_first_file() {
    let files = files_with_duplicates();
    let sequential = on_threads(1, || load_errors(&files));
    // The 400 rows are bands that are not bands: 400 errors in a00, then
    // the duplicate and the empty requirements of each other file.
    assert_eq!(sequential.len(), 400 + 39 * 2, "{:?}", &sequential[..3]);
    let after_table = &sequential[400..];
    for (i, pair) in (1..40).zip(after_table.chunks(2)) {
        let path = format!("a{i:02}.yaml");
        assert!(pair.iter().all(|e| e.path == path), "{pair:?}");
        assert!(
            pair[0]
                .message
                .contains("duplicate case id `dup/x` (first defined at a00.yaml:"),
            "{}",
            pair[0]
        );
        assert_eq!(pair[0].line, 1 + i % 7, "{}", pair[0]);
        assert!(
            pair[1].message.contains("at least one requirement"),
            "{}",
            pair[1]
        );
    }
    for threads in [2, 4, 8] {
        for _ in 0..3 {
            let parallel = on_threads(threads, || load_errors(&files));
            assert_eq!(parallel, sequential, "{threads} threads");
        }
    }
}

fn embedded(threads: usize) -> Suite {
    let files = rbv::embedded::files();
    on_threads(threads, || case::load_files(&files)).unwrap_or_else(|errors| {
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

#[test]
fn the_corpus_loads_to_the_same_suite_on_one_thread_and_on_many() {
    let sequential = embedded(1);
    assert!(sequential.cases.len() > 1000);
    for threads in [2, 8] {
        let parallel = embedded(threads);
        let ids = |s: &Suite| s.cases.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&parallel), ids(&sequential), "{threads} threads");
        assert!(
            parallel == sequential,
            "{threads} threads: the cases differ"
        );
    }
}

/// What `kills` computed before rayon: each mutant in turn, through the
/// worker pool, one worker.
fn kills_one_by_one(cases: &[case::Case], options: &RunOptions) -> Vec<Vec<(String, Verdict)>> {
    std::iter::once(None)
        .chain(Mutant::ALL.iter().copied().map(Some))
        .map(|mutant| {
            run_per_profile(cases, options, &|profile| {
                Target::InProcess(mutant, *profile)
            })
            .results
            .into_iter()
            .map(|r| (r.id, r.verdict))
            .collect()
        })
        .collect()
}

#[test]
fn all_mutants_gives_the_same_verdicts_on_one_thread_and_on_many() {
    let suite = embedded(2);
    let options = |jobs| RunOptions {
        // Several profiles (rule-of-two thresholds), and more cases in the
        // default profile than one task takes.
        filters: vec!["rule-of-two/".into(), "tokens/".into()],
        jobs,
        deadline: None,
    };
    let subjects: Vec<_> = std::iter::once(None)
        .chain(Mutant::ALL.iter().copied().map(Some))
        .collect();
    let list = |all: Vec<BTreeMap<String, Verdict>>| -> Vec<Vec<(String, Verdict)>> {
        all.into_iter().map(|v| v.into_iter().collect()).collect()
    };
    let one = list(verdicts(&suite.cases, &options(1), &subjects));
    assert!(one[0].len() > CHUNK, "{} cases", one[0].len());
    assert_eq!(list(verdicts(&suite.cases, &options(3), &subjects)), one);
    // What `kills` computed before rayon, mutant by mutant.
    assert_eq!(kills_one_by_one(&suite.cases, &options(1)), one);
    // `kills` on rayon's own pool (no `-j`).
    let few = RunOptions {
        filters: vec!["rule-of-two/".into()],
        ..options(0)
    };
    let kills: Kills = kills(&suite.cases, &few);
    let rule_of_two = one[0].iter().filter(|(id, _)| id.contains("rule-of-two/"));
    assert_eq!(kills.cases.len(), rule_of_two.count());
    assert!(kills.by_mutant.iter().any(|(_, k)| !k.is_empty()));
}
