//! The versioning target: an old manifest and a new one made from it by a
//! few edits (a floor lowered or raised, a declaration dropped or added,
//! the default changed) under a version change (patch, minor, major, none,
//! below 1.0.0, or a version that is not SemVer). The diff must call it
//! breaking exactly when a floor or the default was lowered, or a
//! declaration dropped, with no major bump to excuse it (RBV-VER-001 to
//! -004; below 1.0.0 the first non-zero component is the major's).

use super::finding::{yaml_json, CaseDraft, Finding};
use super::reach::{fire, Tagged};
use super::subject::Subject;
use crate::verdict::FailKind;
use arbitrary::{Result, Unstructured};
use rbv_protocol::*;
use serde_json::{json, Value};

const TOOLS: &[&str] = &["promote", "list_builds", "rollback", "status", "purge"];

pub fn productions() -> Vec<Tagged> {
    vec![
        ("floor-lowered", &["RBV-VER-001"]),
        ("default-lowered", &["RBV-VER-001"]),
        ("declaration-dropped", &["RBV-VER-002"]),
        ("floor-raised", &["RBV-VER-003"]),
        ("declaration-added", &["RBV-VER-003"]),
        ("major-bump", &["RBV-VER-003"]),
        ("zero-major", &["RBV-VER-001", "RBV-VER-003"]),
        ("not-semver", &["RBV-VER-004"]),
        ("patch", &["RBV-VER-001"]),
        ("minor", &["RBV-VER-001"]),
        ("same-version", &["RBV-VER-001"]),
        ("downgrade", &["RBV-VER-001"]),
        ("version-change", &["RBV-VER-001"]),
    ]
}

/// The declared floors, by tool, and the default (`None`: absent).
#[derive(Clone)]
struct Floors {
    ops: Vec<(&'static str, Band)>,
    default: Option<Band>,
}

fn manifest(floors: &Floors, version: Option<&str>) -> Value {
    let ops: Vec<Value> = floors
        .ops
        .iter()
        .map(|(tool, band)| {
            // Axes that project to auto: the band alone is the floor.
            json!({"id": format!("mcp:deploy/{tool}"), "reversibility": "reversible",
                   "scope": "local", "trust": "trusted", "band": band.as_str()})
        })
        .collect();
    let mut permissions = json!({"operations": ops});
    if let Some(d) = floors.default {
        permissions["default"] = json!(d.as_str());
    }
    let mut m = json!({
        "$schema": "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json",
        "name": "deployer",
        "permissions": permissions.clone(),
        "extensions": {"org.agent-plugins.permissions": permissions},
    });
    if let Some(v) = version {
        m["version"] = json!(v);
    }
    m
}

/// `x.y.z` (build metadata ignored, as SemVer's precedence does), numbers
/// without leading zeros; `None` for anything else.
fn semver(v: &str) -> Option<(u64, u64, u64)> {
    let core = v.split_once('+').map_or(v, |(c, _)| c);
    let parts: Vec<&str> = core.split('.').collect();
    let number = |p: &str| {
        let plain = !p.is_empty()
            && p.bytes().all(|b| b.is_ascii_digit())
            && (p == "0" || !p.starts_with('0'));
        plain.then(|| p.parse::<u64>().ok()).flatten()
    };
    match parts[..] {
        [x, y, z] => Some((number(x)?, number(y)?, number(z)?)),
        _ => None,
    }
}

/// The component that moved, for a version that did not go down and does
/// not start at 0 (below 1.0.0 the reading is the major's, see above).
fn change(old: (u64, u64, u64), new: (u64, u64, u64)) -> &'static str {
    if new.0 != old.0 {
        "major"
    } else if new.1 != old.1 {
        "minor"
    } else if new.2 != old.2 {
        "patch"
    } else {
        "none"
    }
}

/// Whether going from `old` to `new` is a major bump: the major grows, or
/// below 1.0.0 the first non-zero component (or one before it) does.
fn major_bump(old: Option<&str>, new: Option<&str>) -> bool {
    let (Some(o), Some(n)) = (old.and_then(semver), new.and_then(semver)) else {
        return false;
    };
    match o {
        (0, 0, _) => n > o,
        (0, y, _) => n.0 > 0 || n.1 > y,
        (x, _, _) => n.0 > x,
    }
}

