//! Call-time inspection. An inspector reads the concrete operation and
//! decides its axes — scope by where its *effect* lands, trust by where its
//! content comes from — and projection makes the band (DESIGN.md §2).

use rbv_protocol::{Reversibility, Scope, Trust};

pub mod fetch;
pub mod shell;
pub mod sql;

/// What an inspector concluded about one concrete operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inspection {
    pub reversibility: Reversibility,
    pub scope: Scope,
    /// `Untrusted` when the operation brings content nobody vouches for into
    /// the session (a fetched page); the operation's own input trust is
    /// combined with it by the caller.
    pub trust: Trust,
    /// Rule-of-Two's third boolean: the operation changes state or
    /// communicates beyond the client.
    pub changes_state: bool,
    /// Rule-of-Two's second boolean: the operation touches credentials,
    /// secrets, production or personal data.
    pub touches_sensitive: bool,
    /// Human-readable grounds, most important first.
    pub reasons: Vec<String>,
}

impl Inspection {
    /// A read with no effect: reversible, local, trusted.
    pub fn read_only(reason: impl Into<String>) -> Self {
        Inspection {
            reversibility: Reversibility::Reversible,
            scope: Scope::Local,
            trust: Trust::Trusted,
            changes_state: false,
            touches_sensitive: false,
            reasons: vec![reason.into()],
        }
    }

    /// The fail-safe answer for input that cannot be understood.
    pub fn unknown(reason: impl Into<String>) -> Self {
        Inspection {
            reversibility: Reversibility::Irreversible,
            scope: Scope::External,
            trust: Trust::Untrusted,
            changes_state: true,
            touches_sensitive: false,
            reasons: vec![reason.into()],
        }
    }

    /// The most dangerous of two inspections, axis by axis (pipelines,
    /// statement lists). Reasons of both are kept.
    pub fn join(mut self, other: Inspection) -> Inspection {
        self.reversibility = self.reversibility.max(other.reversibility);
        self.scope = self.scope.max(other.scope);
        self.trust = self.trust.max(other.trust);
        self.changes_state |= other.changes_state;
        self.touches_sensitive |= other.touches_sensitive;
        self.reasons.extend(other.reasons);
        self
    }
}
