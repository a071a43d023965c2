//! The report crate's tests, one binary (a test binary per file only
//! multiplied the linking). Run one module with
//! `cargo test -p rbv-report --test integration MODULE::`.

mod baseline;
mod campaign;
mod certification;
mod common;
mod compare_diff;
mod render;
