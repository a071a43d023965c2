//! The client's own policy for a session (`set_policy`): extra floors per
//! operation id and, with the critical-floor capability, operations denied
//! with no approval path (proposal §6.5).
//!
//! Policies only tighten within a session: a second `set_policy` merges
//! (highest floor, union of critical ids). Only `reset_session` clears them,
//! so nothing reachable mid-session can lower a floor the client set.

use rbv_protocol::{Band, SetPolicyRequest};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    pub floors: BTreeMap<String, Band>,
    pub critical: BTreeSet<String>,
}

impl Policy {
    pub fn merge(&mut self, req: &SetPolicyRequest) {
        for (id, band) in &req.floors {
            let floor = self.floors.entry(id.clone()).or_insert(*band);
            *floor = (*floor).max(*band);
        }
        self.critical.extend(req.critical.iter().cloned());
    }

    pub fn floor(&self, id: &str) -> Option<Band> {
        self.floors.get(id).copied()
    }

    pub fn is_critical(&self, id: &str) -> bool {
        self.critical.contains(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_only_tighten() {
        let mut p = Policy::default();
        p.merge(&SetPolicyRequest {
            floors: [("mcp:a/b".into(), Band::Escalate)].into(),
            critical: vec![],
            workspace: None,
        });
        p.merge(&SetPolicyRequest {
            floors: [("mcp:a/b".into(), Band::Auto)].into(),
            critical: vec!["mcp:a/c".into()],
            workspace: None,
        });
        assert_eq!(p.floor("mcp:a/b"), Some(Band::Escalate));
        assert!(p.is_critical("mcp:a/c") && !p.is_critical("mcp:a/b"));
    }
}
