//! The fallback for adapters that cannot stay alive: a fresh child per case.
//!
//! Every case runs in a session of its own, so a new session name is the
//! moment to replace the child.

use super::process::{ProcessConfig, ProcessTransport};
use crate::transport::{AdapterError, Identity, Observation, RawObservation, Transport};
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
        self.child_for(session)?.exchange(session, bodies)
    }

    fn raw(&mut self, session: &str, template: &str) -> Result<RawObservation, AdapterError> {
        self.child_for(session)?.raw(session, template)
    }

    fn before_handshake(
        &mut self,
        session: &str,
        template: &str,
    ) -> Result<RawObservation, AdapterError> {
        ProcessTransport::probe_before_handshake(&self.config, session, template)
    }

    fn stderr_tail(&self) -> String {
        self.current
            .as_ref()
            .map_or_else(String::new, |(_, child)| child.stderr_tail())
    }
}

impl SpawnPerCase {
    /// The child serving `session`: a fresh one for a new session.
    fn child_for(&mut self, session: &str) -> Result<&mut ProcessTransport, AdapterError> {
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
        Ok(child)
    }
}
