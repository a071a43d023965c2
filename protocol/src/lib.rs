//! The portable risk-band vocabulary and rbv's subprocess protocol.
//!
//! This crate holds types and their wire spelling only; every decision about
//! what a band *should* be lives in `rbv-reference`. The normative protocol
//! text is `PROTOCOL.md` at the repository root; the JSON Schemas under
//! `protocol/schema/` are generated from these types and checked for drift
//! by `cargo test -p rbv-protocol --test integration schema::` (`BLESS=1` rewrites them).

pub mod schema;
pub mod vocab;
pub mod wire;

pub use vocab::*;
pub use wire::*;

/// The protocol version this crate speaks. Bumped on any incompatible change.
pub const PROTOCOL_VERSION: u32 = 1;
