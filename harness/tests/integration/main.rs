//! rbv's integration tests, one binary: a test binary links the whole
//! graph, so one per concern cost minutes of linking on every `cargo
//! test`. Each module is one concern, named as its file; run one with
//! `cargo test -p rbv --test integration MODULE::`.
//!
//! Three suites keep binaries of their own: `conformance` and
//! `certify_in_process` are libtest-mimic harnesses (one trial per case),
//! and `hostile` counts processes and measures memory, which tests running
//! beside it in one process would disturb.

mod all_mutants;
mod bug_families;
mod case_schema;
mod certify_cli;
mod certify_stdio;
mod ci_examples;
mod cli;
mod cli_fuzz;
mod code_map;
mod escapes;
mod fuzz_campaign;
mod fuzz_output;
mod fuzz_smoke;
mod grammar_lint;
mod grammar_sources;
mod loader;
mod messages;
mod mutants;
mod pair_lint;
mod parallel;
mod peers;
mod postgres_oracle;
mod protocol_area;
mod report_browser;
mod report_cli;
mod report_glue;
mod rules_pages;
mod sdk_adapters;
mod shell_oracle;
mod support;
mod url_oracle;
mod user_cases;
