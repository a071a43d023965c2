//! The rbv conformance case corpus: every YAML file under `cases/` of the rbv
//! repository (the requirement catalogue `REQUIREMENTS.yaml`, the plugin
//! fixtures under `plugins/` and the cases), embedded at build time.
//!
//! The build fails when the corpus has no catalogue or no case, so that a
//! binary built on this crate can never run an empty suite and pass.
//! The `rbv` harness parses and runs these files; this crate only carries
//! them, so that the corpus is versioned and published with the harness.

include!(concat!(env!("OUT_DIR"), "/files.rs"));

#[cfg(test)]
mod embed;

/// The requirement catalogue's path in [`FILES`].
pub const CATALOGUE: &str = "REQUIREMENTS.yaml";

/// How many case files (neither the catalogue nor a fixture) the build
/// found declaring a case.
pub const CASE_FILES: &str = env!("RBV_CASES_CASE_FILES");

/// The contents of the file at `path` (relative to `cases/`, with `/`).
pub fn get(path: &str) -> Option<&'static str> {
    FILES
        .binary_search_by(|(name, _)| (*name).cmp(path))
        .ok()
        .map(|i| FILES[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_corpus_is_every_yaml_of_this_directory() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let (on_disk, _) = embed::scan(root).unwrap();
        let on_disk: Vec<&str> = on_disk.iter().map(|f| f.relative.as_str()).collect();
        let embedded: Vec<&str> = FILES.iter().map(|(name, _)| *name).collect();
        assert_eq!(embedded, on_disk);
        assert!(get(CATALOGUE).is_some_and(|text| text.contains("id:")));
        assert!(embedded.iter().any(|n| n.starts_with(embed::FIXTURES)));
        assert_eq!(embed::CATALOGUE, CATALOGUE);
        assert!(CASE_FILES.parse::<usize>().unwrap() > 10, "{CASE_FILES}");
    }

    /// The published crate must carry the whole corpus: `cargo package`
    /// lists every YAML found here, and nothing beyond the manifest, the
    /// build script and the sources (no stray large files).
    #[test]
    fn the_package_carries_every_yaml_and_nothing_else() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let output = std::process::Command::new(env!("CARGO"))
            .args([
                "package",
                "--list",
                "--allow-dirty",
                "--offline",
                "--manifest-path",
            ])
            .arg(root.join("Cargo.toml"))
            .output()
            .unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(
            output.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let listed: std::collections::BTreeSet<&str> = stdout.lines().collect();
        for (name, _) in FILES {
            assert!(listed.contains(name), "{name} is not packaged: {listed:?}");
        }
        // cargo adds the lockfile, and the VCS info when packaging from git.
        let generated = [".cargo_vcs_info.json", "Cargo.lock"];
        let extra: Vec<&str> = listed
            .iter()
            .copied()
            .filter(|name| !name.ends_with(".yaml") && !name.ends_with(".yml"))
            .filter(|name| !generated.contains(name))
            .collect();
        assert_eq!(
            extra,
            [
                "Cargo.toml",
                "Cargo.toml.orig",
                "README.md",
                "build.rs",
                "src/embed.rs",
                "src/lib.rs"
            ]
        );
    }
}
