//! An rbv adapter written with rbv-adapter: `PolicyClient` on stdin/stdout.
//!
//!     cargo build -p rbv-adapter --example policy_client
//!     rbv run --impl target/debug/examples/policy_client
//!
//! The same client is certified in process by
//! `harness/tests/certify_in_process.rs`.

mod client;

fn main() -> std::io::Result<()> {
    rbv_adapter::serve_stdio(client::PolicyClient)
}
