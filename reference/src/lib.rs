//! The reference client model of the portable risk-band vocabulary.

pub mod classify;
pub mod mutant;

pub use mutant::Mutant;
