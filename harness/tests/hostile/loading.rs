//! Case files arrive in pull requests: links, FIFOs, devices, huge tables
//! and escape sequences in them are errors, never a hang, a leak or a
//! terminal takeover.

use super::*;
use std::os::unix::fs::symlink;

/// `rbv ARGS… --cases DIR`, which must end within `limit`.
fn rbv_on(dir: &Path, args: &[&str], limit: Duration) -> (Option<i32>, String, String) {
    let mut child = rbv()
        .args(args)
        .arg("--cases")
        .arg(dir)
        // The secret is rbv's whole environment: a leak of any part of
        // /proc/self/environ (an error's snippet) shows it.
        .env_clear()
        .env("RBV_TEST_SECRET", "canary-5e3f9a")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rbv");
    let status = wait_within(&mut child, limit);
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("rbv {args:?} still running after {limit:?}");
    }
    let out = child.wait_with_output().expect("rbv output");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_link_to_a_secret_is_not_followed_and_its_content_never_printed() {
    let corpus = corpus();
    symlink("/proc/self/environ", corpus.path().join("hostile/x.yaml")).unwrap();
    for command in [&["lint"][..], &["list"], &["run"]] {
        let (code, stdout, stderr) = rbv_on(corpus.path(), command, Duration::from_secs(10));
        assert_eq!(code, Some(2), "{command:?}: {stdout}{stderr}");
        assert!(!stdout.contains("canary") && !stderr.contains("canary"));
        assert!(stderr.contains("symbolic link"), "{stderr}");
    }
}

#[test]
fn a_fifo_or_a_link_to_a_device_is_refused_at_once() {
    let corpus = corpus();
    let fifo = corpus.path().join("hostile/fifo.yaml");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    symlink("/dev/zero", corpus.path().join("hostile/zero.yaml")).unwrap();
    let (code, stdout, stderr) = rbv_on(corpus.path(), &["lint"], Duration::from_secs(10));
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("fifo.yaml:0:0: not a regular file"),
        "{stderr}"
    );
    assert!(stderr.contains("zero.yaml") && stderr.contains("symbolic link"));
}

#[test]
fn a_huge_regular_file_is_refused_unread() {
    let corpus = corpus();
    let big = std::fs::File::create(corpus.path().join("hostile/big.yaml")).unwrap();
    big.set_len(3 << 30).unwrap(); // sparse: 3 GiB that take no disk
    let (code, _, stderr) = rbv_on(corpus.path(), &["lint"], Duration::from_secs(10));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("larger than"), "{stderr}");
}

#[test]
fn directory_links_that_loop_end_the_run_with_an_error_not_a_hang() {
    let corpus = corpus();
    symlink("b", corpus.path().join("hostile/a")).unwrap();
    symlink("a", corpus.path().join("hostile/b")).unwrap();
    symlink("..", corpus.path().join("hostile/up")).unwrap();
    // Two links to their own directory: 2^40 paths to a walk that follows
    // links (rbv before the fix hung here, and its memory grew).
    symlink(".", corpus.path().join("hostile/self-1")).unwrap();
    symlink(".", corpus.path().join("hostile/self-2")).unwrap();
    let report = tempfile::tempdir().expect("temp dir");
    let out_dir = report.path().join("out");
    let args = ["run", "--report", out_dir.to_str().unwrap()];
    let (code, stdout, stderr) = rbv_on(corpus.path(), &args, Duration::from_secs(20));
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("hostile/up:0:0: a symbolic link")
            && stderr.contains("hostile/self-1:0:0: a symbolic link"),
        "{stderr}"
    );
}

#[test]
fn control_characters_of_a_case_file_reach_no_terminal() {
    let corpus = corpus();
    let evil = "id: \"hostile/\\e]8;;http://evil\\a\\e[2Jx\"\nrequirements: [RBV-PRJ-001]\n\
                source: {note: x}\nsteps: []\n";
    std::fs::write(corpus.path().join("hostile/evil.yaml"), evil).unwrap();
    let (code, stdout, stderr) = rbv_on(corpus.path(), &["lint"], Duration::from_secs(10));
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("\\x1b]8;;http"), "{stderr}");
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\u{7}'),
        "{stderr:?}"
    );

    // A bidi override is no control character to YAML: the id loads, and
    // `rbv list` shows it escaped.
    let spoof = "id: \"hostile/\u{202e}gnp.exe\"\nrequirements: [RBV-PRJ-001]\n\
                 source: {note: x}\nsteps:\n  - project: {reversibility: irreversible}\n    \
                 expect: {band: escalate}\n";
    std::fs::write(corpus.path().join("hostile/evil.yaml"), spoof).unwrap();
    let (code, stdout, stderr) = rbv_on(corpus.path(), &["list"], Duration::from_secs(10));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("hostile/\\u{202e}gnp.exe"), "{stdout}");
    assert!(!stdout.contains('\u{202e}'));
}

#[test]
fn a_table_that_expands_to_gigabytes_is_an_error_at_its_place() {
    // 20 rows × 100 interpolations of one 500 kB value (an alias): 1 GB.
    let big = "v".repeat(500_000);
    let fields: String = (0..100)
        .map(|i| format!("      f{i}: \"x${{big}}\"\n"))
        .collect();
    let rows: String = (1..20)
        .map(|i| format!("    - {{n: r{i}, big: *b}}\n"))
        .collect();
    let table = format!(
        "table:\n  id: \"hostile/t-${{n}}\"\n  requirements: [RBV-PRJ-001]\n  source: {{note: x}}\n  \
         template:\n    steps:\n      - project: {{reversibility: irreversible}}\n        expect: {{band: escalate}}\n    \
         tags_unused:\n{fields}  rows:\n    - {{n: r0, big: &b \"{big}\"}}\n{rows}"
    );
    let files = vec![
        ("REQUIREMENTS.yaml".to_owned(), REQUIREMENTS.to_owned()),
        ("hostile/table.yaml".to_owned(), table),
    ];
    let errors = match load_files(&files) {
        Ok(_) => panic!("the table loads"),
        Err(errors) => errors,
    };
    let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert!(
        errors.iter().any(|e| e.path == "hostile/table.yaml"
            && e.line > 0
            && e.column > 0
            && e.message.contains("bytes")),
        "{shown:?}"
    );
    assert!(shown.iter().all(|s| s.len() < 4096), "errors stay short");
}

#[test]
fn a_link_loop_is_an_error_naming_it_and_the_rest_of_the_tree_runs_and_is_reported() {
    let corpus = corpus();
    symlink("b", corpus.path().join("hostile/a")).unwrap();
    symlink("a", corpus.path().join("hostile/b")).unwrap();
    symlink(".", corpus.path().join("hostile/self-1")).unwrap();
    let report = tempfile::tempdir().expect("temp dir");
    let out_dir = report.path().join("out");
    let args = ["run", "--report", out_dir.to_str().unwrap()];
    let (code, stdout, stderr) = rbv_on(corpus.path(), &args, Duration::from_secs(60));
    // An incomplete tree is no pass, however its cases went.
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    for name in ["hostile/a:", "hostile/b:", "hostile/self-1:"] {
        assert!(stderr.contains(name), "{name} named: {stderr}");
    }
    assert!(stderr.contains("loop"), "{stderr}");
    assert!(
        stdout.ends_with("rbv: 4 passed, 0 failed, 0 skipped\n"),
        "the rest ran, and the run ended as usual: {stdout}"
    );
    assert!(stdout.contains("not read"), "{stdout}");
    let json = std::fs::read_to_string(out_dir.join("report.json")).expect("a report");
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["cases"].as_array().map(Vec::len), Some(4));
}
