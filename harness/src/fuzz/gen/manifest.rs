//! Manifests: a valid Agent Plugins manifest whose `permissions` object holds
//! arbitrary entries, each valid or invalid in a known way.

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
        invalid = Some(why);
    }
    if !map.contains_key("band") && !map.contains_key("reversibility") && !map.contains_key("scope")
    {
        // An entry with neither band nor axes still declares: every axis is
        // then at its most dangerous value.
        map.insert("scope".into(), json!("local"));
    }
    Ok(Entry {
        value: Value::Object(map),
        operation,
        invalid,
    })
}

pub fn input(u: &mut Unstructured) -> Result<ManifestInput> {
    let n = u.int_in_range(1..=6)?;
    let entries = (0..n).map(|_| entry(u)).collect::<Result<_>>()?;
    let default = if u.ratio(1, 2)? {
        Some(pick(u, Band::ALL)?)
    } else {
        None
    };
    Ok(ManifestInput {
        entries,
        default,
        in_extension: u.arbitrary()?,
    })
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
        if self.in_extension {
            manifest["extensions"] = json!({ NAMESPACE: self.permissions() });
        } else {
            manifest["permissions"] = self.permissions();
        }
        PluginBundle {
            manifest: manifest.into(),
            mcp: None,
            skills: vec![],
            tools: Default::default(),
        }
    }
}
