//! `docs/case.schema.json`, the case format for editors and tools in other
//! languages, checked both ways: every document under `cases/` validates,
//! and documents the loader rejects for their shape are rejected.

use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("docs/case.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::draft202012::new(&schema).expect("the schema compiles")
}

fn documents(src: &str) -> Vec<Value> {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    serde_saphyr::from_multiple_with_options::<Value>(src, options)
        .expect("YAML")
        .into_iter()
        .filter(|d| !d.is_null())
        .collect()
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml") {
            out.push(path);
        }
    }
}

#[test]
fn every_case_document_validates() {
    let cases = root().join("cases");
    if !cases.exists() {
        return;
    }
    let v = validator();
    let mut files = Vec::new();
    yaml_files(&cases, &mut files);
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in files {
        let rel = file
            .strip_prefix(&cases)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        // Grammar files list productions; the schema is the cases'.
        if rel == "REQUIREMENTS.yaml" || rel.starts_with("plugins/") || rel.starts_with("grammar/")
        {
            continue;
        }
        let src = std::fs::read_to_string(&file).unwrap();
        for (i, doc) in documents(&src).iter().enumerate() {
            checked += 1;
            for e in v.iter_errors(doc).take(3) {
                let mut message = e.to_string();
                if let Some((cut, _)) = message.char_indices().rev().nth(120) {
                    // The value is quoted whole: keep its end, which names the keyword.
                    message = format!("…{}", &message[cut..]);
                }
                let id = doc.get("id").or_else(|| doc.pointer("/table/id"));
                problems.push(format!(
                    "{rel} document {} ({}): {}: {message}",
                    i + 1,
                    id.unwrap_or(&Value::Null),
                    e.instance_path()
                ));
            }
        }
    }
    assert!(checked > 100, "only {checked} documents");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn what_the_loader_rejects_for_its_shape_the_schema_rejects() {
    let v = validator();
    let head = "id: a/b\nrequirements: [R-1]\nsource: {proposal: \"§1\"}\n";
    let good = format!(
        "{head}steps:\n  - evaluate: {{id: \"client:x\"}}\n    session: b\n    capture: {{s: signature}}\n  - evaluate: {{id: \"client:x\"}}\n    expect: {{same: {{signature: s}}, match: {{audit: {{timestamp: {{$format: date-time}}, operation: {{$one_of: [a, {{$regex: \"c.*\"}}]}}}}}}}}\n"
    );
    let doc = &documents(&good)[0];
    assert!(
        v.is_valid(doc),
        "{:?}",
        v.iter_errors(doc)
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
    );
    let bad = [
        "  - evaluate: {id: x}\n    colour: red\n",
        "  - evaluate: {id: x}\n    invoke: {operation: {id: x}}\n",
        "  - evaluate: {id: x}\n    session: \"0-3\"\n",
        "  - evaluate: {id: x}\n    session: \"\"\n",
        "  - evaluate: {id: x}\n    expect: {match: {band: {$format: uuid}}}\n",
        "  - evaluate: {id: x}\n    expect: {match: {band: {$regex: a, b: 1}}}\n",
        "  - evaluate: {id: x}\n    expect: {match: {band: {$min_length: -1}}}\n",
        "  - evaluate: {id: x}\n    expect: {same: {signature: [s]}}\n",
        "  - evaluate: {id: x}\n    expect: {differs: {}}\n",
        "  - reset_session: {now: true}\n",
    ];
    for steps in bad {
        let doc = &documents(&format!("{head}steps:\n{steps}"))[0];
        assert!(!v.is_valid(doc), "accepted:\n{steps}");
    }
}
