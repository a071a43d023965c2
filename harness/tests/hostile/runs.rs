//! Runs that prove nothing must not look like passes: no case run, an
//! implementation that died under the fuzzer, a run that never ends.

use super::*;

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_run_of_no_case_exits_2_saying_so() {
    let empty = tempfile::tempdir().expect("temp dir");
    let out = rbv()
        .args(["run", "--cases"])
        .arg(empty.path())
        .output()
        .expect("run rbv");
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("no case ran"),
        "{}",
        stderr_of(&out)
    );

    let corpus = corpus();
    let out = rbv_run("well-behaved", corpus.path(), &["--filter", "no-such-case"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("this run proves nothing"));
}

#[test]
fn the_run_deadline_ends_a_run_of_an_implementation_that_never_answers() {
    let corpus = corpus();
    let started = Instant::now();
    // Without the deadline: 4 cases × 4 s of timeout on one worker.
    let out = rbv_run(
        "hang",
        corpus.path(),
        &["--jobs", "1", "--timeout", "4s", "--deadline", "1s"],
    );
    let took = started.elapsed();
    assert!(took < Duration::from_secs(4), "took {took:?}");
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("deadline"), "{stdout}");
    assert!(
        stdout.ends_with("rbv: 0 passed, 4 failed, 0 skipped\n"),
        "{stdout}"
    );
}

fn fuzz(mode: &str, timeout: &str) -> (std::process::Output, Duration) {
    let started = Instant::now();
    let out = rbv()
        .args(["fuzz", "--target", "token_binding", "--time", "60s"])
        .args(["--timeout", timeout, "--impl", &fake_command(mode)])
        .arg("--artifact-dir")
        .arg(tempfile::tempdir().expect("temp dir").path())
        .stdin(Stdio::null())
        .output()
        .expect("run rbv fuzz");
    (out, started.elapsed())
}

#[test]
fn fuzzing_a_dead_implementation_fails_after_bounded_restarts() {
    let (out, took) = fuzz("crash-mid-case", "2s");
    let stderr = stderr_of(&out);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(took < Duration::from_secs(30), "took {took:?}");
    assert!(
        stderr.contains("stopped answering") && stderr.contains("restarted 3 time(s)"),
        "{stderr}"
    );
    // Each child answers one request: an exec of more never completes, so
    // no exec counts.
    let execs: u64 = stderr
        .split("rbv fuzz: ")
        .find_map(|l| l.split(" execs").next()?.parse().ok())
        .expect("an exec count");
    assert!(execs < 10, "{execs} execs counted against dying children");
}

#[test]
fn fuzzing_a_hung_implementation_fails_within_its_timeouts() {
    let (out, took) = fuzz("hang", "1500ms");
    let stderr = stderr_of(&out);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    // Four timeouts of 1.5 s and four starts.
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert!(stderr.contains("timeout: no answer"), "{stderr}");
    assert!(stderr.contains("rbv fuzz: 0 execs"), "{stderr}");
}
