//! Meta Rule-of-Two (proposal §2.3): three booleans about the *run*,
//! accumulated over the session; two or more (the profile's threshold) make
//! the effective band escalate. Contextual by nature, so only the client can
//! evaluate it; a manifest cannot declare it away.

use rbv_protocol::SessionEvent;

/// The three booleans.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunFlags {
    /// Untrustworthy input was processed.
    pub untrusted: bool,
    /// Sensitive systems or private data were touched.
    pub sensitive: bool,
    /// State changed or something was communicated externally.
    pub state: bool,
}

impl RunFlags {
    pub fn union(self, other: RunFlags) -> RunFlags {
        RunFlags {
            untrusted: self.untrusted || other.untrusted,
            sensitive: self.sensitive || other.sensitive,
            state: self.state || other.state,
        }
    }

    pub fn count(self) -> u32 {
        u32::from(self.untrusted) + u32::from(self.sensitive) + u32::from(self.state)
    }

    /// What a session event contributes. Environment variables contribute
    /// nothing: they are neither content nor an effect (and never a bypass).
    pub fn from_event(event: &SessionEvent) -> RunFlags {
        match event {
            SessionEvent::UntrustedContent { .. } => RunFlags {
                untrusted: true,
                ..Default::default()
            },
            SessionEvent::SensitiveData { .. } => RunFlags {
                sensitive: true,
                ..Default::default()
            },
            SessionEvent::StateChange { .. } => RunFlags {
                state: true,
                ..Default::default()
            },
            SessionEvent::Environment { .. } => RunFlags::default(),
        }
    }

    /// The names of the booleans that hold, for reasons.
    pub fn describe(self) -> String {
        let mut parts = Vec::new();
        if self.untrusted {
            parts.push("untrusted input");
        }
        if self.sensitive {
            parts.push("sensitive data");
        }
        if self.state {
            parts.push("state change/external communication");
        }
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(" + ")
        }
    }
}

/// Whether the run, with this operation, reaches the threshold.
pub fn escalates(run: RunFlags, threshold: u32) -> bool {
    run.count() >= threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_of_three_escalate_at_threshold_two() {
        let u = RunFlags {
            untrusted: true,
            ..Default::default()
        };
        let s = RunFlags {
            sensitive: true,
            ..Default::default()
        };
        let w = RunFlags {
            state: true,
            ..Default::default()
        };
        assert!(!escalates(u, 2) && !escalates(s, 2) && !escalates(w, 2));
        assert!(escalates(u.union(s), 2) && escalates(s.union(w), 2) && escalates(u.union(w), 2));
        assert!(!escalates(u.union(s), 3) && escalates(u.union(s).union(w), 3));
    }

    #[test]
    fn environment_events_count_for_nothing() {
        let env = SessionEvent::Environment {
            vars: [("RISK_GATE_DISABLE".into(), "1".into())].into(),
        };
        assert_eq!(RunFlags::from_event(&env), RunFlags::default());
        let sens = SessionEvent::SensitiveData { what: None };
        assert!(RunFlags::from_event(&sens).sensitive);
    }
}
