//! Where the cases come from: `--cases DIR` (or `RBV_CASES`), else the
//! corpus embedded at build time; `--add-cases DIR` adds a user's files to
//! either.

use crate::case::{self, LoadError, Suite};
use clap::Args;
use std::collections::BTreeSet;
use std::path::PathBuf;

#[derive(Clone, Debug, Default, Args)]
pub struct CasesArgs {
    /// Read cases from this directory instead of the embedded corpus.
    #[arg(long, value_name = "DIR", env = "RBV_CASES")]
    pub cases: Option<PathBuf>,
    /// Add the case files under DIR to the suite: they load with its
    /// catalogue and plugin fixtures (and may add fixtures of their own)
    /// and run beside its cases.
    #[arg(long, value_name = "DIR")]
    pub add_cases: Option<PathBuf>,
}

/// The suite's files, `(path, contents)`, and the paths `--add-cases` added.
pub struct SuiteFiles {
    pub files: Vec<(String, String)>,
    pub added: BTreeSet<String>,
}

impl CasesArgs {
    /// Whether the suite is the whole corpus built into rbv, as it is.
    pub fn is_embedded_corpus(&self) -> bool {
        self.cases.is_none() && self.add_cases.is_none()
    }

    /// The files of the suite, with every error reading them.
    pub fn files(&self) -> (SuiteFiles, Vec<LoadError>) {
        let (mut files, mut errors) = match &self.cases {
            Some(dir) => case::files::read_tree(dir),
            None => (crate::embedded::files(), Vec::new()),
        };
        let mut added = BTreeSet::new();
        if let Some(dir) = &self.add_cases {
            let (more, mut more_errors) = case::files::read_tree(dir);
            errors.append(&mut more_errors);
            added = more.iter().map(|(p, _)| p.clone()).collect();
            errors.append(&mut case::add_files(&mut files, more));
        }
        (SuiteFiles { files, added }, errors)
    }

    /// Loads the suite; every load error is printed, then it is a harness error.
    pub fn load(&self) -> anyhow::Result<Suite> {
        self.load_with_added().map(|(suite, _)| suite)
    }

    /// [`CasesArgs::load`], and the paths `--add-cases` added.
    pub fn load_with_added(&self) -> anyhow::Result<(Suite, BTreeSet<String>)> {
        let (loaded, added) = match (&self.cases, &self.add_cases) {
            (Some(dir), None) => (case::load_dir(dir), BTreeSet::new()),
            (None, None) => (case::load_files(&crate::embedded::files()), BTreeSet::new()),
            (_, Some(_)) => {
                let (files, mut errors) = self.files();
                let loaded = match case::load_files(&files.files) {
                    Ok(suite) if errors.is_empty() => Ok(suite),
                    Ok(_) => Err(errors),
                    Err(mut more) => {
                        errors.append(&mut more);
                        Err(errors)
                    }
                };
                (loaded, files.added)
            }
        };
        loaded.map(|suite| (suite, added)).map_err(|errors| {
            for error in &errors {
                eprintln!("{error}");
            }
            anyhow::anyhow!("{} load errors in {}", errors.len(), self.describe())
        })
    }

    /// The suite's fingerprint: sha256 over the contents of its files, the
    /// added ones included.
    pub fn digest(&self) -> anyhow::Result<String> {
        if self.add_cases.is_none() {
            return crate::reporting::suite_digest(self.cases.as_deref());
        }
        let (files, errors) = self.files();
        if let Some(e) = errors.first() {
            anyhow::bail!("{e}");
        }
        Ok(rbv_report::cases_sha256(
            files.files.into_iter().map(|(_, text)| text.into_bytes()),
        ))
    }

    /// Where the cases came from, for messages.
    fn describe(&self) -> String {
        let base = self
            .cases
            .as_ref()
            .map_or("the embedded corpus".to_owned(), |d| {
                d.display().to_string()
            });
        match &self.add_cases {
            Some(dir) => format!("{base} with {}", dir.display()),
            None => base,
        }
    }
}
