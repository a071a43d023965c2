//! The fallback for adapters that cannot stay alive: a fresh child per case.
//!
//! Every case runs in a session of its own, so a new session name is the
//! moment to replace the child.

use super::process::{ProcessConfig, ProcessTransport};
use crate::transport::{AdapterError, Identity, Observation, Transport};
use rbv_protocol::RequestBody;

pub struct SpawnPerCase {
    config: ProcessConfig,
    identity: Identity,
    /// The child and the session it serves (`None`: not used yet).
    current: Option<(Option<String>, ProcessTransport)>,
}

impl SpawnPerCase {
    /// Starts the first child (its handshake gives the identity); it serves
    /// the first session.
    pub fn spawn(config: &ProcessConfig) -> Result<Self, AdapterError> {
        let first = ProcessTransport::spawn(config)?;
        Ok(SpawnPerCase {
            config: config.clone(),
            identity: first.identity().clone(),
            current: Some((None, first)),
        })
    }
}

impl Transport for SpawnPerCase {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    fn exchange(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Result<Vec<Observation>, AdapterError> {
        let reusable = match &self.current {
            Some((None, _)) => true,
            Some((Some(s), _)) => s == session,
            None => false,
        };
        if !reusable {
            // Kill the previous case's child before starting the next one.
            self.current = None;
            self.current = Some((None, ProcessTransport::spawn(&self.config)?));
        }
        let (served, child) = self.current.as_mut().expect("a child is running");
        *served = Some(session.to_owned());
        child.exchange(session, bodies)
    }

    fn drain(&mut self) -> Result<(), AdapterError> {
        match self.current.as_mut() {
            Some((_, child)) => child.drain(),
            None => Ok(()),
        }
    }

    fn stderr_tail(&self) -> String {
        self.current
            .as_ref()
            .map_or_else(String::new, |(_, child)| child.stderr_tail())
    }
}