fn versions(u: &mut Unstructured) -> Result<(Option<String>, Option<String>, &'static str)> {
    if u.ratio(1, 6)? {
        let odd = *u.choose(&[
            (Some("1.4.2"), Some("latest")),
            (Some("1.4.2"), Some("2.0")),
            (Some("1.4.2"), None),
            (None, Some("2.0.0")),
            (Some("release-7"), Some("release-8")),
            (Some("v1.4.2"), Some("v2.0.0")),
            (Some("1.4.2"), Some("02.0.0")),
        ])?;
        return Ok((
            odd.0.map(str::to_owned),
            odd.1.map(str::to_owned),
            "not-semver",
        ));
    }
    // Two-digit components catch a comparison of strings.
    let (x, y, z) = *u.choose(&[
        (1u64, 4u64, 2u64),
        (1, 9, 9),
        (9, 4, 1),
        (2, 1, 0),
        (0, 3, 1),
        (0, 0, 4),
        (0, 9, 3),
    ])?;
    let (new, family) = match u.int_in_range(0..=4)? {
        0 => ((x, y, z + 1), "patch"),
        1 => ((x, y + 1, 0), "minor"),
        2 => ((x + 1, 0, 0), "major-bump"),
        3 => ((x, y, z), "same-version"),
        // Down: never a bump, whichever component falls.
        _ => (
            match (x, y, z) {
                (0, 0, z) => (0, 0, z - 1),
                (0, y, _) => (0, y - 1, 0),
                (x, _, _) => (x - 1, 9, 0),
            },
            "downgrade",
        ),
    };
    let family = if x == 0 && family != "downgrade" {
        "zero-major"
    } else {
        family
    };
    let show = |(a, b, c): (u64, u64, u64)| {
        // Build metadata now and then: it is SemVer, and changes nothing.
        format!("{a}.{b}.{c}")
    };
    let mut old = show((x, y, z));
    let mut new = show(new);
    if u.ratio(1, 5)? {
        if u.ratio(1, 2)? {
            old.push_str("+build.7");
        } else {
            new.push_str("+sha.5114f85");
        }
    }
    Ok((Some(old), Some(new), family))
}

fn lower(b: Band) -> Option<Band> {
    Band::ALL.iter().rev().copied().find(|x| *x < b)
}

fn higher(b: Band) -> Option<Band> {
    Band::ALL.iter().copied().find(|x| *x > b)
}

