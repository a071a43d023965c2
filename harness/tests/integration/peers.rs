//! rbv against the peer adapters (`adapters/peers/`): permission checks that
//! real agent clients and MCP servers ship, wrapped behind the protocol.
//!
//! Peers are expected to fail cases, so nothing here asks them to pass.
//! Each test installs one peer folder (its `setup.sh`), runs every peer in
//! it over the corpus `interop.sh` uses, and checks that the run completed
//! with every case accounted for, that the adapter broke no protocol rule
//! (`--validate-protocol` checks every answer against the schemas),
//! and that each documented unsafe finding is still found: every case
//! tagged `peer:<name>` and every line of `adapters/peers/known-unsafe.txt`
//! fails `under` on that peer. A folder whose package cannot be installed
//! (no Node.js, no Python >= 3.12, no registry) is skipped LOUDLY, with the
//! reason, and never fails the build.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Generous: a peer package can take many seconds to import on a loaded
/// machine, and the first evaluation waits for it.
const TIMEOUT: &str = "60s";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the harness crate sits in the workspace")
        .to_path_buf()
}

struct Peer {
    name: String,
    folder: String,
    command: String,
}

fn data_lines(file: &str) -> Vec<String> {
    let path = root().join("adapters/peers").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

fn peers_in(folder: &str) -> Vec<Peer> {
    let peers: Vec<Peer> = data_lines("peers.txt")
        .iter()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(
                fields.len(),
                3,
                "peers.txt: `{line}` needs 3 tab-separated fields"
            );
            Peer {
                name: fields[0].to_owned(),
                folder: fields[1].to_owned(),
                command: fields[2].to_owned(),
            }
        })
        .filter(|p| p.folder == folder)
        .collect();
    assert!(!peers.is_empty(), "peers.txt lists no peer in {folder}");
    peers
}

/// The corpus of `interop.sh`: `cases/` as it is. The sql cases load no
/// plugin (but `sql/declared/*`), so a peer claiming only `sql` runs them.
fn corpus() -> PathBuf {
    root().join("cases")
}

fn case_ids(corpus: &Path) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(["list", "--cases"])
        .arg(corpus)
        .output()
        .expect("run rbv list");
    assert!(
        out.status.success(),
        "rbv list: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `ID  REQUIREMENTS` per case, then a `N cases` total.
    let text = String::from_utf8_lossy(&out.stdout);
    let ids: Vec<String> = text
        .lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            [id, reqs] if reqs.starts_with("RBV-") => Some(id.to_owned()),
            _ => None,
        })
        .collect();
    let total = format!("{} cases", ids.len());
    assert_eq!(
        text.lines().last().map(str::trim),
        Some(total.as_str()),
        "rbv list: {text}"
    );
    ids
}

/// Runs the folder's setup.sh; `Err` carries the reason it gave.
fn setup(folder: &str) -> Result<(), String> {
    let script = root().join("adapters/peers").join(folder).join("setup.sh");
    let out = Command::new("sh")
        .arg(&script)
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let reason = stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("setup:"))
        .or(stderr.lines().last());
    Err(reason
        .unwrap_or("setup.sh failed without a message")
        .to_owned())
}

fn run_peer(peer: &Peer) -> Value {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args([
            "run",
            "--validate-protocol",
            "--timeout",
            TIMEOUT,
            "-j",
            "2",
            "--impl",
            &peer.command,
        ])
        .arg("--cases")
        .arg(corpus())
        .arg("--report")
        .arg(dir.path())
        .current_dir(root())
        .env_remove("RBV_IMPL")
        .env_remove("RBV_CASES")
        .output()
        .expect("run rbv");
    // 0: all passed, 1: cases failed (what peers do); anything else is a
    // harness or usage error.
    let code = out.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "{}: rbv exited {code:?}\nstdout:\n{}\nstderr:\n{}",
        peer.name,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let report = dir.path().join("report.json");
    let text = std::fs::read_to_string(&report)
        .unwrap_or_else(|e| panic!("{}: no report.json ({e})", peer.name));
    serde_json::from_str(&text).expect("report.json is JSON")
}

