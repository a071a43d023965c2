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

    /// [`CasesArgs::load`] for a command that needs the whole suite: a
    /// tree that does not load is said on stderr, and `None`.
    pub fn load_or_say(&self) -> Option<Suite> {
        self.load().map_err(|error| eprintln!("rbv: {error}")).ok()
    }

    /// [`CasesArgs::load`], and the paths `--add-cases` added.
    pub fn load_with_added(&self) -> anyhow::Result<(Suite, BTreeSet<String>)> {
        match self.load_readable()? {
            (suite, added, unread) if unread.is_empty() => Ok((suite, added)),
            (_, _, unread) => Err(self.failed(unread)),
        }
    }

    /// Loads what of the tree can be read, with the paths `--add-cases`
    /// added and the entries that could not be read (see
    /// `case::load_readable`), unprinted; an error in a file read is
    /// printed and a harness error, as for [`Self::load`].
    pub fn load_readable(&self) -> anyhow::Result<(Suite, BTreeSet<String>, Vec<case::LoadError>)> {
        let loaded = match (&self.cases, &self.add_cases) {
            (Some(dir), None) => {
                case::load_readable(dir).map(|(suite, unread)| (suite, BTreeSet::new(), unread))
            }
            (None, None) => case::load_files(&crate::embedded::files())
                .map(|suite| (suite, BTreeSet::new(), Vec::new())),
            (_, Some(_)) => {
                let (files, mut unread) = self.files();
                match case::load_files(&files.files) {
                    Ok(suite) => Ok((suite, files.added, unread)),
                    Err(mut more) => {
                        unread.append(&mut more);
                        Err(unread)
                    }
                }
            }
        };
        loaded.map_err(|errors| self.failed(errors))
    }

    fn failed(&self, errors: Vec<case::LoadError>) -> anyhow::Error {
        for error in &errors {
            eprintln!("{error}");
        }
        anyhow::anyhow!("{} load errors in {}", errors.len(), self.describe())
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
