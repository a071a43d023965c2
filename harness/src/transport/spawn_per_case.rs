//! The fallback for adapters that cannot stay alive: a fresh child per case.
//!
//! A case may act in several sessions, so the child is replaced when the
//! case engine says a case begins (`Transport::begin_case`), not when the
//! session name changes. Under a launcher, the children are started by a
//! fork server of this transport's own (`fork_server`); without one, or
//! when it cannot be started, each child is started as a persistent one is.

use super::fork_server::ForkServer;
use super::process::{ProcessConfig, ProcessTransport};
use crate::transport::{Identity, Observation, RawObservation, Transport, TransportError};
use rbv_protocol::RequestBody;
use std::sync::{Arc, Mutex};

pub struct SpawnPerCase {
    config: ProcessConfig,
    identity: Identity,
    /// The child, and whether a case has used it already.
    current: Option<(bool, ProcessTransport)>,
    /// A case began after the current child served another.
    stale: bool,
    /// The fork server that starts the children, once started.
    server: Option<Arc<Mutex<ForkServer>>>,
}

impl SpawnPerCase {
    /// Starts the first child (its handshake gives the identity); it serves
    /// the first case.
    pub fn spawn(config: &ProcessConfig) -> Result<Self, TransportError> {
        let mut server = None;
        let first = fresh(config, &mut server)?;
        Ok(SpawnPerCase {
            config: config.clone(),
            identity: first.identity().clone(),
            current: Some((false, first)),
            stale: false,
            server,
        })
    }

    /// The child serving the current case: a fresh one once a case began
    /// after the running child served another.
    fn child(&mut self) -> Result<&mut ProcessTransport, TransportError> {
        if self.stale || self.current.is_none() {
            // Kill the previous case's child before starting the next one.
            self.current = None;
            self.current = Some((false, fresh(&self.config, &mut self.server)?));
            self.stale = false;
        }
        let (served, child) = self.current.as_mut().expect("a child is running");
        *served = true;
        Ok(child)
    }
}

/// A fresh child, from the fork server when there is a launcher: the one
/// in `server`, or a new one when there is none yet or it is gone (its
/// child, or whatever its child started, stopped or killed it).
fn fresh(
    config: &ProcessConfig,
    server: &mut Option<Arc<Mutex<ForkServer>>>,
) -> Result<ProcessTransport, TransportError> {
    match served(config, server) {
        // The server died after its last answer (the previous child
        // signalled it, say): once more, from a fresh server. A failure
        // that left the server running is the child's own.
        Some(Err(_)) if !server.as_ref().is_some_and(running) => served(config, server),
        other => other,
    }
    .unwrap_or_else(|| ProcessTransport::spawn(config))
}

/// A child from the server in `server`, started first when it is not
/// running; `None` without a launcher, or when no server can start.
fn served(
    config: &ProcessConfig,
    server: &mut Option<Arc<Mutex<ForkServer>>>,
) -> Option<Result<ProcessTransport, TransportError>> {
    if !server.as_ref().is_some_and(running) {
        *server = config
            .launcher
            .as_deref()
            .and_then(|launcher| ForkServer::start(launcher, &config.command).ok());
    }
    let server = server.as_ref()?;
    Some(ProcessTransport::spawn_served(config, server))
}

fn running(server: &Arc<Mutex<ForkServer>>) -> bool {
    server
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .is_running()
}

impl Transport for SpawnPerCase {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    fn begin_case(&mut self) {
        self.stale = matches!(self.current, Some((true, _)));
    }

    fn exchange(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Result<Vec<Observation>, TransportError> {
        self.child()?.exchange(session, bodies)
    }

    fn raw(&mut self, session: &str, template: &str) -> Result<RawObservation, TransportError> {
        self.child()?.raw(session, template)
    }

    fn before_handshake(
        &mut self,
        session: &str,
        template: &str,
    ) -> Result<RawObservation, TransportError> {
        ProcessTransport::probe_before_handshake(&self.config, session, template)
    }

    /// A case's child serves no other case, so its case's end is the end
    /// of its connection: settled (stdin closed, its output read to the
    /// end, bounded), what it writes after the case's last answer is this
    /// case's protocol error, not nobody's. Then it is ended.
    fn drain(&mut self) -> Result<(), TransportError> {
        match self.current.take() {
            Some((true, mut child)) => child.settle(),
            unused => {
                self.current = unused;
                Ok(())
            }
        }
    }

    fn stderr_tail(&self) -> String {
        self.current
            .as_ref()
            .map_or_else(String::new, |(_, child)| child.stderr_tail())
    }
}
