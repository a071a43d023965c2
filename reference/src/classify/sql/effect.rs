//! What one part of a statement does, and the axes that follow from it.

use super::super::Inspection;
use rbv_protocol::{Reversibility, Scope, Trust};

/// The effect of a statement or of one of its parts, least dangerous first.
/// Every variant but `SensitiveRead` (auto) and `Hold` (soft-ack) projects
/// to escalate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Effect {
    /// A read of credentials: still a read (auto), but Rule-of-Two sees it.
    SensitiveRead,
    /// Changes nothing but holds a shared server's resources (a connection
    /// asleep, a notification-queue registration, a cursor materialized past
    /// its transaction) until the session lets go: reversible, on a shared
    /// server, so soft-ack.
    Hold,
    /// Reads files of the database host. A privileged escape from the
    /// database onto production: external, though nothing changes.
    ServerFiles,
    /// Changes shared state that can be undone only with effort: rows,
    /// schema, privileges, sequences, locks, commits, and session settings
    /// that change how later statements run or are read.
    Write,
    /// Destroys data, objects or other sessions' work.
    Destroy,
    /// Leaves the database: programs, files of the host, other servers.
    External,
    /// Cannot be judged from the text: opaque code, unknown functions or
    /// statement kinds, unparseable input.
    Unknown,
}

/// One ground of a verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Finding {
    pub effect: Effect,
    pub sensitive: bool,
    pub reason: String,
}

impl Finding {
    pub fn new(effect: Effect, reason: impl Into<String>) -> Self {
        Finding {
            effect,
            sensitive: effect == Effect::SensitiveRead || effect == Effect::ServerFiles,
            reason: reason.into(),
        }
    }

    pub fn sensitive(mut self) -> Self {
        self.sensitive = true;
        self
    }

    fn inspection(&self) -> Inspection {
        let (reversibility, scope, changes_state) = match self.effect {
            Effect::SensitiveRead => (Reversibility::Reversible, Scope::Local, false),
            Effect::Hold => (Reversibility::Reversible, Scope::SharedRemote, false),
            Effect::ServerFiles => (Reversibility::Reversible, Scope::External, false),
            Effect::Write => (Reversibility::HardToReverse, Scope::SharedRemote, true),
            Effect::Destroy => (Reversibility::Irreversible, Scope::SharedRemote, true),
            Effect::External => (Reversibility::Irreversible, Scope::External, true),
            Effect::Unknown => {
                let mut inspection = Inspection::unknown(self.reason.clone());
                inspection.touches_sensitive |= self.sensitive;
                return inspection;
            }
        };
        Inspection {
            reversibility,
            scope,
            trust: Trust::Trusted,
            changes_state,
            touches_sensitive: self.sensitive,
            reasons: vec![self.reason.clone()],
        }
    }
}

/// Joins findings into one inspection, most dangerous ground first; without
/// findings the payload is a read.
pub(crate) fn inspection(mut findings: Vec<Finding>, read: impl Into<String>) -> Inspection {
    findings.sort_by_key(|f| std::cmp::Reverse(f.effect));
    let mut seen = std::collections::HashSet::new();
    findings.retain(|f| seen.insert(f.reason.clone()));
    let mut iter = findings.iter();
    let Some(first) = iter.next() else {
        return Inspection::read_only(read);
    };
    iter.fold(first.inspection(), |acc, f| acc.join(f.inspection()))
}
