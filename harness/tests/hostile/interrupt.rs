//! Signals to rbv: every implementation dies with it.

use super::*;

/// `rbv run` with two workers, each stuck on a `stubborn` implementation
/// that only SIGKILL ends. Dropping it kills whatever a failing test left.
pub(super) struct HungRun {
    pub(super) rbv: Child,
    pub(super) implementations: Vec<Pid>,
    dirs: [tempfile::TempDir; 2],
}

impl Drop for HungRun {
    fn drop(&mut self) {
        let _ = self.rbv.kill();
        let _ = self.rbv.wait();
        for &pid in &self.implementations {
            if !gone(pid) {
                let _ = kill_process(pid, Signal::KILL);
            }
        }
    }
}

/// Starts the run through `sh -c "{prelude}exec rbv …"` and waits until
/// both implementations hang on a request, in groups of their own.
pub(super) fn hung_run(prelude: &str) -> HungRun {
    hung_run_with(
        prelude,
        fake_command,
        Path::new(env!("CARGO_BIN_EXE_rbv")),
        &[],
    )
}

/// [`hung_run`] with the implementation's command made by `command`, run
/// by the rbv binary at `rbv`, with `extra` arguments to `rbv run`.
pub(super) fn hung_run_with(
    prelude: &str,
    command: fn(&str) -> String,
    rbv: &Path,
    extra: &[&str],
) -> HungRun {
    let corpus = tempfile::tempdir().expect("temp dir");
    std::fs::write(corpus.path().join("REQUIREMENTS.yaml"), REQUIREMENTS).unwrap();
    std::fs::create_dir(corpus.path().join("hostile")).unwrap();
    std::fs::write(corpus.path().join("hostile/cases.yaml"), CASES).unwrap();
    let pids = tempfile::tempdir().expect("temp dir");
    let implementation = command(&format!("stubborn '{}'", pids.path().display()));
    // rbv keeps a signal it was started ignoring (`nohup`, or `&` in a
    // non-interactive shell, start it so), and no `sh` can undo an ignore
    // it inherited: GNU env resets them, so that this tests rbv however
    // `cargo test` itself was started.
    let rbv = Command::new("env")
        .args(["--default-signal=INT,HUP,QUIT,TERM", "sh", "-c"])
        .arg(format!("{prelude}exec \"$0\" \"$@\""))
        .arg(rbv)
        .args(["run", "--jobs", "2", "--timeout", "60s", "--impl"])
        .arg(&implementation)
        .arg("--cases")
        .arg(corpus.path())
        .args(extra)
        .env_remove("RBV_IMPL")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rbv");
    let mut run = HungRun {
        rbv,
        implementations: Vec::new(),
        dirs: [corpus, pids],
    };
    let hung = poll_until(Duration::from_secs(10), || {
        run.implementations = pids_in(run.dirs[1].path());
        run.implementations.len() == 2
    });
    assert!(hung, "implementations hung: {:?}", run.implementations);
    run
}

/// Sends SIGINT to rbv: it must exit 130 at once, saying so, and take
/// both implementations with it.
fn interrupt(run: &mut HungRun) {
    kill_process(Pid::from_child(&run.rbv), Signal::INT).expect("interrupt rbv");
    // Seen once per full workspace run, never alone: no exit within 5 s.
    // The threads' states say where rbv waits, if it does.
    let status = wait_within(&mut run.rbv, Duration::from_secs(15));
    let threads = if status.is_none() {
        threads_of(run.rbv.id())
    } else {
        String::new()
    };
    let mut stderr = String::new();
    if status.is_some() {
        let mut pipe = run.rbv.stderr.take().expect("stderr is piped");
        pipe.read_to_string(&mut stderr).expect("read stderr");
    }
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(130),
        "{status:?}, stderr: {stderr}, rbv's threads (name state wchan): {threads}"
    );
    assert!(
        stderr.contains("rbv: interrupted (SIGINT); stopped 2 implementation processes"),
        "{stderr}"
    );
    for &pid in &run.implementations {
        assert!(
            poll_until(Duration::from_secs(5), || gone(pid)),
            "implementation {pid:?} outlived rbv"
        );
    }
}

#[test]
fn an_interrupted_run_kills_every_implementation_and_exits_130() {
    let mut run = hung_run("");
    interrupt(&mut run);
}

#[test]
fn a_hangup_rbv_was_started_ignoring_stays_ignored() {
    // What `nohup rbv run …` does.
    let mut run = hung_run("trap '' HUP; ");
    kill_process(Pid::from_child(&run.rbv), Signal::HUP).expect("hang up on rbv");
    let status = wait_within(&mut run.rbv, Duration::from_millis(500));
    assert_eq!(status, None, "rbv died of an ignored SIGHUP");
    interrupt(&mut run);
}

/// Each thread of `pid` as `name state wchan`, from /proc.
fn threads_of(pid: u32) -> String {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return "gone".to_owned();
    };
    let read = |path: std::path::PathBuf| std::fs::read_to_string(path).unwrap_or_default();
    tasks
        .flatten()
        .map(|task| {
            let stat = read(task.path().join("stat"));
            let state = stat
                .rsplit_once(')')
                .map_or("?", |(_, rest)| rest.trim_start());
            format!(
                "[{} {} {}]",
                read(task.path().join("comm")).trim(),
                state.split(' ').next().unwrap_or("?"),
                read(task.path().join("wchan")).trim()
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}
