//! Test-only code shared by integration tests and the bench example.
pub mod bugs;
