//! Versioning (proposal §6.3): lowering an operation's declared floor, or
//! dropping a declared operation, is a breaking change that needs a major
//! version bump.
//!
//! Decisions where the proposal is silent:
//! - `version_change` reports the literal SemVer difference (`major`,
//!   `minor`, `patch`, `none`; `unknown` when either side is absent or not
//!   SemVer). A difference only in pre-release or build is `none`.
//! - A bump *permits* a breaking change when the major version rises, or,
//!   below 1.0.0, when the first non-zero component rises (SemVer §4 says
//!   anything may change in 0.y.z; this follows Cargo's reading, where
//!   0.1 → 0.2 and 0.0.1 → 0.0.2 are incompatible). A downgrade never does.
//! - Lowering the `default` floor lowers every unlisted operation, so it is
//!   reported (operation `default`) and breaking like a lowered floor.
//! - An `unknown` version change can never prove a major bump.

use crate::manifest::LoadedPlugin;
use rbv_protocol::{BandChange, DiffResponse};
use std::collections::BTreeSet;

/// The pseudo-operation under which a change of `default` is reported.
pub const DEFAULT_KEY: &str = "default";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Core(u64, u64, u64);

/// MAJOR.MINOR.PATCH with optional `-pre` and `+build` (SemVer 2.0.0:
/// numeric identifiers without leading zeros).
fn parse_semver(text: &str) -> Option<Core> {
    let core = text
        .split_once('+')
        .map_or(text, |(c, build)| if build.is_empty() { "" } else { c });
    let core = match core.split_once('-') {
        Some((c, pre)) if !pre.is_empty() && pre.split('.').all(|p| !p.is_empty()) => c,
        Some(_) => return None,
        None => core,
    };
    let nums: Vec<&str> = core.split('.').collect();
    if nums.len() != 3 {
        return None;
    }
    let num = |s: &str| -> Option<u64> {
        if s.is_empty()
            || !s.bytes().all(|b| b.is_ascii_digit())
            || (s.len() > 1 && s.starts_with('0'))
        {
            None
        } else {
            s.parse().ok()
        }
    };
    Some(Core(num(nums[0])?, num(nums[1])?, num(nums[2])?))
}

fn change(old: Core, new: Core) -> &'static str {
    if old.0 != new.0 {
        "major"
    } else if old.1 != new.1 {
        "minor"
    } else if old.2 != new.2 {
        "patch"
    } else {
        "none"
    }
}

/// Whether going from `old` to `new` is a bump that may break the contract.
fn permits_breaking(old: Core, new: Core) -> bool {
    if new <= old {
        return false;
    }
    match (old, new) {
        (Core(0, 0, _), Core(0, 0, _)) => true,
        (Core(0, a, _), Core(0, b, _)) => b > a,
        _ => new.0 > old.0,
    }
}

/// Compares the declared floors of two versions of one plugin.
pub fn diff(old: &LoadedPlugin, new: &LoadedPlugin) -> DiffResponse {
    let versions = match (
        old.version.as_deref().and_then(parse_semver),
        new.version.as_deref().and_then(parse_semver),
    ) {
        (Some(o), Some(n)) => Some((o, n)),
        _ => None,
    };
    let version_change = versions.map_or("unknown", |(o, n)| change(o, n)).to_owned();
    let may_break = versions.is_some_and(|(o, n)| permits_breaking(o, n));

    let mut changes = Vec::new();
    let mut weakened = false;
    let ids: BTreeSet<&String> = old
        .declarations
        .keys()
        .chain(new.declarations.keys())
        .collect();
    for id in ids {
        let before = old.declarations.get(id).map(|d| d.floor);
        let after = new.declarations.get(id).map(|d| d.floor);
        if before != after {
            // Undeclared is not "lower than auto" in the band order, but
            // dropping a declaration removes the floor the user consented to.
            weakened |= match (before, after) {
                (Some(_), None) => true,
                (Some(b), Some(a)) => a < b,
                _ => false,
            };
            changes.push(BandChange {
                operation: id.clone(),
                old: before,
                new: after,
            });
        }
    }
    let (before, after) = (old.default_floor(), new.default_floor());
    if before != after {
        weakened |= before.is_some() && after.is_none_or(|a| Some(a) < before);
        changes.push(BandChange {
            operation: DEFAULT_KEY.into(),
            old: before,
            new: after,
        });
    }
    DiffResponse {
        breaking: weakened && !may_break,
        version_change,
        changes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semver_parses_strictly() {
        assert_eq!(parse_semver("1.2.3"), Some(Core(1, 2, 3)));
        assert_eq!(parse_semver("1.2.3-rc.1+build.5"), Some(Core(1, 2, 3)));
        for bad in [
            "1.2",
            "v1.2.3",
            "01.2.3",
            "1.2.3-",
            "1.2.3+",
            "1.2.x",
            "",
            "1.2.3.4",
            "1.2.3-a..b",
        ] {
            assert_eq!(parse_semver(bad), None, "{bad}");
        }
    }

    #[test]
    fn bumps_that_permit_breaking() {
        let p =
            |a: &str, b: &str| permits_breaking(parse_semver(a).unwrap(), parse_semver(b).unwrap());
        assert!(p("1.4.2", "2.0.0"));
        assert!(!p("1.4.2", "1.5.0") && !p("1.4.2", "1.4.3") && !p("2.0.0", "1.0.0"));
        assert!(p("0.1.0", "0.2.0") && !p("0.1.0", "0.1.1"));
        assert!(p("0.0.1", "0.0.2") && p("0.9.0", "1.0.0"));
        assert_eq!(
            change(
                parse_semver("0.1.0").unwrap(),
                parse_semver("0.2.0").unwrap()
            ),
            "minor"
        );
        assert_eq!(change(Core(1, 0, 0), Core(1, 0, 0)), "none");
    }
}
