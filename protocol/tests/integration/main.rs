//! The protocol crate's tests, one binary (a test binary per file only
//! multiplied the linking). Run one module with
//! `cargo test -p rbv-protocol --test integration MODULE::`.

mod doc_examples;
mod python_adapter;
mod schema;
mod sdk_schema_copies;
mod validator;
