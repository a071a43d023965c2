//! Fuzzing: generators that build inputs whose right answer is known, properties
//! that judge an implementation's answer (beside the outside oracles of
//! `crate::oracle`, which confirm a finding), and targets that tie them together.
//!
//! Every target is `fn(&mut Unstructured, &mut dyn Subject) ->
//! arbitrary::Result<Option<Finding>>`. The cargo-fuzz targets in `fuzz/`
//! call [`libfuzzer::libfuzzer_target`] (which panics on a finding); `rbv fuzz`
//! drives the same functions from a seeded RNG on stable; `cargo test`
//! runs a seeded smoke of each. Running out of bytes is never a finding.

pub mod campaign;
pub mod driver;
pub mod finding;
pub mod gen;
pub mod group;
pub mod libfuzzer;
pub mod minimize;
pub mod promote;
pub mod property_manifest;
pub mod property_protocol;
pub mod property_secrets;
pub mod reach;
pub mod reach_grammar;
pub mod reach_map;
pub mod req;
pub mod rng;
pub mod steps;
pub mod subject;
pub mod target_audit;
pub mod target_critical;
pub mod target_projection;
pub mod target_rule_of_two;
pub mod target_token;
pub mod target_versioning;
pub mod targets;

pub use finding::Finding;
pub use subject::{InProcess, OverTransport, Subject};
pub use targets::{Target, TARGETS};

#[cfg(test)]
mod over_transport_tests;
