//! Writing reports where others can plant things: never through a link,
//! never a mixture of two runs, and a report that cannot be written never
//! costs the run's results.

use super::*;

fn report_args(dir: &Path) -> Vec<String> {
    vec!["--report".into(), dir.display().to_string()]
}

fn run_with_report(mode: &str, dir: &Path) -> std::process::Output {
    let corpus = corpus();
    let args = report_args(dir);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    rbv_run(mode, corpus.path(), &args)
}

#[test]
fn a_report_that_cannot_be_written_still_prints_the_results_then_exits_2() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let in_the_way = tmp.path().join("report");
    std::fs::write(&in_the_way, "a file").unwrap();
    let out = run_with_report("well-behaved", &in_the_way);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stdout.ends_with("rbv: 4 passed, 0 failed, 0 skipped\n"),
        "{stdout}"
    );
    assert!(
        stderr.contains("cannot write the report")
            && stderr.contains(&*in_the_way.to_string_lossy()),
        "{stderr}"
    );
}

#[test]
fn a_link_planted_in_the_report_directory_is_replaced_not_written_through() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let victim = tmp.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let dir = tmp.path().join("report");
    std::fs::create_dir(&dir).unwrap();
    std::os::unix::fs::symlink("../victim.txt", dir.join("junit.xml")).unwrap();
    let out = run_with_report("well-behaved", &dir);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let junit = std::fs::symlink_metadata(dir.join("junit.xml")).unwrap();
    assert!(junit.is_file(), "junit.xml is a file of its own");
}

#[test]
fn a_write_that_fails_midway_leaves_the_previous_report_whole() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("report");
    let out = run_with_report("well-behaved", &dir);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let before: Vec<String> = ["report.json", "summary.md", "junit.xml"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
        .collect();
    // The last file of the set cannot be replaced: a directory is there.
    std::fs::remove_file(dir.join("badge.svg")).unwrap();
    std::fs::create_dir_all(dir.join("badge.svg/inside")).unwrap();
    let out = run_with_report("garbage", &dir);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let after: Vec<String> = ["report.json", "summary.md", "junit.xml"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
        .collect();
    assert_eq!(before, after, "the passing run's report, whole");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(".rbv"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
