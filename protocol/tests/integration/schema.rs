//! The checked-in schemas under `protocol/schema/` are exactly the generated
//! ones. `BLESS=1 cargo test -p rbv-protocol --test integration schema::` rewrites them.

use rbv_protocol::schema::all_schemas;
use std::path::{Path, PathBuf};

fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schema")
}

fn render(value: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("schemas serialize");
    text.push('\n');
    text
}

#[test]
fn checked_in_schemas_match_the_wire_types() {
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let dir = schema_dir();
    let generated = all_schemas();
    let mut stale = Vec::new();
    for (name, schema) in &generated {
        let path = dir.join(name);
        let text = render(schema);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(name.clone());
        }
    }
    // A schema file no message has any more is drift too.
    for folder in ["requests", "responses"] {
        for entry in std::fs::read_dir(dir.join(folder)).expect("protocol/schema/ exists") {
            let path = entry.unwrap().path();
            let name = format!("{folder}/{}", path.file_name().unwrap().to_string_lossy());
            if !generated.iter().any(|(n, _)| *n == name) {
                if bless {
                    std::fs::remove_file(&path).unwrap();
                } else {
                    stale.push(format!("{name} (no such message)"));
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "protocol/schema/ is out of date ({}); rerun with BLESS=1",
        stale.join(", ")
    );
}

#[test]
fn every_message_type_has_a_schema_with_its_envelope() {
    let generated = all_schemas();
    let expected = rbv_protocol::RequestBody::TYPES.len() + rbv_protocol::ResponseBody::TYPES.len();
    assert_eq!(generated.len(), expected);
    for (name, schema) in &generated {
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{name}"
        );
        let required = schema["required"].as_array().unwrap();
        for key in ["id", "session", "type"] {
            assert!(
                required.iter().any(|r| r == key),
                "{name} does not require {key}"
            );
        }
        let kind = name.rsplit('/').next().unwrap().trim_end_matches(".json");
        assert_eq!(schema["properties"]["type"]["const"], kind, "{name}");
    }
}
