//! Projection of the three axes onto a band (proposal §2.1–2.2, DESIGN.md §2).
//!
//! The proposal's table defines three rows; rbv extends it to all 18
//! combinations. `hard-to-reverse` without an external scope is the one
//! point the proposal leaves open (RBV-PRJ-002): on shared infrastructure
//! it escalates, since the effect reaches other people and the actor cannot
//! simply undo it; on the local workspace it is the profile's
//! `hard_to_reverse_local` (escalate by default: fail-safe).

use crate::profile::Profile;
use rbv_protocol::{Band, Reversibility, Scope, Trust};

/// The band of a fully known operation under `profile`.
pub fn project_in(profile: &Profile, r: Reversibility, s: Scope, t: Trust) -> Band {
    match (r, s, t) {
        (Reversibility::Irreversible, _, _) | (_, Scope::External, _) => Band::Escalate,
        (Reversibility::HardToReverse, Scope::Local, _) => profile.hard_to_reverse_local(),
        (Reversibility::HardToReverse, _, _) => Band::Escalate,
        (Reversibility::Reversible, Scope::Local, Trust::Trusted) => Band::Auto,
        (Reversibility::Reversible, _, _) => Band::SoftAck,
    }
}

/// The band of a partly known operation under `profile`: a missing axis
/// projects as its most dangerous value, so that saying less never makes an
/// operation safer.
pub fn project_partial_in(
    profile: &Profile,
    r: Option<Reversibility>,
    s: Option<Scope>,
    t: Option<Trust>,
) -> Band {
    project_in(
        profile,
        r.unwrap_or(Reversibility::Irreversible),
        s.unwrap_or(Scope::External),
        t.unwrap_or(Trust::Untrusted),
    )
}

/// [`project_in`] under the default profile.
pub fn project(r: Reversibility, s: Scope, t: Trust) -> Band {
    project_in(&Profile::default(), r, s, t)
}

/// [`project_partial_in`] under the default profile.
pub fn project_partial(r: Option<Reversibility>, s: Option<Scope>, t: Option<Trust>) -> Band {
    project_partial_in(&Profile::default(), r, s, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<(Reversibility, Scope, Trust)> {
        let mut v = Vec::new();
        for r in Reversibility::ALL {
            for s in Scope::ALL {
                for t in Trust::ALL {
                    v.push((*r, *s, *t));
                }
            }
        }
        v
    }

    #[test]
    fn the_proposal_rows_hold() {
        use Reversibility::*;
        use Scope::*;
        use Trust::*;
        assert_eq!(project(Reversible, Local, Trusted), Band::Auto);
        assert_eq!(project(Reversible, SharedRemote, Trusted), Band::SoftAck);
        assert_eq!(project(Reversible, Local, Untrusted), Band::SoftAck);
        assert_eq!(project(Reversible, SharedRemote, Untrusted), Band::SoftAck);
        assert_eq!(project(Reversible, External, Trusted), Band::Escalate);
        assert_eq!(project(Irreversible, Local, Trusted), Band::Escalate);
        assert_eq!(project(HardToReverse, Local, Trusted), Band::Escalate);
        assert_eq!(
            project(HardToReverse, SharedRemote, Untrusted),
            Band::Escalate
        );
    }

    #[test]
    fn exactly_one_combination_is_auto() {
        let autos: Vec<_> = all()
            .into_iter()
            .filter(|&(r, s, t)| project(r, s, t) == Band::Auto)
            .collect();
        assert_eq!(
            autos,
            vec![(Reversibility::Reversible, Scope::Local, Trust::Trusted)]
        );
        assert_eq!(all().len(), 18);
    }

    fn soft_ack_profile() -> Profile {
        let mut p = Profile::default();
        p.set("hard_to_reverse_local", "soft-ack").unwrap();
        p
    }

    #[test]
    fn projection_is_monotone_over_every_pair_under_every_profile() {
        let combos = all();
        for profile in [Profile::default(), soft_ack_profile()] {
            for &(r1, s1, t1) in &combos {
                for &(r2, s2, t2) in &combos {
                    if r1 <= r2 && s1 <= s2 && t1 <= t2 {
                        assert!(
                            project_in(&profile, r1, s1, t1) <= project_in(&profile, r2, s2, t2),
                            "{profile}: {r1}/{s1}/{t1} projects above {r2}/{s2}/{t2}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_soft_ack_profile_changes_hard_to_reverse_local_only() {
        use Reversibility::*;
        use Scope::*;
        let soft = soft_ack_profile();
        let changed: Vec<_> = all()
            .into_iter()
            .filter(|&(r, s, t)| project_in(&soft, r, s, t) != project(r, s, t))
            .collect();
        assert_eq!(
            changed,
            vec![
                (HardToReverse, Local, Trust::Trusted),
                (HardToReverse, Local, Trust::Untrusted)
            ]
        );
        for t in Trust::ALL {
            assert_eq!(project_in(&soft, HardToReverse, Local, *t), Band::SoftAck);
            assert_eq!(project(HardToReverse, Local, *t), Band::Escalate);
            assert_eq!(
                project_in(&soft, HardToReverse, SharedRemote, *t),
                Band::Escalate,
                "shared-remote hard-to-reverse escalates under every profile"
            );
        }
        assert_eq!(
            project_partial_in(&soft, Some(HardToReverse), Some(Local), None),
            Band::SoftAck
        );
        assert_eq!(
            project_partial_in(&soft, Some(HardToReverse), None, Some(Trust::Trusted)),
            Band::Escalate
        );
    }

    #[test]
    fn a_missing_axis_is_its_most_dangerous_value() {
        assert_eq!(project_partial(None, None, None), Band::Escalate);
        assert_eq!(
            project_partial(Some(Reversibility::Reversible), Some(Scope::Local), None),
            Band::SoftAck
        );
        assert_eq!(
            project_partial(Some(Reversibility::Reversible), None, Some(Trust::Trusted)),
            Band::Escalate
        );
        for &(r, s, t) in &all() {
            assert!(project_partial(Some(r), Some(s), None) >= project(r, s, t));
            assert!(project_partial(None, Some(s), Some(t)) >= project(r, s, t));
        }
    }
}
