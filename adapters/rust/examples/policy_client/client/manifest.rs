//! Reading a plugin the way this client loads it: the Agent Plugins base
//! specification first (a violation rejects the whole plugin), then the
//! risk-band permissions object, where a bad entry invalidates only itself.

use super::projection::project;
use rbv_adapter::protocol::{
    Band, Diagnostic, OperationId, PluginBundle, PluginReport, Reversibility, Scope, Severity,
    Trust,
};
use rbv_adapter::serde_json::{Map, Value};
use std::collections::BTreeMap;

const SCHEMA_1_0: &str = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json";
const SCHEMA_1_1: &str = "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json";
/// Where a 1.x manifest carries the permissions object.
pub const NAMESPACE: &str = "org.agent-plugins.permissions";

/// What one declared operation means to evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Declaration {
    /// The higher of the entry's `band` and the projection of its axes.
    pub floor: Band,
    /// The declared effect (an axis left out is its most dangerous value).
    /// `None` for a band-only entry above `auto`, whose effect is unknown.
    pub effect: Option<(Reversibility, Scope)>,
}

impl Declaration {
    /// Whether calling it changes state, as Rule-of-Two counts.
    pub fn changes_state(&self) -> bool {
        self.effect != Some((Reversibility::Reversible, Scope::Local))
    }

    /// Two entries (or places) for one id: the highest floor and the most
    /// dangerous effect win; a declaration never removes another.
    fn join(self, other: Declaration) -> Declaration {
        let effect = match (self.effect, other.effect) {
            (Some((r1, s1)), Some((r2, s2))) => Some((r1.max(r2), s1.max(s2))),
            _ => None,
        };
        Declaration {
            floor: self.floor.max(other.floor),
            effect,
        }
    }
}

/// A plugin as loaded: its report, and what evaluation needs of it.
#[derive(Clone, Debug)]
pub struct Plugin {
    pub report: PluginReport,
    pub declarations: BTreeMap<String, Declaration>,
}

struct Reader {
    diagnostics: Vec<Diagnostic>,
    rejected: bool,
}

impl Reader {
    fn note(&mut self, severity: Severity, code: &str, message: String, pointer: &str) {
        self.diagnostics.push(Diagnostic {
            severity,
            code: code.to_owned(),
            message,
            pointer: Some(pointer.to_owned()),
        });
    }
    fn reject(&mut self, code: &str, message: String, pointer: &str) {
        self.rejected = true;
        self.note(Severity::Error, code, message, pointer);
    }
    fn warn(&mut self, code: &str, message: String, pointer: &str) {
        self.note(Severity::Warning, code, message, pointer);
    }
}

