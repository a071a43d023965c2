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

/// Promotes the first `token_binding` finding against `shape-bound-token`
/// into `root`; returns what `promote` said.
fn promote_into(root: &Path) -> Result<rbv::fuzz::promote::Promoted, String> {
    use rbv::fuzz::driver::{drive, Options};
    use rbv::fuzz::promote::promote;
    use rbv::fuzz::{targets, InProcess};
    let mutant: rbv_reference::Mutant = "shape-bound-token".parse().expect("a mutant");
    let target = targets::by_name("token_binding").expect("a target");
    let options = Options {
        seed: 0x5eed,
        time: Duration::from_secs(60),
        max_execs: 5_000,
        stop_at_first: true,
    };
    let outcome = drive(target, &mut InProcess::new(Some(mutant)), &options);
    let artifact = &outcome.found.first().expect("the mutant is found").artifact;
    promote(
        target,
        artifact,
        &mut InProcess::new(Some(mutant)),
        root,
        "2026-12-01",
    )
}

#[test]
fn promote_writes_through_no_link_planted_in_the_checkout() {
    let catalogue = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/REQUIREMENTS.yaml");
    // `cases/regressions -> outside`, then `corpora -> outside`: a
    // checkout from a pull request may hold either.
    for (planted, target) in [
        ("cases/regressions", "../../outside"),
        ("corpora", "../outside"),
    ] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().join("repo");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(root.join("cases")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::fs::copy(&catalogue, root.join("cases/REQUIREMENTS.yaml")).unwrap();
        std::os::unix::fs::symlink(target, root.join(planted)).unwrap();
        let said = match promote_into(&root) {
            Ok(p) => format!("promoted into {:?} and {:?}", p.case_path, p.artifact_path),
            Err(e) => e,
        };
        let written: Vec<_> = std::fs::read_dir(&outside)
            .unwrap()
            .filter_map(|e| Some(e.ok()?.path()))
            .collect();
        assert!(written.is_empty(), "{planted}: wrote {written:?}: {said}");
        assert!(said.contains("symbolic link"), "{planted}: {said}");
    }
}

/// The files of a report directory by name (every entry, dot files too).
fn files_in(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .expect("the report directory")
        .filter_map(|e| {
            let e = e.ok()?;
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            Some((e.file_name().into_string().ok()?, bytes))
        })
        .collect()
}

/// Whether the staging directory of a report being written is there.
fn staging_in(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(".rbv-report-"))
    })
}

/// "previous" when `now` is `old` exactly, "new" when it is another run's
/// report whole (every file of the run differs from `old`, and the three
/// that show the start time show one); panics on anything else.
fn one_run(old: &std::collections::BTreeMap<String, Vec<u8>>, dir: &Path) -> &'static str {
    let now = files_in(dir);
    let names: Vec<&String> = now.keys().collect();
    assert_eq!(
        names,
        old.keys().collect::<Vec<_>>(),
        "the report's files and nothing else"
    );
    if &now == old {
        return "previous";
    }
    let text = |name: &str| String::from_utf8_lossy(&now[name]).into_owned();
    for name in [
        "report.json",
        "junit.xml",
        "summary.md",
        "report.html",
        "badge.svg",
    ] {
        assert_ne!(
            now[name], old[name],
            "{name} is the previous run's: {names:?}"
        );
    }
    let json: serde_json::Value = serde_json::from_str(&text("report.json")).expect("JSON");
    let started = json["started"].as_str().expect("a start time");
    for name in ["summary.md", "report.html"] {
        assert!(
            text(name).contains(started),
            "{name} is not of the run started {started}"
        );
    }
    "new"
}

#[test]
fn a_sigterm_while_the_report_is_written_leaves_one_run_s_report_whole() {
    let corpus = corpus();
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("report");
    let args = report_args(&dir);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = rbv_run("well-behaved", corpus.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let old = files_in(&dir);
    let mut seen = Vec::new();
    // Most kills land from the moment the staging directory appears (the
    // write, six files each synced, takes milliseconds) to after the
    // renames; every fourth lands earlier, while the cases run.
    for attempt in 0..16u64 {
        let mut child = rbv()
            .args(["run", "--impl", &fake_command("garbage"), "--cases"])
            .arg(corpus.path())
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start rbv");
        let mut writing = false;
        if attempt % 4 == 3 {
            std::thread::sleep(Duration::from_millis(attempt * 10));
        } else {
            while !writing && child.try_wait().expect("rbv").is_none() {
                writing = staging_in(&dir);
                std::thread::sleep(Duration::from_micros(100));
            }
            std::thread::sleep(Duration::from_micros(attempt % 4 * 700));
        }
        let _ = kill_process(Pid::from_child(&child), Signal::TERM);
        let status = child.wait().expect("rbv ends");
        // 1: the run ended first; 143: the handler's exit; SIGTERM itself
        // before rbv set its handler.
        let by_signal = std::os::unix::process::ExitStatusExt::signal(&status);
        assert!(
            matches!(status.code(), Some(1 | 143)) || by_signal == Some(15),
            "{status:?}"
        );
        seen.push((writing, one_run(&old, &dir)));
        for (name, bytes) in &old {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    eprintln!("(kill while writing, report found): {seen:?}");
}

#[test]
fn a_report_directory_the_user_names_through_a_link_is_followed_but_links_inside_it_are_not() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let real = tmp.path().join("real-reports");
    std::fs::create_dir(&real).unwrap();
    let victim = tmp.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink("../victim.txt", real.join("summary.md")).unwrap();
    let named = tmp.path().join("report");
    std::os::unix::fs::symlink("real-reports", &named).unwrap();
    let out = run_with_report("well-behaved", &named);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Written where the link leads; the link itself is left as it was.
    assert!(std::fs::symlink_metadata(&named)
        .unwrap()
        .file_type()
        .is_symlink());
    for name in ["report.json", "junit.xml", "summary.md", "badge.svg"] {
        let m = std::fs::symlink_metadata(real.join(name)).unwrap();
        assert!(
            m.is_file(),
            "{name} is a file of its own in the linked directory"
        );
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    // A link to nothing is still no directory to write into.
    let dangling = tmp.path().join("dangling");
    std::os::unix::fs::symlink("nowhere", &dangling).unwrap();
    let out = run_with_report("well-behaved", &dangling);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(!tmp.path().join("nowhere").exists());
}
