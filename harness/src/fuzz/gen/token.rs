//! Token-binding inputs: an operation A, a data mutation of it B, and which
//! token property to probe (binding, single use, who may mint).

use super::json;
use arbitrary::{Result, Unstructured};
use rbv_protocol::{ApproverKind, Operation};
use serde_json::{Map, Value};

pub const PLUGINS: &[&str] = &["db-tools", "deploy-tools", "mail-tools"];
pub const SERVERS: &[&str] = &["db", "deploy", "mail"];
pub const TOOLS: &[&str] = &[
    "delete_row",
    "promote_to_production",
    "send_email",
    "drop_table",
];

/// Which property of tokens one exec probes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// Approve A, redeem for B (B differs from A in data).
    Binding,
    /// Approve A, redeem twice for A.
    Replay,
    /// A model, tool or plugin approves A.
    Minting(ApproverKind),
}

/// How B was made from A.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutation {
    EditString,
    EditNumber,
    NumberToString,
    BoolToString,
    NullToMissing,
    AddArgument,
    RemoveArgument,
    RenameArgument,
    ReverseArray,
    Nest,
    OtherPlugin,
    OtherServer,
    OtherTool,
}

impl Mutation {
    /// What the mutation changed, in words (for findings' titles).
    pub fn describe(self) -> &'static str {
        match self {
            Mutation::EditString => "an edited string",
            Mutation::EditNumber => "an edited number",
            Mutation::NumberToString => "a number turned into a string",
            Mutation::BoolToString => "a boolean turned into a string",
            Mutation::NullToMissing => "a null argument dropped",
            Mutation::AddArgument => "an added argument",
            Mutation::RemoveArgument => "a removed argument",
            Mutation::RenameArgument => "a renamed argument",
            Mutation::ReverseArray => "a reversed array",
            Mutation::Nest => "a value nested one level deeper",
            Mutation::OtherPlugin => "another plugin",
            Mutation::OtherServer => "another server",
            Mutation::OtherTool => "another tool",
        }
    }
}

const MUTATIONS: &[Mutation] = &[
    Mutation::EditString,
    Mutation::EditNumber,
    Mutation::NumberToString,
    Mutation::BoolToString,
    Mutation::NullToMissing,
    Mutation::AddArgument,
    Mutation::RemoveArgument,
    Mutation::RenameArgument,
    Mutation::ReverseArray,
    Mutation::Nest,
    Mutation::OtherPlugin,
    Mutation::OtherServer,
    Mutation::OtherTool,
];

#[derive(Clone, Debug, PartialEq)]
pub struct TokenInput {
    pub probe: Probe,
    pub a: Operation,
    pub b: Operation,
    pub mutation: Mutation,
}

pub fn operation(u: &mut Unstructured) -> Result<Operation> {
    let server = *u.choose(SERVERS)?;
    let tool = *u.choose(TOOLS)?;
    Ok(Operation {
        plugin: Some((*u.choose(PLUGINS)?).to_owned()),
        id: format!("mcp:{server}/{tool}"),
        kind: None,
        arguments: json::object(u, 2)?,
        trust: None,
        actor: None,
        dialect: None,
    })
}

pub fn input(u: &mut Unstructured) -> Result<TokenInput> {
    let probe = match u.int_in_range(0..=5)? {
        0..=2 => Probe::Binding,
        3 => Probe::Replay,
        _ => Probe::Minting(*u.choose(&[
            ApproverKind::Model,
            ApproverKind::Tool,
            ApproverKind::Plugin,
        ])?),
    };
    let a = operation(u)?;
    let mutation = *u.choose(MUTATIONS)?;
    let b = mutate(u, &a, mutation)?;
    Ok(TokenInput {
        probe,
        a,
        b,
        mutation,
    })
}

/// True when two operations are the same call: same plugin, id and
/// argument values (key order is not data; number text is).
pub fn same_data(a: &Operation, b: &Operation) -> bool {
    a.plugin == b.plugin && a.id == b.id && a.arguments == b.arguments
}

