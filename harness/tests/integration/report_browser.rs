//! report.html in a real browser: headless Chromium loads the page (which
//! may load nothing else), runs its script, and we read back what it
//! shows. Without /usr/bin/chromium the test says SKIP loudly and passes;
//! CI installs Chromium.

use rbv::case::load_dir;
use rbv::reporting::{self, RunRecord};
use rbv::runner::{run, RunOptions};
use rbv::transport::Target;
use rbv_reference::Mutant;
use rbv_report::render::escape;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

const CHROMIUM: &str = "/usr/bin/chromium";

/// Runs Chromium headless with a fresh profile; returns its stdout. The
/// child is killed (by its own handle) if it outlives the deadline.
fn chromium(args: &[String]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).unwrap();
        s
    });
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish in 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    reader.join().unwrap()
}

fn url(path: &Path, fragment: &str) -> String {
    format!("file://{}{fragment}", path.display())
}

fn mutant_report(dir: &Path) -> rbv_report::Report {
    let cases: PathBuf = concat!(env!("CARGO_MANIFEST_DIR"), "/../cases").into();
    let suite = load_dir(&cases).unwrap_or_else(|e| panic!("{} load errors", e.len()));
    let options = RunOptions {
        filters: Vec::new(),
        jobs: 2,
        deadline: None,
    };
    let outcome = run(
        &suite.cases,
        &Target::InProcess(Some(Mutant::FirstKeywordSql), Default::default()),
        &options,
    );
    let record = RunRecord::new(&suite, &outcome, SystemTime::now());
    reporting::write_report(dir, &record).unwrap()
}

/// Text as Chromium serializes it inside an element.
fn dom_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[test]
fn chromium_shows_scores_failures_and_working_filters() {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("SKIP report_browser: {CHROMIUM} is absent (CI installs chromium)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let report = mutant_report(dir.path());
    let page = dir.path().join("report.html");
    let s = &report.summary;
    assert!(s.counts.fail > 0, "the mutant fails cases");

    let dom = chromium(&["--dump-dom".to_owned(), url(&page, "")]);
    assert!(
        dom.contains("</html>"),
        "chromium rendered the page: {}",
        &dom[..dom.len().min(500)]
    );
    assert!(dom.contains(&format!("id=\"score-safety\">{}<", s.safety.display())));
    assert!(dom.contains(&format!(
        "id=\"score-precision\">{}<",
        s.precision.display()
    )));
    assert!(dom.contains(&format!(">{}<", s.level.name())));
    // The first failure's diff, line by line, as the browser holds it.
    let failure = report.cases.iter().find(|c| c.diff.is_some()).unwrap();
    for line in failure
        .diff
        .as_deref()
        .unwrap()
        .lines()
        .filter(|l| l.starts_with(['+', '-']))
    {
        assert!(
            dom.contains(&dom_text(line)),
            "diff line {line:?} of {} not shown",
            failure.id
        );
    }
    assert!(dom.contains(&dom_text(&failure.id)));
    // The filter controls, and the script ran (it fills the counter).
    assert!(dom.contains("id=\"filter-verdict\"") && dom.contains("id=\"filter-area\""));
    assert!(dom.contains(&format!(
        "id=\"filter-count\">{} cases shown<",
        report.cases.len()
    )));

    // Filtering by fragment: only `under` rows stay visible.
    let under = report
        .cases
        .iter()
        .filter(|c| c.verdict.label() == "under")
        .count();
    assert!(under > 0);
    let dom = chromium(&["--dump-dom".to_owned(), url(&page, "#verdict=under")]);
    assert!(dom.contains(&format!(
        "id=\"filter-count\">{under} case{} shown<",
        if under == 1 { "" } else { "s" }
    )));
    assert_eq!(
        dom.matches("<tr class=\"case hidden\"").count(),
        report.cases.len() - under
    );
    let area = &failure.area;
    let in_area = report.cases.iter().filter(|c| &c.area == area).count();
    let dom = chromium(&[
        "--dump-dom".to_owned(),
        url(&page, &format!("#area={}", escape(area))),
    ]);
    assert!(dom.contains(&format!("id=\"filter-count\">{in_area} case")));

    // And a screenshot of it.
    let shot = dir.path().join("report.png");
    chromium(&[
        format!("--screenshot={}", shot.display()),
        "--window-size=1280,2000".to_owned(),
        url(&page, ""),
    ]);
    let png = std::fs::read(&shot).expect("a screenshot was written");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
}