fn verdict(case: &Value) -> (String, Option<String>) {
    let v = &case["verdict"];
    let text = |k: &str| v[k].as_str().map(str::to_owned);
    (text("status").unwrap_or_default(), text("kind"))
}

/// The checks on one peer's report; the findings it holds are returned for
/// the summary line.
fn check_report(peer: &Peer, report: &Value, ids: &[String]) -> usize {
    let name = &peer.name;
    assert_eq!(
        report["implementation"]["name"].as_str(),
        Some(name.as_str()),
        "{name}: handshake name"
    );
    let cases = report["cases"].as_array().expect("cases");
    let mut seen: BTreeMap<&str, &Value> = BTreeMap::new();
    for case in cases {
        let id = case["id"].as_str().expect("case id");
        assert!(
            seen.insert(id, case).is_none(),
            "{name}: case {id} reported twice"
        );
    }
    let missing: Vec<&String> = ids
        .iter()
        .filter(|id| !seen.contains_key(id.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "{name}: cases without a verdict: {missing:?}"
    );
    assert_eq!(
        seen.len(),
        ids.len(),
        "{name}: the report has cases the corpus lacks"
    );

    // A timeout can be the machine's load; any other error is a bug of the
    // adapter (a protocol violation, garbage, a crash).
    let mut broken = Vec::new();
    for case in cases {
        let (status, _) = verdict(case);
        if status == "error" {
            let kind = case["verdict"]["kind"].as_str().unwrap_or("?");
            let line = format!("{} ({kind}): {}", case["id"], case["message"]);
            if kind == "timeout" {
                eprintln!("WARNING {name}: timed out: {line}");
            } else {
                broken.push(line);
            }
        }
    }
    assert!(
        broken.is_empty(),
        "{name}: the adapter erred:\n{}",
        broken.join("\n")
    );

    let tag = format!("peer:{name}");
    let mut findings: Vec<&str> = cases
        .iter()
        .filter(|c| {
            c["tags"]
                .as_array()
                .is_some_and(|t| t.iter().any(|t| t.as_str() == Some(tag.as_str())))
        })
        .map(|c| c["id"].as_str().expect("id"))
        .collect();
    assert!(!findings.is_empty(), "{name}: no case is tagged {tag}");
    let listed = data_lines("known-unsafe.txt");
    findings.extend(listed.iter().filter_map(|l| {
        let (peer, id) = l.split_once(' ')?;
        (peer == name).then_some(id.trim())
    }));
    let lost: Vec<String> = findings
        .iter()
        .filter_map(|id| {
            let Some(case) = seen.get(id) else {
                return Some(format!("{id}: no such case"));
            };
            let (status, kind) = verdict(case);
            (status != "fail" || kind.as_deref() != Some("under"))
                .then(|| format!("{id}: {status} {}", kind.unwrap_or_default()))
        })
        .collect();
    assert!(
        lost.is_empty(),
        "{name}: documented unsafe findings no longer found (a fixed peer? update the case tags \
         or adapters/peers/known-unsafe.txt):\n{}",
        lost.join("\n")
    );
    findings.len()
}

fn check_folder(folder: &str) {
    if let Err(reason) = setup(folder) {
        eprintln!("\n*** SKIP: peers in adapters/peers/{folder} not installed: {reason} ***\n");
        return;
    }
    let ids = case_ids(&corpus());
    assert!(ids.len() > 100, "the corpus lists only {} cases", ids.len());
    for peer in peers_in(folder) {
        let report = run_peer(&peer);
        let held = check_report(&peer, &report, &ids);
        let s = &report["summary"];
        eprintln!(
            "{}: safety {}/{}, precision {}/{}; {held} documented unsafe findings still found",
            peer.name,
            s["safety"]["held"],
            s["safety"]["total"],
            s["precision"]["held"],
            s["precision"]["total"]
        );
    }
}

#[test]
fn gemini_cli() {
    check_folder("gemini-cli");
}

#[test]
fn dbhub() {
    check_folder("dbhub");
}

#[test]
fn postgres_mcp() {
    check_folder("postgres-mcp");
}

#[test]
fn url_filters() {
    check_folder("url-filters");
}
