//! Embeds every `*.yaml` of this directory (the case corpus) in the crate,
//! and refuses to build a corpus that would certify on nothing.

#[path = "src/embed.rs"]
mod embed;

use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let (files, dirs) = embed::scan(&root).unwrap_or_else(|e| fail(&root, &e));
    let cases = embed::check(&files).unwrap_or_else(|e| fail(&root, &e));
    // Watching every directory (not only the files) rebuilds when a case
    // file is added; the files themselves are tracked through include_str!.
    for dir in &dirs {
        println!("cargo:rerun-if-changed={}", dir.display());
    }
    println!("cargo:rerun-if-changed=src/embed.rs");
    println!("cargo:rustc-env=RBV_CASES_CASE_FILES={cases}");
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("files.rs");
    std::fs::write(dest, embed::render(&files)).expect("write files.rs");
}

fn fail(root: &std::path::Path, message: &str) -> ! {
    eprintln!(
        "error: rbv-cases: refusing to embed the case corpus in {}: {message}. \
         An rbv built on it would pass zero cases.",
        root.display()
    );
    std::process::exit(1);
}