pub fn check(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let mut old = Floors {
        ops: Vec::new(),
        default: None,
    };
    for tool in TOOLS {
        if u.ratio(2, 3)? {
            old.ops.push((tool, *u.choose(Band::ALL)?));
        }
    }
    if u.ratio(1, 2)? {
        old.default = Some(*u.choose(Band::ALL)?);
    }
    let mut new = old.clone();
    let mut families = Vec::new();
    for _ in 0..u.int_in_range(1..=2)? {
        match u.int_in_range(0..=4)? {
            0 if !new.ops.is_empty() => {
                let i = u.choose_index(new.ops.len())?;
                if let Some(b) = lower(new.ops[i].1) {
                    new.ops[i].1 = b;
                    families.push("floor-lowered");
                }
            }
            1 if !new.ops.is_empty() => {
                let i = u.choose_index(new.ops.len())?;
                if let Some(b) = higher(new.ops[i].1) {
                    new.ops[i].1 = b;
                    families.push("floor-raised");
                }
            }
            2 if !new.ops.is_empty() => {
                let i = u.choose_index(new.ops.len())?;
                new.ops.remove(i);
                families.push("declaration-dropped");
            }
            3 => {
                if let Some(tool) = TOOLS.iter().find(|t| !new.ops.iter().any(|(x, _)| x == *t)) {
                    new.ops.push((tool, *u.choose(Band::ALL)?));
                    families.push("declaration-added");
                }
            }
            _ => {
                if let Some(to) = new.default.and_then(lower) {
                    new.default = Some(to);
                    families.push("default-lowered");
                }
            }
        }
    }
    // Judged on the result, not the edits: a drop undone by a re-add is
    // no drop, a lowering undone by a raise no lowering.
    let dropped = old
        .ops
        .iter()
        .any(|(t, _)| !new.ops.iter().any(|(n, _)| n == t));
    let lowered = new
        .ops
        .iter()
        .any(|(tool, band)| old.ops.iter().any(|(t, b)| t == tool && band < b))
        || matches!((old.default, new.default), (Some(o), Some(n)) if n < o);
    let weakened = dropped || lowered;
    let (old_version, new_version, version_family) = versions(u)?;
    families.push(version_family);
    for f in &families {
        fire("versioning", f);
    }
    let breaking = weakened && !major_bump(old_version.as_deref(), new_version.as_deref());
    let old_m = manifest(&old, old_version.as_deref());
    let new_m = manifest(&new, new_version.as_deref());
    let request = RequestBody::DiffManifests(DiffManifestsRequest {
        old: bundle(&old_m),
        new: bundle(&new_m),
    });
    let session = subject.fresh_session();
    let Some(Ok(ResponseBody::Diff(d))) = subject.call_batch(&session, vec![request]).pop() else {
        return Ok(None);
    };
    // The component that moved, where that reading is the plain one.
    let want_change = match (
        old_version.as_deref().map(semver),
        new_version.as_deref().map(semver),
    ) {
        (Some(Some(o)), Some(Some(n))) if o.0 >= 1 && n >= o => Some(change(o, n)),
        (Some(Some(_)), Some(Some(_))) => None,
        _ => Some("unknown"),
    };
    if want_change.is_some() {
        fire("versioning", "version-change");
    }
    if let Some(want) = want_change.filter(|w| *w != d.version_change && d.breaking == breaking) {
        return Ok(Some(finding(
            "RBV-VER-001",
            FailKind::Mismatch,
            format!("version_change {} for {want}", d.version_change),
            &families,
            (&old_m, &new_m),
            format!("{{breaking: {breaking}, match: {{version_change: {want}}}}}"),
            (&old_version, &new_version),
        )));
    }
    if d.breaking == breaking {
        return Ok(None);
    }
    let (requirement, kind) = match (breaking, families.contains(&"not-semver")) {
        (true, true) => ("RBV-VER-004", FailKind::Under),
        (true, false) if dropped => ("RBV-VER-002", FailKind::Under),
        (true, false) => ("RBV-VER-001", FailKind::Under),
        (false, _) => ("RBV-VER-003", FailKind::Over),
    };
    Ok(Some(finding(
        requirement,
        kind,
        format!("breaking: {}", d.breaking),
        &families,
        (&old_m, &new_m),
        format!("{{breaking: {breaking}}}"),
        (&old_version, &new_version),
    )))
}

fn finding(
    requirement: &'static str,
    kind: FailKind,
    difference: String,
    families: &[&'static str],
    (old, new): (&Value, &Value),
    expect: String,
    versions: (&Option<String>, &Option<String>),
) -> Finding {
    let families_text = families.join(" + ");
    Finding {
        target: "versioning",
        requirement,
        kind,
        summary: format!(
            "diff answered {difference} for {:?} → {:?} ({families_text})",
            versions.0, versions.1
        ),
        family: families[0].to_owned(),
        payload: None,
        difference,
        case: CaseDraft {
            area: "versioning",
            title: families_text.clone(),
            tags: vec!["versioning"],
            steps: format!(
                "  - diff_manifests:\n      old: {{manifest: {}}}\n      new: {{manifest: {}}}\n    expect: {expect}\n",
                yaml_json(old),
                yaml_json(new)
            ),
        },
    }
}

fn bundle(manifest: &Value) -> PluginBundle {
    PluginBundle {
        manifest: manifest.clone().into(),
        mcp: None,
        skills: vec![],
        tools: Default::default(),
    }
}
