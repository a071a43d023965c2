//! The `permissions` object (proposal §3, DESIGN.md §2 "Declaration").
//!
//! Closed enums with exact spelling; a bad entry (unknown value, wrong case,
//! unknown key, malformed id, wrong type) invalidates that entry only and its
//! operation stays undeclared — never auto. Declarations are floors.

use super::{error, warning, Pointer};
use crate::profile::Profile;
use crate::projection::project_partial_in;
use rbv_protocol::{Band, Diagnostic, OperationId, Reversibility, Scope, Trust};
use serde_json::Value;
use std::collections::BTreeMap;
use std::str::FromStr;

/// One validly declared operation, after merging every entry for its id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    /// The declared floor: the higher of `band` and the projection of the
    /// axes (a missing axis projects as its most dangerous value).
    pub floor: Band,
    /// Where the operation's effect lands, for Rule-of-Two: the declared
    /// reversibility and scope (missing → most dangerous; a band-only `auto`
    /// entry means reversible and local by definition).
    pub reversibility: Reversibility,
    pub scope: Scope,
    /// Whether the entries said where the effect lands (axes, or a band-only
    /// `auto`). A band-only `soft-ack`/`escalate` says how risky, not why:
    /// its floor stands alone and is not re-projected with the call's trust.
    pub effect_known: bool,
}

impl Declaration {
    /// Whether the declared effect changes state or leaves the workspace.
    pub fn changes_state(&self) -> bool {
        self.reversibility != Reversibility::Reversible || self.scope != Scope::Local
    }

    fn join(self, other: Declaration) -> Declaration {
        Declaration {
            floor: self.floor.max(other.floor),
            reversibility: self.reversibility.max(other.reversibility),
            scope: self.scope.max(other.scope),
            effect_known: self.effect_known && other.effect_known,
        }
    }
}

/// What one permissions object declares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Permissions {
    pub declarations: BTreeMap<String, Declaration>,
    pub default_floor: Option<Band>,
    /// How many entries were invalid (and therefore ignored).
    pub invalid_entries: usize,
}

impl Permissions {
    /// Merges two objects (top-level and extension): highest floor per id.
    pub fn merge(mut self, other: Permissions) -> Permissions {
        for (id, d) in other.declarations {
            let merged = match self.declarations.remove(&id) {
                Some(old) => old.join(d),
                None => d,
            };
            self.declarations.insert(id, merged);
        }
        self.default_floor = self.default_floor.max(other.default_floor);
        self.invalid_entries += other.invalid_entries;
        self
    }
}

/// Reads one permissions object found at `at`.
/// Axes project under `profile` (its `hard_to_reverse_local`).
pub fn read(
    value: &Value,
    at: &Pointer,
    profile: &Profile,
    diags: &mut Vec<Diagnostic>,
) -> Permissions {
    let mut out = Permissions::default();
    let Value::Object(map) = value else {
        diags.push(error(
            "permissions-not-object",
            "the permissions object is not an object",
            &at.to_string(),
        ));
        return out;
    };
    for (key, v) in map {
        let ptr = at.push(key).to_string();
        match key.as_str() {
            "default" => match v.as_str().map(Band::from_str) {
                Some(Ok(b)) => out.default_floor = Some(b),
                _ => diags.push(error(
                    "invalid-default",
                    format!(
                        "`default` is not a band (`auto`, `soft-ack`, `escalate`): {v}; ignored"
                    ),
                    &ptr,
                )),
            },
            "operations" => {
                let Value::Array(entries) = v else {
                    diags.push(error(
                        "operations-not-array",
                        "`operations` must be an array",
                        &ptr,
                    ));
                    continue;
                };
                for (i, entry) in entries.iter().enumerate() {
                    let entry_at = at.push("operations").push(&i.to_string());
                    match read_entry(entry, &entry_at, profile) {
                        Ok((id, d)) => {
                            if let Some(old) = out.declarations.remove(&id) {
                                diags.push(warning(
                                    "duplicate-operation",
                                    format!(
                                        "`{id}` is declared more than once; the highest floor wins"
                                    ),
                                    &entry_at.to_string(),
                                ));
                                out.declarations.insert(id, old.join(d));
                            } else {
                                out.declarations.insert(id, d);
                            }
                        }
                        Err(diag) => {
                            out.invalid_entries += 1;
                            diags.push(diag);
                        }
                    }
                }
            }
            // Anything else (`bypass`, `trusted`, `pre-approved`, …) has no
            // meaning: a standing grant is exactly what §4.1 forbids.
            _ => diags.push(warning(
                "unknown-permissions-key",
                format!(
                    "unknown key `{key}` in the permissions object: ignored, never given meaning"
                ),
                &ptr,
            )),
        }
    }
    out
}

