//! docs/DESIGN.md's code map names every module of every crate, and its
//! links resolve: a newcomer reading it finds what is there, and nothing
//! that is not.

use std::path::{Path, PathBuf};

const CRATES: &[&str] = &[
    "protocol",
    "adapters/rust",
    "reference",
    "report",
    "cases",
    "harness",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The section of DESIGN.md from the code map's heading to the next.
fn code_map(design: &str) -> &str {
    let start = design
        .find("## 6. Code map")
        .expect("DESIGN.md has a code map");
    let rest = &design[start + 3..];
    let end = rest.find("\n## ").map_or(rest.len(), |e| e);
    &rest[..end]
}

/// A crate's top-level modules, as the code map names them: `name.rs` for a
/// file, `name/` for a directory that is more than its tests.
fn modules(src: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(src).expect("a crate has src/") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            let only_tests = std::fs::read_dir(&path).unwrap().all(|e| {
                e.unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with("tests")
            });
            if !only_tests {
                names.push(format!("{name}/"));
            }
        } else if name.ends_with(".rs")
            && !matches!(name.as_str(), "lib.rs" | "main.rs")
            && !name.starts_with("tests")
        {
            names.push(name);
        }
    }
    names.sort();
    names
}

#[test]
fn the_code_map_names_every_module() {
    let design = std::fs::read_to_string(root().join("docs/DESIGN.md")).unwrap();
    let map = code_map(&design);
    let mut missing = Vec::new();
    for krate in CRATES {
        for module in modules(&root().join(krate).join("src")) {
            if !map.contains(&format!("`{module}")) && !map.contains(&format!(" {module}")) {
                missing.push(format!("{krate}/src/{module}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/DESIGN.md §6 does not name: {}",
        missing.join(", ")
    );
}

#[test]
fn the_design_brief_links_only_files_that_exist() {
    let design = std::fs::read_to_string(root().join("docs/DESIGN.md")).unwrap();
    let dead: Vec<&str> = design
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .filter(|target| !target.contains("://") && !target.starts_with('#'))
        .filter(|target| {
            let file = target.split('#').next().unwrap();
            !root().join("docs").join(file).exists()
        })
        .collect();
    assert!(dead.is_empty(), "dead links in docs/DESIGN.md: {dead:?}");
}