fn mutate(u: &mut Unstructured, a: &Operation, mutation: Mutation) -> Result<Operation> {
    let mut b = a.clone();
    let (server, tool) =
        a.id.trim_start_matches("mcp:")
            .split_once('/')
            .unwrap_or(("db", "x"));
    match mutation {
        Mutation::OtherPlugin => {
            b.plugin = Some(other(u, PLUGINS, a.plugin.as_deref().unwrap_or(""))?)
        }
        Mutation::OtherServer => b.id = format!("mcp:{}/{tool}", other(u, SERVERS, server)?),
        Mutation::OtherTool => b.id = format!("mcp:{server}/{}", other(u, TOOLS, tool)?),
        Mutation::AddArgument => {
            let key = format!("extra_{}", u.int_in_range(0..=9u8)?);
            b.arguments.insert(key, json::value(u, 1)?);
        }
        Mutation::RemoveArgument => {
            if let Some(key) = pick_key(u, &b.arguments)? {
                b.arguments.remove(&key);
            }
        }
        Mutation::RenameArgument => {
            if let Some(key) = pick_key(u, &b.arguments)? {
                let v = b.arguments.remove(&key).unwrap_or(Value::Null);
                b.arguments.insert(format!("{key}_"), v);
            }
        }
        Mutation::Nest => {
            if let Some(key) = pick_key(u, &b.arguments)? {
                let v = b.arguments.remove(&key).unwrap_or(Value::Null);
                b.arguments.insert(
                    key,
                    Value::Object(Map::from_iter([("value".to_owned(), v)])),
                );
            }
        }
        _ => {
            let mut leaf = Value::Object(std::mem::take(&mut b.arguments));
            edit_some_leaf(u, &mut leaf, mutation)?;
            if let Value::Object(map) = leaf {
                b.arguments = map;
            }
        }
    }
    Ok(b)
}

fn other(u: &mut Unstructured, choices: &[&str], not: &str) -> Result<String> {
    let rest: Vec<&str> = choices.iter().copied().filter(|c| *c != not).collect();
    Ok((*u.choose(&rest)?).to_owned())
}

fn pick_key(u: &mut Unstructured, map: &Map<String, Value>) -> Result<Option<String>> {
    if map.is_empty() {
        return Ok(None);
    }
    let keys: Vec<&String> = map.keys().collect();
    Ok(Some((*u.choose(&keys)?).clone()))
}

/// Applies a leaf edit to the first leaf (depth-first, starting at an
/// arbitrary child) that the mutation applies to.
fn edit_some_leaf(u: &mut Unstructured, v: &mut Value, mutation: Mutation) -> Result<bool> {
    match v {
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            if keys.is_empty() {
                return Ok(false);
            }
            let start = u.choose_index(keys.len())?;
            for i in 0..keys.len() {
                let key = &keys[(start + i) % keys.len()];
                if mutation == Mutation::NullToMissing && map[key].is_null() {
                    map.remove(key);
                    return Ok(true);
                }
                if edit_some_leaf(u, map.get_mut(key).expect("key listed"), mutation)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Value::Array(items) => {
            if mutation == Mutation::ReverseArray
                && items.len() > 1
                && items.first() != items.last()
            {
                items.reverse();
                return Ok(true);
            }
            for item in items.iter_mut() {
                if edit_some_leaf(u, item, mutation)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Value::String(s) if mutation == Mutation::EditString => {
            let replacement = json::string(u)?;
            if replacement == *s {
                s.push(' ');
            } else {
                *s = replacement;
            }
            Ok(true)
        }
        Value::Number(n) if mutation == Mutation::EditNumber => {
            let old = n.clone();
            let mut new = json::number(u)?;
            if new == Value::Number(old.clone()) {
                new = Value::String(old.to_string());
            }
            *v = new;
            Ok(true)
        }
        Value::Number(n) if mutation == Mutation::NumberToString => {
            *v = Value::String(n.to_string());
            Ok(true)
        }
        Value::Bool(b) if mutation == Mutation::BoolToString => {
            *v = Value::String(b.to_string());
            Ok(true)
        }
        _ => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::rng::SplitMix64;

    #[test]
    fn most_mutations_change_the_data() {
        let mut changed = 0;
        for seed in 0..500 {
            let bytes = SplitMix64::new(seed).bytes(512);
            let input = input(&mut Unstructured::new(&bytes)).unwrap();
            if !same_data(&input.a, &input.b) {
                changed += 1;
            }
        }
        // Some mutations find no applicable leaf (no bool to stringify);
        // the oracle then has nothing to judge, which must stay the exception.
        assert!(changed > 300, "only {changed}/500 inputs differ in data");
    }

    #[test]
    fn same_data_ignores_key_order_but_not_number_text() {
        let a: Operation =
            serde_json::from_str(r#"{"id":"mcp:a/b","arguments":{"x":1,"y":2}}"#).unwrap();
        let b: Operation =
            serde_json::from_str(r#"{"id":"mcp:a/b","arguments":{"y":2,"x":1}}"#).unwrap();
        let c: Operation =
            serde_json::from_str(r#"{"id":"mcp:a/b","arguments":{"y":2,"x":1.0}}"#).unwrap();
        assert!(same_data(&a, &b));
        assert!(!same_data(&a, &c));
    }
}
