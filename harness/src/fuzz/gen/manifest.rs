//! Manifests: a valid Agent Plugins manifest whose `permissions` object holds
//! arbitrary entries, each valid or invalid in a known way.

use super::super::reach::{fire, Tagged};
use arbitrary::{Result, Unstructured};
use rbv_protocol::{Band, PluginBundle, Reversibility, Scope, Trust};
use serde_json::{json, Map, Value};

pub const NAMESPACE: &str = "org.agent-plugins.permissions";
pub const OPERATION_IDS: &[&str] = &[
    "mcp:db/execute_sql",
    "mcp:db/list_tables",
    "mcp:mail/send_email",
    "skill:deploy",
    "skill:rollback",
];

/// One permissions entry and whether the rule lets it declare anything.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub value: Value,
    pub operation: &'static str,
    /// `None` when valid; else why it must be ignored.
    pub invalid: Option<&'static str>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ManifestInput {
    pub entries: Vec<Entry>,
    pub default: Option<Band>,
    /// Under an extension namespace rather than top level.
    pub in_extension: bool,
    /// False: the manifest has no permissions object at all (its entries
    /// and default are not written).
    pub permissions: bool,
    /// Why the base specification rejects the whole manifest, if it does.
    pub rejected: Option<&'static str>,
}

fn pick<T: Copy>(u: &mut Unstructured, values: &[T]) -> Result<T> {
    u.choose(values).copied()
}

pub fn entry(u: &mut Unstructured) -> Result<Entry> {
    let operation = pick(u, OPERATION_IDS)?;
    let mut map = Map::new();
    map.insert("id".into(), json!(operation));
    if u.ratio(2, 3)? {
        map.insert("band".into(), json!(pick(u, Band::ALL)?.as_str()));
    }
    if u.ratio(2, 3)? {
        map.insert(
            "reversibility".into(),
            json!(pick(u, Reversibility::ALL)?.as_str()),
        );
    }
    if u.ratio(2, 3)? {
        map.insert("scope".into(), json!(pick(u, Scope::ALL)?.as_str()));
    }
    if u.ratio(1, 2)? {
        map.insert("trust".into(), json!(pick(u, Trust::ALL)?.as_str()));
    }
    if u.ratio(1, 3)? {
        map.insert("description".into(), json!("declared by the author"));
    }
    let mut invalid = None;
    if u.ratio(1, 3)? {
        let (key, bad, why): (&str, Value, &str) = match u.int_in_range(0..=7)? {
            0 => ("band", json!("Escalate"), "wrong case"),
            1 => ("band", json!("none"), "unknown band"),
            2 => ("reversibility", json!("undoable"), "unknown reversibility"),
            3 => ("scope", json!("global"), "unknown scope"),
            4 => ("trust", json!(true), "trust is not a string"),
            5 => ("id", json!("execute_sql"), "malformed operation id"),
            6 => ("preApproved", json!(true), "unknown key"),
            _ => ("band", json!(["auto"]), "band is not a string"),
        };
        map.insert(key.into(), bad);
        fire("manifest", why);
        invalid = Some(why);
    }
    if !map.contains_key("band") && !map.contains_key("reversibility") && !map.contains_key("scope")
    {
        // An entry with neither band nor axes still declares: every axis is
        // then at its most dangerous value.
        map.insert("scope".into(), json!("local"));
    }
    let axes = ["reversibility", "scope", "trust"].map(|k| map.contains_key(k));
    if axes.contains(&true) {
        fire(
            "manifest",
            if map.contains_key("band") {
                "band-and-axes"
            } else {
                "axes-only"
            },
        );
        if axes.contains(&false) {
            fire("manifest", "missing-axis");
        }
    } else {
        fire("manifest", "band-only");
    }
    Ok(Entry {
        value: Value::Object(map),
        operation,
        invalid,
    })
}

pub fn input(u: &mut Unstructured) -> Result<ManifestInput> {
    let n = u.int_in_range(1..=6)?;
    let entries: Vec<Entry> = (0..n).map(|_| entry(u)).collect::<Result<_>>()?;
    let ids: std::collections::BTreeSet<&str> = entries.iter().map(|e| e.operation).collect();
    if ids.len() < entries.len() {
        fire("manifest", "duplicate-id");
    }
    let default = if u.ratio(1, 2)? {
        fire("manifest", "default");
        Some(pick(u, Band::ALL)?)
    } else {
        None
    };
    let in_extension = u.arbitrary()?;
    let permissions = !u.ratio(1, 16)?;
    let rejected = if u.ratio(1, 16)? {
        fire("manifest", "rejected-by-base-spec");
        Some(*u.choose(&["no $schema", "version is a number", "name is not a string"])?)
    } else {
        None
    };
    fire(
        "manifest",
        match (permissions, in_extension) {
            (false, _) => "no-permissions-object",
            (true, true) => "extension-namespace",
            (true, false) => "top-level",
        },
    );
    Ok(ManifestInput {
        entries,
        default,
        in_extension,
        permissions,
        rejected,
    })
}

/// The productions fired above and the requirements each exercises (the
/// manifest oracle checks loading, entry-level invalidation and floors).
pub fn productions() -> Vec<Tagged> {
    vec![
        ("wrong case", &["RBV-MAN-002"]),
        ("unknown band", &["RBV-MAN-002"]),
        ("unknown reversibility", &["RBV-MAN-002"]),
        ("unknown scope", &["RBV-MAN-002"]),
        ("trust is not a string", &["RBV-MAN-002"]),
        ("band is not a string", &["RBV-MAN-002"]),
        ("malformed operation id", &["RBV-MAN-004"]),
        ("unknown key", &["RBV-MAN-003", "RBV-BYP-004"]),
        ("band-only", &["RBV-MAN-002"]),
        ("band-and-axes", &["RBV-MAN-006", "RBV-PRJ-001"]),
        ("axes-only", &["RBV-PRJ-001"]),
        ("missing-axis", &["RBV-MAN-007", "RBV-PRJ-004"]),
        ("duplicate-id", &["RBV-MAN-005"]),
        ("default", &["RBV-MAN-008"]),
        ("extension-namespace", &["RBV-MAN-012"]),
        ("top-level", &["RBV-MAN-013"]),
        ("no-permissions-object", &["RBV-MAN-001"]),
        ("rejected-by-base-spec", &["RBV-MAN-011"]),
    ]
}

impl ManifestInput {
    pub fn permissions(&self) -> Value {
        let mut p = Map::new();
        if let Some(d) = self.default {
            p.insert("default".into(), json!(d.as_str()));
        }
        p.insert(
            "operations".into(),
            Value::Array(self.entries.iter().map(|e| e.value.clone()).collect()),
        );
        Value::Object(p)
    }

    pub fn bundle(&self) -> PluginBundle {
        let mut manifest = json!({
            "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
            "name": "fuzzed-plugin",
            "version": "1.0.0",
        });
        if !self.permissions {
            // Nothing declared: every operation undeclared.
        } else if self.in_extension {
            manifest["extensions"] = json!({ NAMESPACE: self.permissions() });
        } else {
            manifest["permissions"] = self.permissions();
        }
        match self.rejected {
            Some("no $schema") => {
                manifest.as_object_mut().map(|m| m.remove("$schema"));
            }
            Some("version is a number") => manifest["version"] = json!(2),
            Some(_) => manifest["name"] = json!(7),
            None => {}
        }
        PluginBundle {
            manifest: manifest.into(),
            mcp: None,
            skills: vec![],
            tools: Default::default(),
        }
    }
}