/// A JSON Pointer segment (RFC 6901 escapes).
fn seg(key: &str) -> String {
    format!("/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// §5.5: 1–64 of `a-z 0-9 - .`, alphanumeric at both ends, no `--`/`..`.
fn valid_name(name: &str) -> bool {
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
        && edge(name.chars().next())
        && edge(name.chars().last())
        && !name.contains("--")
        && !name.contains("..")
}

/// Loads one plugin bundle; `loaded: false` when the base specification
/// rejects it, and then it declares nothing.
pub fn load(bundle: &PluginBundle) -> Plugin {
    let mut r = Reader {
        diagnostics: Vec::new(),
        rejected: false,
    };
    let mut name = None;
    let mut permissions = Vec::new();
    match bundle.manifest.as_ref() {
        Value::Object(m) => {
            name = read_base(m, &mut r);
            if let Some(top) = m.get("permissions") {
                // 1.x defines no top-level `permissions`; this client reads
                // it anyway (profile `permissions_placement: both`).
                r.warn(
                    "top-level-permissions",
                    "top-level `permissions` is not a 1.x field; read as well as the extension"
                        .into(),
                    "/permissions",
                );
                permissions.push((top, "/permissions".to_owned()));
            }
            if let Some(Value::Object(ext)) = m.get("extensions") {
                if let Some(p) = ext.get(NAMESPACE) {
                    permissions.push((p, format!("/extensions{}", seg(NAMESPACE))));
                }
            }
        }
        _ => r.reject(
            "not-an-object",
            "plugin.json is not a JSON object".into(),
            "",
        ),
    }
    let mut declarations = BTreeMap::new();
    let mut default_floor = None;
    // A rejected plugin declares nothing (`RBV-MAN-011`).
    if !r.rejected {
        for (value, at) in permissions {
            read_permissions(value, &at, &mut r, &mut declarations, &mut default_floor);
        }
    }
    let report = PluginReport {
        name,
        loaded: !r.rejected,
        diagnostics: r.diagnostics,
        declarations: declarations
            .iter()
            .map(|(k, d)| (k.clone(), d.floor))
            .collect(),
        default_floor,
    };
    Plugin {
        report,
        declarations,
    }
}

/// The base specification's fields; returns the name when it is a string.
fn read_base(m: &Map<String, Value>, r: &mut Reader) -> Option<String> {
    let mut v1_1 = true;
    match m.get("$schema") {
        Some(Value::String(s)) if s == SCHEMA_1_0 => v1_1 = false,
        Some(Value::String(s)) if s == SCHEMA_1_1 => {}
        Some(other) => r.reject(
            "schema",
            format!("`$schema` {other} is not the canonical id of Agent Plugins 1.0.0 or 1.1.0"),
            "/$schema",
        ),
        None => r.reject("schema", "`$schema` is required".into(), ""),
    }
    let name = match m.get("name") {
        Some(Value::String(n)) => {
            if !valid_name(n) {
                r.reject(
                    "name",
                    format!("`{n}` breaks the name rules of §5.5"),
                    "/name",
                );
            }
            Some(n.clone())
        }
        Some(_) => {
            r.reject("name", "`name` is not a string".into(), "/name");
            None
        }
        None => {
            r.reject("name", "`name` is required".into(), "");
            None
        }
    };
    for (key, value) in m {
        let at = seg(key);
        let string_field = matches!(
            key.as_str(),
            "version" | "description" | "homepage" | "repository" | "license"
        ) || (v1_1 && matches!(key.as_str(), "displayName" | "icon"));
        if string_field {
            match value {
                Value::String(_) => {}
                _ => r.reject("type", format!("`{key}` must be a string"), &at),
            }
            continue;
        }
        match key.as_str() {
            "$schema" | "name" => {}
            "author" => match value {
                Value::Object(author) => {
                    for (k, v) in author {
                        let p = format!("/author{}", seg(k));
                        if !matches!(k.as_str(), "name" | "email" | "url") {
                            r.reject("author", format!("`author` has no field `{k}`"), &p);
                        } else if !v.is_string() {
                            r.reject("type", format!("`author.{k}` must be a string"), &p);
                        }
                    }
                }
                _ => r.reject("type", "`author` must be an object".into(), &at),
            },
            "keywords" => match value {
                Value::Array(items) if items.iter().all(Value::is_string) => {}
                _ => r.reject("type", "`keywords` must be an array of strings".into(), &at),
            },
            "extensions" => match value {
                Value::Object(ext) => {
                    for (ns, v) in ext {
                        if !v.is_object() {
                            let p = format!("/extensions{}", seg(ns));
                            r.reject(
                                "extension",
                                format!("extension `{ns}` must hold an object"),
                                &p,
                            );
                        }
                    }
                }
                // §8.1: clients ignore extension data they cannot read.
                _ => r.warn(
                    "extensions",
                    "`extensions` is not an object; ignored".into(),
                    &at,
                ),
            },
            // §5.2: unknown fields are reported, never a reason to reject.
            _ => r.warn(
                "unknown-field",
                format!("unknown field `{key}`, ignored"),
                &at,
            ),
        }
    }
    name
}

/// One permissions object. A wrong shape declares nothing and rejects
/// nothing (`RBV-MAN-017`).
fn read_permissions(
    value: &Value,
    at: &str,
    r: &mut Reader,
    declarations: &mut BTreeMap<String, Declaration>,
    default_floor: &mut Option<Band>,
) {
    let Value::Object(map) = value else {
        r.warn(
            "permissions-shape",
            "the permissions object is not an object; ignored".into(),
            at,
        );
        return;
    };
    for (key, v) in map {
        let here = format!("{at}{}", seg(key));
        match key.as_str() {
            // Only a floor for unlisted operations; an invalid one is ignored.
            "default" => match v.as_str().and_then(band) {
                Some(b) => *default_floor = (*default_floor).max(Some(b)),
                None => r.warn(
                    "default",
                    format!("`default` {v} is not a band; ignored"),
                    &here,
                ),
            },
            "operations" => {
                let Value::Array(entries) = v else {
                    r.warn(
                        "operations-shape",
                        "`operations` is not an array; ignored".into(),
                        &here,
                    );
                    continue;
                };
                for (i, entry) in entries.iter().enumerate() {
                    let entry_at = format!("{here}/{i}");
                    match read_entry(entry) {
                        Ok((id, d)) => {
                            let joined = declarations.get(&id).map_or(d, |old| old.join(d));
                            declarations.insert(id, joined);
                        }
                        // An invalid entry invalidates itself only: its
                        // operation stays undeclared (never `auto`).
                        Err(why) => r.note(Severity::Error, "entry", why, &entry_at),
                    }
                }
            }
            _ => r.warn(
                "permissions-key",
                format!("unknown key `{key}`, ignored"),
                &here,
            ),
        }
    }
}

fn band(s: &str) -> Option<Band> {
    Band::ALL.iter().copied().find(|b| b.as_str() == s)
}

/// An axis value, spelled exactly; `Err` when present but not one.
fn axis<T: Copy>(
    entry: &Map<String, Value>,
    key: &str,
    all: &[T],
    name: fn(T) -> &'static str,
) -> Result<Option<T>, String> {
    match entry.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => all
            .iter()
            .copied()
            .find(|v| name(*v) == s)
            .map(Some)
            .ok_or_else(|| format!("`{key}` `{s}` is not a value (spelling is exact)")),
        Some(other) => Err(format!("`{key}` must be a string, not {other}")),
    }
}

fn read_entry(entry: &Value) -> Result<(String, Declaration), String> {
    let Value::Object(e) = entry else {
        return Err("an operation entry must be an object; ignored".into());
    };
    if let Some(k) = e.keys().find(|k| {
        !matches!(
            k.as_str(),
            "id" | "band" | "reversibility" | "scope" | "trust" | "description"
        )
    }) {
        return Err(format!("unknown key `{k}`; the entry is ignored"));
    }
    let Some(Value::String(id)) = e.get("id") else {
        return Err("`id` is missing or not a string; the entry is ignored".into());
    };
    match OperationId::parse(id) {
        Ok(OperationId::Client { .. }) => {
            return Err(format!("`{id}` is a client tool, which no plugin declares"))
        }
        Ok(_) => {}
        Err(e) => return Err(e.to_string()),
    }
    if e.get("description").is_some_and(|d| !d.is_string()) {
        return Err("`description` must be a string; the entry is ignored".into());
    }
    let b = axis(e, "band", Band::ALL, Band::as_str)?;
    let rv = axis(
        e,
        "reversibility",
        Reversibility::ALL,
        Reversibility::as_str,
    )?;
    let sc = axis(e, "scope", Scope::ALL, Scope::as_str)?;
    let tr = axis(e, "trust", Trust::ALL, Trust::as_str)?;
    let declaration = match (b, rv.is_some() || sc.is_some() || tr.is_some()) {
        (None, false) => return Err(format!("`{id}` declares neither a band nor an axis")),
        // A declared `auto` says the effect is harmless: reversible, local.
        (Some(Band::Auto), false) => Declaration {
            floor: Band::Auto,
            effect: Some((Reversibility::Reversible, Scope::Local)),
        },
        (Some(b), false) => Declaration {
            floor: b,
            effect: None,
        },
        (b, true) => Declaration {
            floor: b.unwrap_or(Band::Auto).max(project(rv, sc, tr)),
            effect: Some((
                rv.unwrap_or(Reversibility::Irreversible),
                sc.unwrap_or(Scope::External),
            )),
        },
    };
    Ok((id.clone(), declaration))
}
