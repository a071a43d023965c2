//! The cargo-fuzz side: what a binary in `fuzz/fuzz_targets` fuzzes and how
//! a finding becomes libFuzzer's crash. Above `targets` and `subject`,
//! which know nothing of libFuzzer.

use super::finding::Finding;
use super::subject::{InProcess, OverTransport, Subject};
use super::targets::{Check, Target};
use crate::transport::Connect;
use rbv_protocol::Capability;
use rbv_reference::Mutant;

/// Entry point of the cargo-fuzz binaries, one target each (`fuzz/fuzz_targets`
/// passes its constant, e.g. `libfuzzer_target(&TOKEN_BINDING, data)`): the
/// reference in-process, the mutant named by `RBV_MUTANT`, or the
/// implementation `RBV_IMPL` names, over the protocol; a finding panics
/// (libFuzzer's crash).
///
/// In-process, each input gets a fresh subject. Sessions that outlive their
/// input would make every input end with more allocations than frees, and
/// libFuzzer then runs a full LeakSanitizer scan after each one (about 100
/// exec/s instead of tens of thousands).
pub fn libfuzzer_target(target: &Target, data: &[u8]) {
    use std::sync::OnceLock;
    static SUBJECT: OnceLock<LibFuzzerSubject> = OnceLock::new();
    let subject = SUBJECT.get_or_init(|| LibFuzzerSubject::from_env(target.needs));
    if let Ok(Some(finding)) = subject.check(target.check, data) {
        panic!(
            "{finding}\n--- case ---\n{}",
            finding.to_yaml(data, "unpromoted")
        );
    }
}

/// What a cargo-fuzz binary fuzzes, chosen once per run from the
/// environment: `RBV_IMPL` names an implementation (one child for the whole
/// run, its sessions reused and reset), else the reference or the mutant
/// `RBV_MUTANT` names, linked in and fresh for every input (see
/// `libfuzzer_target`).
pub enum LibFuzzerSubject {
    Implementation(std::sync::Mutex<OverTransport>),
    Reference(Option<Mutant>),
}

impl LibFuzzerSubject {
    /// Panics on a setting the run cannot mean anything with (libFuzzer
    /// reports the panic's message as its crash).
    pub fn from_env(needs: &[Capability]) -> Self {
        let mutant = Mutant::from_env().unwrap_or_else(|e| panic!("RBV_MUTANT: {e}"));
        let command = std::env::var("RBV_IMPL").ok();
        Self::new(command.filter(|c| !c.trim().is_empty()), mutant, needs)
    }

    pub fn new(command: Option<String>, mutant: Option<Mutant>, needs: &[Capability]) -> Self {
        let Some(command) = command else {
            return LibFuzzerSubject::Reference(mutant);
        };
        assert!(
            mutant.is_none(),
            "RBV_IMPL and RBV_MUTANT name two subjects: set one"
        );
        // Before the spawn, so that the child shares the CPU (see
        // `transport::affinity`).
        crate::transport::affinity::pin_current_thread_here();
        let transport = crate::transport::Target::Process(crate::transport::ProcessConfig::new(
            command.clone(),
        ))
        .connect()
        .unwrap_or_else(|e| panic!("RBV_IMPL: cannot start `{command}`: {}", e.message));
        let subject = OverTransport::new(transport);
        if let Some(missing) = needs.iter().find(|c| !subject.claims(**c)) {
            panic!(
                "RBV_IMPL: `{command}` does not claim `{}`, which this target needs",
                missing.as_str()
            );
        }
        LibFuzzerSubject::Implementation(std::sync::Mutex::new(subject))
    }

    /// Runs one check on this input's subject.
    pub fn check(&self, check: Check, data: &[u8]) -> arbitrary::Result<Option<Finding>> {
        let mut u = arbitrary::Unstructured::new(data);
        match self {
            LibFuzzerSubject::Implementation(subject) => {
                let mut subject = subject.lock().unwrap_or_else(|e| e.into_inner());
                let found = check(&mut u, &mut *subject);
                subject.end_exec();
                found
            }
            LibFuzzerSubject::Reference(mutant) => check(&mut u, &mut InProcess::new(*mutant)),
        }
    }
}
