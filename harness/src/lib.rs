//! rbv: a conformance suite and fuzzing harness for the portable risk-band
//! vocabulary of agent plugins.

pub mod transport;
pub mod verdict;
