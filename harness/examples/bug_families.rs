//! Time to first finding of each realistic bug family (tests/integration/support/bugs.rs),
//! median over seeds 1..=5, in-process or over the protocol.
//! Usage: bug_families [--impl CMD] [--time SECS]   (scripts/bench-fuzz.sh)

#[path = "../tests/integration/support/bugs.rs"]
mod bugs;

use rbv::fuzz::driver::{drive, Options};
use rbv::fuzz::targets::by_name;
use rbv::fuzz::{InProcess, OverTransport, Subject};
use rbv::transport::{Connect, ProcessConfig, Target as AdapterTarget};
use std::time::Duration;

fn subject(command: Option<&str>) -> Box<dyn Subject> {
    match command {
        None => Box::new(InProcess::new(None)),
        Some(cmd) => {
            rbv::transport::affinity::pin_current_thread_here();
            let transport = AdapterTarget::Process(ProcessConfig::new(cmd.to_owned()))
                .connect()
                .unwrap_or_else(|e| panic!("cannot start `{cmd}`: {}", e.message));
            Box::new(OverTransport::new(transport))
        }
    }
}

struct Boxed(Box<dyn Subject>);

impl Subject for Boxed {
    fn fresh_session(&mut self) -> String {
        self.0.fresh_session()
    }
    fn call(
        &mut self,
        s: &str,
        b: rbv_protocol::RequestBody,
    ) -> Result<rbv_protocol::ResponseBody, String> {
        self.0.call(s, b)
    }
    fn call_batch(
        &mut self,
        s: &str,
        b: Vec<rbv_protocol::RequestBody>,
    ) -> Vec<Result<rbv_protocol::ResponseBody, String>> {
        self.0.call_batch(s, b)
    }
    fn claims(&self, c: rbv_protocol::Capability) -> bool {
        self.0.claims(c)
    }
    fn end_exec(&mut self) {
        self.0.end_exec()
    }
    fn name(&self) -> String {
        self.0.name()
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let command = flag("--impl");
    let secs: u64 = flag("--time").and_then(|s| s.parse().ok()).unwrap_or(10);
    let mode = if command.is_some() {
        "over the protocol"
    } else {
        "in-process"
    };
    println!("| bug family | target | {mode}: median ms to first finding (5 seeds) | found in |");
    println!("|---|---|---:|---:|");
    for (bug, name, target) in bugs::ALL {
        let target = by_name(target).expect("a target");
        let mut times: Vec<f64> = Vec::new();
        for seed in 1..=5u64 {
            let mut buggy = bugs::Buggy::new(Boxed(subject(command.as_deref())), *bug);
            let options = Options {
                seed,
                time: Duration::from_secs(secs),
                max_execs: u64::MAX,
                stop_at_first: true,
            };
            let outcome = drive(target, &mut buggy, &options);
            if let Some(f) = outcome.found.first() {
                times.push(f.after.as_secs_f64() * 1000.0);
            }
        }
        times.sort_by(f64::total_cmp);
        let median = if times.len() >= 3 {
            format!("{:.1}", times[2])
        } else {
            format!("not found in {secs}s")
        };
        println!(
            "| {name} | {} | {median} | {}/5 |",
            target.name,
            times.len()
        );
    }
}
