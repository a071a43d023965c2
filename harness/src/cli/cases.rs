//! Where the cases come from: `--cases DIR` (or `RBV_CASES`), else the
//! corpus embedded at build time.

use crate::case::{self, Suite};
use clap::Args;
use std::path::PathBuf;

#[derive(Clone, Debug, Default, Args)]
pub struct CasesArgs {
    /// Read cases from this directory instead of the embedded corpus.
    #[arg(long, value_name = "DIR", env = "RBV_CASES")]
    pub cases: Option<PathBuf>,
}

impl CasesArgs {
    /// Loads the suite; every load error is printed, then it is a harness error.
    pub fn load(&self) -> anyhow::Result<Suite> {
        match self.load_readable()? {
            (suite, unread) if unread.is_empty() => Ok(suite),
            (_, unread) => Err(self.failed(unread)),
        }
    }

    /// Loads what of the tree can be read, with the entries that could not
    /// be (see `case::load_readable`), unprinted; an error in a file read
    /// is printed and a harness error, as for [`Self::load`].
    pub fn load_readable(&self) -> anyhow::Result<(Suite, Vec<case::LoadError>)> {
        let loaded = match &self.cases {
            Some(dir) => case::load_readable(dir),
            None => case::load_files(&crate::embedded::files()).map(|suite| (suite, Vec::new())),
        };
        loaded.map_err(|errors| self.failed(errors))
    }

    fn failed(&self, errors: Vec<case::LoadError>) -> anyhow::Error {
        for error in &errors {
            eprintln!("{error}");
        }
        let from = self
            .cases
            .as_ref()
            .map_or("the embedded corpus".to_owned(), |d| {
                d.display().to_string()
            });
        anyhow::anyhow!("{} load errors in {from}", errors.len())
    }
}
