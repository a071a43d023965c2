//! Finds the corpus files and writes the Rust source that embeds them.
//!
//! Shared by `build.rs` (which includes this file with `#[path]`) and by the
//! crate's unit tests, so that the refusal of an empty corpus is tested on
//! the very function the build runs. Only `std`: a build script's
//! dependencies are compiled a second time for the host.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The requirement catalogue, relative to the corpus root.
pub const CATALOGUE: &str = "REQUIREMENTS.yaml";
/// Plugin fixtures live under this directory; they are not cases.
pub const FIXTURES: &str = "plugins/";
/// Grammar coverage files live under this directory; they are not cases.
pub const GRAMMAR: &str = "grammar/";

/// One embedded file: its path relative to the corpus root (with `/`) and
/// where it is on disk.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CorpusFile {
    pub relative: String,
    pub absolute: PathBuf,
}

/// Every `*.yaml` / `*.yml` under `root`, sorted by relative path, and the
/// directories walked (a build script watches them). Hidden directories,
/// `src/` and `target/` are not corpus.
pub fn scan(root: &Path) -> Result<(Vec<CorpusFile>, Vec<PathBuf>), String> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    walk(root, root, &mut files, &mut dirs)?;
    files.sort();
    Ok((files, dirs))
}

fn walk(
    root: &Path,
    dir: &Path,
    files: &mut Vec<CorpusFile>,
    dirs: &mut Vec<PathBuf>,
) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let meta = std::fs::symlink_metadata(&path)
            .map_err(|e| format!("cannot stat {}: {e}", path.display()))?;
        // `rbv run --cases DIR` refuses links in a cases tree; the embedded
        // corpus follows the same rule, so that both read the same suite.
        if meta.is_symlink() {
            return Err(format!(
                "{} is a symbolic link: a cases tree holds regular files only",
                path.display()
            ));
        }
        if meta.is_dir() {
            let skipped =
                name.starts_with('.') || (dir == root && (name == "src" || name == "target"));
            if !skipped {
                dirs.push(path.clone());
                walk(root, &path, files, dirs)?;
            }
        } else if name.ends_with(".yaml") || name.ends_with(".yml") {
            let relative = path
                .strip_prefix(root)
                .expect("walked from root")
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            files.push(CorpusFile {
                relative,
                absolute: path,
            });
        }
    }
    Ok(())
}

/// Refuses a corpus that would certify on nothing: no catalogue, an empty
/// catalogue, or no case file that declares a case `id`. Returns the number
/// of case files (neither the catalogue nor a fixture).
pub fn check(files: &[CorpusFile]) -> Result<usize, String> {
    let read = |f: &CorpusFile| {
        std::fs::read_to_string(&f.absolute)
            .map_err(|e| format!("cannot read {}: {e}", f.absolute.display()))
    };
    let catalogue = files
        .iter()
        .find(|f| f.relative == CATALOGUE)
        .ok_or_else(|| format!("the corpus has no {CATALOGUE} (the requirement catalogue)"))?;
    if read(catalogue)?.trim().is_empty() {
        return Err(format!("the corpus's {CATALOGUE} is empty"));
    }
    let mut cases = 0;
    for file in files {
        if file.relative == CATALOGUE
            || file.relative.starts_with(FIXTURES)
            || file.relative.starts_with(GRAMMAR)
        {
            continue;
        }
        // A textual look for an `id:` key is enough here: the harness parses
        // every case and rejects malformed ones; this guards only against a
        // corpus with nothing in it.
        let declares_a_case = read(file)?.lines().any(|line| {
            let line = line.trim_start().trim_start_matches("- ").trim_start();
            line.starts_with("id:")
        });
        if declares_a_case {
            cases += 1;
        }
    }
    if cases == 0 {
        return Err(format!(
            "the corpus has no case file ({} YAML file(s), none but the catalogue and \
             fixtures declares an `id:`)",
            files.len()
        ));
    }
    Ok(cases)
}

/// The Rust source of `FILES`: one `(relative path, include_str!(absolute))`
/// per file, so that cargo's dependency tracking sees every file too.
pub fn render(files: &[CorpusFile]) -> String {
    let mut out = String::from(
        "/// Every file of the case corpus: (path relative to `cases/`, contents),\n\
         /// sorted by path.\n\
         pub static FILES: &[(&str, &str)] = &[\n",
    );
    for file in files {
        writeln!(
            out,
            "    ({:?}, include_str!({:?})),",
            file.relative,
            file.absolute.display().to_string()
        )
        .expect("writing to a String");
    }
    out.push_str("];\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        dir
    }

    fn checked(dir: &tempfile::TempDir) -> Result<usize, String> {
        check(&scan(dir.path())?.0)
    }

    #[test]
    fn an_empty_directory_is_refused() {
        let dir = tree(&[]);
        let error = checked(&dir).unwrap_err();
        assert!(error.contains("no REQUIREMENTS.yaml"), "{error}");
    }

    #[test]
    fn a_catalogue_without_cases_is_refused() {
        let dir = tree(&[
            ("REQUIREMENTS.yaml", "requirements: []\n"),
            ("plugins/fs.yaml", "id: fs\n"),
            ("notes/empty.yaml", "# nothing\n"),
        ]);
        let error = checked(&dir).unwrap_err();
        assert!(error.contains("no case file"), "{error}");
    }

    #[test]
    fn cases_without_a_catalogue_are_refused() {
        let dir = tree(&[("tokens/a.yaml", "id: tokens/a\n")]);
        assert!(checked(&dir).unwrap_err().contains("no REQUIREMENTS.yaml"));
        let dir = tree(&[("REQUIREMENTS.yaml", " \n"), ("tokens/a.yaml", "id: a\n")]);
        assert!(checked(&dir).unwrap_err().contains("is empty"));
    }

    #[cfg(unix)]
    #[test]
    fn a_link_in_the_tree_is_refused() {
        let dir = tree(&[("REQUIREMENTS.yaml", "x: 1\n"), ("a/b.yaml", "id: b\n")]);
        std::os::unix::fs::symlink(dir.path().join("a/b.yaml"), dir.path().join("c.yaml")).unwrap();
        let error = scan(dir.path()).unwrap_err();
        assert!(error.contains("c.yaml is a symbolic link"), "{error}");
    }

    #[test]
    fn a_corpus_with_cases_passes_and_renders_every_yaml() {
        let dir = tree(&[
            ("REQUIREMENTS.yaml", "requirements: []\n"),
            ("tokens/a.yaml", "# comment\n- id: tokens/a\n"),
            ("sql/b.yml", "table:\n  id: \"sql/${x}\"\n"),
            ("plugins/fs.yaml", "name: fs\n"),
            ("src/not-corpus.yaml", "id: x\n"),
            (".hidden/c.yaml", "id: c\n"),
            ("README.md", "id: not yaml\n"),
        ]);
        let (files, dirs) = scan(dir.path()).unwrap();
        let names: Vec<&str> = files.iter().map(|f| f.relative.as_str()).collect();
        assert_eq!(
            names,
            [
                "REQUIREMENTS.yaml",
                "plugins/fs.yaml",
                "sql/b.yml",
                "tokens/a.yaml"
            ]
        );
        assert!(dirs.contains(&dir.path().join("tokens")));
        assert_eq!(check(&files).unwrap(), 2);
        let source = render(&files);
        assert_eq!(source.matches("include_str!").count(), 4, "{source}");
        assert!(source.contains("(\"tokens/a.yaml\", include_str!("));
    }
}
