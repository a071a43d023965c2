//! Ways to reach an implementation, all behind `crate::transport::Transport`.

pub mod affinity;
pub mod fork_server;
pub mod in_process;
pub mod interrupt;
pub mod launch;
pub mod lines;
pub mod process;
pub mod sdk;
pub mod spawn_per_case;
pub mod tree;

pub use in_process::InProcess;
pub use process::{ProcessConfig, ProcessTransport, Validate};
pub use sdk::SdkInProcess;
pub use spawn_per_case::SpawnPerCase;

use crate::transport::{AdapterError, Transport};
use rbv_reference::{Mutant, Profile};

/// What the runner connects each worker to.
#[derive(Clone, Debug)]
pub enum Target {
    /// One persistent child per worker, restarted after an error.
    Process(ProcessConfig),
    /// A fresh child for every case.
    SpawnPerCase(ProcessConfig),
    /// The reference (or a mutant) linked in, with a profile.
    InProcess(Option<Mutant>, Profile),
}

/// A fresh connection, one per worker (and again after an error).
pub trait Connect: Sync {
    fn connect(&self) -> Result<Box<dyn Transport + Send>, AdapterError>;

    /// What is connected to, for messages.
    fn describe(&self) -> String;
}

impl Connect for Target {
    fn connect(&self) -> Result<Box<dyn Transport + Send>, AdapterError> {
        Ok(match self {
            Target::Process(config) => Box::new(ProcessTransport::spawn(config)?),
            Target::SpawnPerCase(config) => Box::new(SpawnPerCase::spawn(config)?),
            Target::InProcess(mutant, profile) => {
                Box::new(InProcess::with_profile(*mutant, *profile))
            }
        })
    }

    fn describe(&self) -> String {
        match self {
            Target::Process(c) => c.command.clone(),
            Target::SpawnPerCase(c) => format!("{} (a child per case)", c.command),
            Target::InProcess(None, _) => "rbv-reference (in process)".into(),
            Target::InProcess(Some(m), _) => format!("rbv-reference+mutant:{m} (in process)"),
        }
    }
}
