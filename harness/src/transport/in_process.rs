//! The reference linked in: the SDK's in-process transport over
//! [`Reference`], so that the mutant test, the fuzzers and fast checks of the
//! suite judge exactly the lines `rbv serve` would have written.

use super::sdk::{Factory, SdkInProcess};
use rbv_reference::{Mutant, Profile, Reference};
use std::sync::Arc;

/// The reference (or one of its mutants) behind `Transport`.
pub type InProcess = SdkInProcess<Reference>;

impl SdkInProcess<Reference> {
    pub fn new(mutant: Option<Mutant>) -> Self {
        Self::with_profile(mutant, Profile::default())
    }

    pub fn with_profile(mutant: Option<Mutant>, profile: Profile) -> Self {
        let factory: Factory<Reference> = Arc::new(move || Reference::new(mutant, profile));
        SdkInProcess::connect(factory).expect("the reference answers its handshake")
    }

    pub fn mutant(&self) -> Option<Mutant> {
        self.implementation().mutant()
    }
}
