//! rbv's result model and its renderers.
//!
//! A run becomes a [`Report`] ([`model`]); [`score`] derives scores and
//! requirement status, [`certify`] the level of each capability and the
//! overall level; [`render::write_all`]
//! writes every format into a directory; [`baseline`] applies a file of
//! known failures; [`compare`] builds the interop matrix of several
//! reports and [`diff`] the changes between two runs.

pub mod baseline;
pub mod certificate;
pub mod compare;
pub mod diff;
pub mod files;
pub mod model;
pub mod render;
pub mod score;
pub mod text;

pub use baseline::{apply_baseline, Baseline, BaselineEntry, BaselineError};
pub use model::*;
pub use render::write_all;

use sha2::{Digest, Sha256};

/// The suite's fingerprint: sha256 over the case files' contents, sorted
/// by content so that the same cases give the same digest wherever the
/// suite is checked out. Each file is length-prefixed, so that contents
/// cannot run into each other.
pub fn cases_sha256<I, B>(files: I) -> String
where
    I: IntoIterator<Item = B>,
    B: AsRef<[u8]>,
{
    let mut contents: Vec<B> = files.into_iter().collect();
    contents.sort_by(|a, b| a.as_ref().cmp(b.as_ref()));
    let mut hasher = Sha256::new();
    for c in &contents {
        let c = c.as_ref();
        hasher.update((c.len() as u64).to_le_bytes());
        hasher.update(c);
    }
    hex::encode(hasher.finalize())
}

#[cfg(test)]
mod tests {
    #[test]
    fn cases_digest_ignores_order_but_not_content() {
        let a = super::cases_sha256(["x: 1\n", "y: 2\n"]);
        assert_eq!(a, super::cases_sha256(["y: 2\n", "x: 1\n"]));
        assert_ne!(a, super::cases_sha256(["x: 1\n", "y: 3\n"]));
        assert_ne!(
            super::cases_sha256(["ab", "c"]),
            super::cases_sha256(["a", "bc"])
        );
        assert_eq!(a.len(), 64);
    }
}
