//! The risk-band projection of the three axes (`PROTOCOL.md` §10.3), under
//! this client's profile (`hard_to_reverse_local: escalate`).

use rbv_adapter::protocol::{Band, Reversibility, Scope, Trust};

/// The band of an effect. An axis nobody stated is its most dangerous
/// value: an unknown effect is never cheaper than a known one.
pub fn project(r: Option<Reversibility>, s: Option<Scope>, t: Option<Trust>) -> Band {
    use Reversibility::*;
    use Scope::*;
    let r = r.unwrap_or(Irreversible);
    let s = s.unwrap_or(External);
    let t = t.unwrap_or(Trust::Untrusted);
    match (r, s) {
        (Irreversible, _) | (_, External) => Band::Escalate,
        // Hard to undo, and either shared or (this client's profile
        // choice) local: a human looks first.
        (HardToReverse, _) => Band::Escalate,
        (Reversible, SharedRemote) => Band::SoftAck,
        (Reversible, Local) if t == Trust::Trusted => Band::Auto,
        // Untrusted input is never auto (`RBV-EFF-005`).
        (Reversible, Local) => Band::SoftAck,
    }
}
