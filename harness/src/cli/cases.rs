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
        let loaded = match &self.cases {
            Some(dir) => case::load_dir(dir),
            None => case::load_files(&crate::embedded::files()),
        };
        loaded.map_err(|errors| {
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
        })
    }
}
