//! The adapter SDKs ship copies of `protocol/schema/` (a published package
//! has no checkout of rbv). The copies must be the schemas, byte for byte;
//! `BLESS=1 cargo test -p rbv-protocol --test integration sdk_schema_copies::` refreshes
//! them after the schemas were regenerated.

use std::path::{Path, PathBuf};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const COPIES: [&str; 2] = [
    "adapters/typescript/schema",
    "adapters/python/src/rbv_adapter/schema",
];

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for folder in ["requests", "responses"] {
        let Ok(entries) = std::fs::read_dir(dir.join(folder)) else {
            continue;
        };
        for entry in entries {
            out.push(Path::new(folder).join(entry.unwrap().file_name()));
        }
    }
    out.sort();
    out
}

#[test]
fn the_sdks_schema_copies_are_the_schemas() {
    let source = Path::new(ROOT).join("protocol/schema");
    let bless = std::env::var_os("BLESS").is_some();
    let mut drift = Vec::new();
    for copy in COPIES {
        let target = Path::new(ROOT).join(copy);
        if bless {
            for folder in ["requests", "responses"] {
                let _ = std::fs::remove_dir_all(target.join(folder));
                std::fs::create_dir_all(target.join(folder)).unwrap();
            }
            for file in files(&source) {
                std::fs::copy(source.join(&file), target.join(&file)).unwrap();
            }
            continue;
        }
        if files(&target) != files(&source) {
            drift.push(format!("{copy}: other files than protocol/schema/"));
        }
        for file in files(&source) {
            let same =
                std::fs::read(target.join(&file)).ok() == std::fs::read(source.join(&file)).ok();
            if !same {
                drift.push(format!("{copy}/{}", file.display()));
            }
        }
    }
    assert!(
        drift.is_empty(),
        "schema copies differ (run BLESS=1 cargo test -p rbv-protocol --test integration sdk_schema_copies::):\n{}",
        drift.join("\n")
    );
}