fn enum_value<T: FromStr>(
    map: &serde_json::Map<String, Value>,
    key: &str,
    at: &Pointer,
) -> Result<Option<T>, Diagnostic> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => s.parse().map(Some).map_err(|_| {
            error(
                "invalid-entry",
                format!(
                    "`{key}` has the unknown value `{s}` (spelling is exact); the entry is ignored"
                ),
                &at.push(key).to_string(),
            )
        }),
        Some(other) => Err(error(
            "invalid-entry",
            format!("`{key}` must be a string, not {other}; the entry is ignored"),
            &at.push(key).to_string(),
        )),
    }
}

fn read_entry(
    entry: &Value,
    at: &Pointer,
    profile: &Profile,
) -> Result<(String, Declaration), Diagnostic> {
    let invalid = |msg: String, ptr: &Pointer| error("invalid-entry", msg, &ptr.to_string());
    let Value::Object(map) = entry else {
        return Err(invalid("an operation entry must be an object".into(), at));
    };
    if let Some(key) = map.keys().find(|k| {
        !matches!(
            k.as_str(),
            "id" | "band" | "reversibility" | "scope" | "trust" | "description"
        )
    }) {
        return Err(invalid(
            format!("unknown key `{key}`; the entry is ignored"),
            &at.push(key),
        ));
    }
    let id = match map.get("id") {
        Some(Value::String(id)) => id,
        _ => {
            return Err(invalid(
                "`id` is missing or not a string; the entry is ignored".into(),
                at,
            ))
        }
    };
    match OperationId::parse(id) {
        Ok(OperationId::Client { .. }) => {
            return Err(invalid(
                format!(
                "`{id}` names a client tool, which a plugin cannot declare; the entry is ignored"
            ),
                &at.push("id"),
            ))
        }
        Ok(_) => {}
        Err(e) => {
            return Err(invalid(
                format!("{e}; the entry is ignored"),
                &at.push("id"),
            ))
        }
    }
    if map.get("description").is_some_and(|d| !d.is_string()) {
        return Err(invalid(
            "`description` must be a string; the entry is ignored".into(),
            &at.push("description"),
        ));
    }
    let band: Option<Band> = enum_value(map, "band", at)?;
    let r: Option<Reversibility> = enum_value(map, "reversibility", at)?;
    let s: Option<Scope> = enum_value(map, "scope", at)?;
    let t: Option<Trust> = enum_value(map, "trust", at)?;
    let has_axes = r.is_some() || s.is_some() || t.is_some();
    let declaration = match (band, has_axes) {
        (None, false) => {
            return Err(invalid(
                format!("`{id}` declares neither a band nor an axis; the entry is ignored"),
                at,
            ))
        }
        (Some(Band::Auto), false) => Declaration {
            floor: Band::Auto,
            reversibility: Reversibility::Reversible,
            scope: Scope::Local,
            effect_known: true,
        },
        (Some(b), false) => Declaration {
            floor: b,
            reversibility: Reversibility::Irreversible,
            scope: Scope::External,
            effect_known: false,
        },
        (b, true) => Declaration {
            floor: b
                .unwrap_or(Band::Auto)
                .max(project_partial_in(profile, r, s, t)),
            reversibility: r.unwrap_or(Reversibility::Irreversible),
            scope: s.unwrap_or(Scope::External),
            effect_known: true,
        },
    };
    Ok((id.clone(), declaration))
}
