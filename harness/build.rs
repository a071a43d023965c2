//! Embeds the case corpus (`../cases`) in the binary, so that an installed
//! `rbv` runs the suite from any directory (`--cases DIR` overrides it).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let cases = manifest_dir.join("../cases");
    println!("cargo:rerun-if-changed={}", cases.display());
    let mut files = Vec::new();
    if cases.is_dir() {
        collect(&cases, &cases, &mut files);
    }
    files.sort();
    let mut out = String::from(
        "/// Every file of the case corpus: (path relative to `cases/`, contents).\n\
         pub static EMBEDDED: &[(&str, &str)] = &[\n",
    );
    for (relative, absolute) in &files {
        println!("cargo:rerun-if-changed={}", absolute.display());
        writeln!(
            out,
            "    ({relative:?}, include_str!({:?})),",
            absolute.display().to_string()
        )
        .expect("writing to a String");
    }
    out.push_str("];\n");
    let dest =
        PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("embedded_cases.rs");
    std::fs::write(dest, out).expect("write embedded_cases.rs");
}

/// Every `*.yaml` under `dir`; directories are watched too, so that an added
/// file triggers a rebuild.
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(root, &path, files);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            let relative = path.strip_prefix(root).expect("under root");
            let relative = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            files.push((relative, path.canonicalize().unwrap_or(path)));
        }
    }
}
