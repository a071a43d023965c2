//! The reference client model of the portable risk-band vocabulary: manifest
//! validation, projection, call-time classifiers, Rule-of-Two, tokens and
//! audit, served over rbv's protocol by the Rust SDK ([`Reference`] is its
//! `Implementation`; [`server`], [`serve`]), with the mutants that prove
//! every case can fail.
//!
//! Every answer follows the server's [`Profile`] (the handshake's `profile`):
//! which placements of the permissions object are read, the Rule-of-Two
//! threshold, the band of hard-to-reverse ∧ local, and the band of an
//! undeclared operation no inspector reads ([`Reference::new`] takes it).
//!
//! Readings where DESIGN.md §2 is silent (each documented at its module):
//! - a declaration's Rule-of-Two contribution comes from its declared effect
//!   (state changes unless reversible ∧ local; a missing axis, or a band-only
//!   `soft-ack`/`escalate`, counts as a state change); an undeclared opaque
//!   tool counts as a state change ([`engine`]);
//! - the call's input trust is `operation.trust`, else untrusted once the
//!   session ingested untrusted content; a declared tool is re-projected
//!   with it ([`engine`]);
//! - evaluation never changes the session; an allowed invocation adds its
//!   booleans to the run ([`server`]);
//! - a critical operation reports band escalate and decision deny;
//! - `set_policy` only tightens within a session ([`policy`]);
//! - tokens bind numbers by their exact text, not RFC 8785's doubles
//!   ([`canonical`]); version bumps below 1.0.0 follow Cargo ([`diff`]).

pub mod audit;
mod bypass;
pub mod canonical;
pub mod classify;
pub mod diff;
pub mod engine;
pub mod manifest;
pub mod mutant;
pub mod policy;
pub mod profile;
pub mod projection;
pub mod rule_of_two;
pub mod server;
pub mod session;
pub mod token;

pub use mutant::Mutant;
pub use profile::{Placement, Profile};
pub use server::{serve, server, Reference, Server};
