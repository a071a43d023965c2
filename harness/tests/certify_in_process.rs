//! The example client of rbv-adapter (`adapters/rust/examples/policy_client`),
//! certified in process the way a client team certifies theirs: one trial
//! per case, `cargo test -p rbv --test certify_in_process -- tokens/`
//! runs one area. A whole run must also earn what the example claims:
//! Precise for manifest, projection and tokens (and the base cases), so
//! that an example claiming nothing, or passing only by skipping, fails.

// The example's client code itself, not a copy: the binary serves it on
// stdio (`harness/tests/certify_stdio.rs`), this test links it in.
#[path = "../../adapters/rust/examples/policy_client/client/mod.rs"]
mod client;

use libtest_mimic::Arguments;
use rbv::certify::Certification;
use rbv_report::{CapabilityStatus, Level};

fn main() {
    // The one-line route of adapters/rust/README.md type-checks for the example
    // (this `main` needs the report, so it spells the route out instead).
    let _readme_route: fn() -> ! = rbv::certify::main::<client::PolicyClient>;
    let args = Arguments::from_args();
    let certification = Certification::new(|| client::PolicyClient);
    let conclusion = libtest_mimic::run(&args, certification.trials());
    if let Some(report) = certification.report() {
        let cert = &report.summary.certification;
        eprintln!("rbv (in process): {}", cert.statement);
        for name in ["base", "manifest", "projection", "tokens"] {
            let capability = cert
                .capabilities
                .iter()
                .find(|c| c.capability == name)
                .unwrap_or_else(|| panic!("no `{name}` in {cert:?}"));
            assert_eq!(
                (capability.status, capability.level),
                (CapabilityStatus::Certified, Some(Level::Precise)),
                "{name}: {}",
                cert.statement
            );
            assert!(
                capability.counts.pass > 0,
                "{name}: {:?}",
                capability.counts
            );
        }
    }
    conclusion.exit()
}
