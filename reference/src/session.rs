//! Per-session state. One process serves many sessions, keyed by the
//! request's `session` string; `reset_session` replaces the whole state, so
//! that every token minted before is void (a new secret, a new store).

use crate::manifest::LoadedPlugin;
use crate::policy::Policy;
use crate::rule_of_two::RunFlags;
use crate::token::TokenStore;
use rbv_protocol::Workspace;
use std::collections::BTreeMap;
use std::sync::Arc;

pub struct Session {
    /// Loaded plugins by manifest name (only plugins that loaded).
    pub plugins: BTreeMap<String, LoadedPlugin>,
    /// Rule-of-Two booleans accumulated over the run.
    pub flags: RunFlags,
    pub policy: Policy,
    /// The workspace `set_policy` declared (capability `workspace`); the
    /// latest replaces any before it, since a client that moves its
    /// workspace says where it now is.
    pub workspace: Option<Workspace>,
    pub tokens: Arc<TokenStore>,
    /// Environment variables the agent session set. Recorded for the audit
    /// trail, never consulted by a gate (§4.1: no bypass surface).
    pub environment: BTreeMap<String, String>,
    /// session-bypass-flag mutant only: what disabled the gate.
    pub bypass: Option<String>,
}

impl Default for Session {
    /// A session's first state, with a fresh token secret.
    fn default() -> Self {
        Session {
            plugins: BTreeMap::new(),
            flags: RunFlags::default(),
            policy: Policy::default(),
            workspace: None,
            tokens: Arc::new(TokenStore::default()),
            environment: BTreeMap::new(),
            bypass: None,
        }
    }
}
