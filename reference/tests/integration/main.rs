//! The reference's tests, one binary (a test binary per file only
//! multiplied the linking). Run one module with
//! `cargo test -p rbv-reference --test integration MODULE::`.
//! `corpus_over_protocol` keeps a binary of its own: mutation testing
//! builds and runs it alone against each mutant.

mod corpus_parsers;
mod corpus_sql;
mod corpus_url;
mod mutants_live;
mod rbv_ref_bin;
