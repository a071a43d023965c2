//! rbv: a conformance suite and fuzzing harness for the portable risk-band
//! vocabulary of agent plugins.

pub mod bench;
pub mod bounds;
pub mod case;
pub mod certify;
pub mod cli;
pub mod embedded;
pub mod fuzz;
pub mod grammar;
pub mod mutation;
pub mod oracle;
pub mod parallel;
pub mod reporting;
pub mod runner;
pub mod transport;
pub mod verdict;
pub mod worker;
