//! Write an rbv adapter in Rust.
//!
//! Implement [`Implementation`] for your client's permission layer — one
//! method per request type of the protocol (`PROTOCOL.md` §4), each
//! answering `unsupported` until you override it — and serve it:
//!
//! ```no_run
//! use rbv_adapter::{protocol::*, Answer, Implementation};
//!
//! #[derive(Default)]
//! struct MyClient;
//!
//! impl Implementation for MyClient {
//!     type Session = ();
//!     fn name(&self) -> String { "my-client".into() }
//!     fn version(&self) -> String { "0.1.0".into() }
//!     fn capabilities(&self) -> Vec<Capability> { vec![Capability::Projection] }
//!     fn project(&mut self, req: ProjectRequest) -> Answer<ProjectionResponse> {
//!         // Your client's real projection goes here.
//!         let _ = req;
//!         Ok(ProjectionResponse { band: Band::Escalate })
//!     }
//! }
//!
//! fn main() -> std::io::Result<()> {
//!     rbv_adapter::serve_stdio(MyClient::default())
//! }
//! ```
//!
//! The SDK does the protocol: bounded line reading, the handshake (built
//! from [`Implementation::name`], [`Implementation::version`],
//! [`Implementation::capabilities`] and [`Implementation::profile`]), ids
//! echoed digit for digit over the whole `u64` range, `error` answers to
//! bad JSON and broken envelopes, `unsupported` for unknown request types,
//! and one flushed answer per line, in order. It also keeps one
//! [`Implementation::Session`] per session name, created by `Default` on
//! first use and replaced by a fresh one on `reset_session`, so that
//! sessions never see each other.
//!
//! [`Dispatcher::handle_line`] is the whole protocol for one line;
//! [`serve_stdio`] is a loop around it, and `rbv::certify` runs the suite
//! in process through the same function, so both routes answer alike.

mod dispatch;
mod stdio;

pub use dispatch::Dispatcher;
pub use stdio::{serve, serve_lines, serve_stdio, MAX_LINE};

/// The wire types (`rbv-protocol`), so that an adapter needs one dependency.
pub use rbv_protocol as protocol;
/// The JSON library of the wire types, built with `arbitrary_precision`:
/// argument numbers keep every digit (`PROTOCOL.md` §2.1).
pub use serde_json;

use rbv_protocol::*;
use serde_json::Value;
use std::collections::BTreeMap;

/// Why a request gets no answer of its own type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not implemented here: an honest "not here", never a verdict about
    /// the input (`PROTOCOL.md` §5).
    Unsupported(String),
    /// The request is invalid, or the implementation failed on it.
    Error { code: String, message: String },
}

impl Refusal {
    /// The `unsupported` answer to a request type you do not implement.
    pub fn unsupported(request_type: &str) -> Self {
        Refusal::Unsupported(format!("`{request_type}` is not implemented"))
    }

    /// An `error` answer with a code of your choosing.
    pub fn error(code: &str, message: impl Into<String>) -> Self {
        Refusal::Error {
            code: code.to_owned(),
            message: message.into(),
        }
    }
}

/// What each method returns: its answer, or a [`Refusal`].
pub type Answer<T> = Result<T, Refusal>;

/// A client's permission layer as rbv sees it: one method per request type.
///
/// Every request method has a default that answers `unsupported`; override
/// the ones behind the capabilities you claim. Requests that act on session
/// state (`load_plugins`, `record_event`, `set_policy`, `evaluate`,
/// `approve`, `invoke`) get that session's [`Self::Session`]; the SDK owns
/// the map from session names to states. Requests that depend on their
/// input alone (`project`, `validate_manifest`, `diff_manifests`) get none.
pub trait Implementation {
    /// Everything a session keeps: loaded plugins, events, policy, tokens.
    /// Created with `Default` on a session's first request.
    type Session: Default;

    /// The handshake's `implementation.name`.
    fn name(&self) -> String;

    /// The handshake's `implementation.version`.
    fn version(&self) -> String;

    /// The capabilities you claim (`PROTOCOL.md` §3, §5). Cases that need
    /// another one are skipped, so claim exactly what you implement.
    fn capabilities(&self) -> Vec<Capability> {
        Vec::new()
    }

    /// Your answers to the proposal's open questions (`PROTOCOL.md` §5),
    /// e.g. `permissions_placement`; an absent key means its default.
    fn profile(&self) -> BTreeMap<String, Value> {
        BTreeMap::new()
    }

    fn load_plugins(
        &mut self,
        session: &mut Self::Session,
        req: LoadPluginsRequest,
    ) -> Answer<LoadedResponse> {
        let _ = (session, req);
        Err(Refusal::unsupported("load_plugins"))
    }

    fn validate_manifest(&mut self, req: ValidateManifestRequest) -> Answer<ValidationResponse> {
        let _ = req;
        Err(Refusal::unsupported("validate_manifest"))
    }

    fn project(&mut self, req: ProjectRequest) -> Answer<ProjectionResponse> {
        let _ = req;
        Err(Refusal::unsupported("project"))
    }

    fn record_event(
        &mut self,
        session: &mut Self::Session,
        req: RecordEventRequest,
    ) -> Answer<AckResponse> {
        let _ = (session, req);
        Err(Refusal::unsupported("record_event"))
    }

    fn set_policy(
        &mut self,
        session: &mut Self::Session,
        req: SetPolicyRequest,
    ) -> Answer<AckResponse> {
        let _ = (session, req);
        Err(Refusal::unsupported("set_policy"))
    }

    fn evaluate(
        &mut self,
        session: &mut Self::Session,
        req: EvaluateRequest,
    ) -> Answer<EvaluationResponse> {
        let _ = (session, req);
        Err(Refusal::unsupported("evaluate"))
    }

    fn approve(
        &mut self,
        session: &mut Self::Session,
        req: ApproveRequest,
    ) -> Answer<ApprovalResponse> {
        let _ = (session, req);
        Err(Refusal::unsupported("approve"))
    }

    fn invoke(
        &mut self,
        session: &mut Self::Session,
        req: InvokeRequest,
    ) -> Answer<InvocationResponse> {
        let _ = (session, req);
        Err(Refusal::unsupported("invoke"))
    }

    fn diff_manifests(&mut self, req: DiffManifestsRequest) -> Answer<DiffResponse> {
        let _ = req;
        Err(Refusal::unsupported("diff_manifests"))
    }

    /// Ends the session's state. The SDK has already replaced the state
    /// with a fresh `Default` one when this is called, which is all most
    /// implementations need: override it only to forget something kept
    /// outside [`Self::Session`] (`session` names the session).
    fn reset_session(&mut self, session: &str) -> Answer<AckResponse> {
        let _ = session;
        Ok(AckResponse {})
    }
}

#[cfg(test)]
mod tests;
