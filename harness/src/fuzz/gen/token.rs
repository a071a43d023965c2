//! Token-binding inputs: an operation A, a mutation of it B (any argument,
//! not only the payload a classifier inspects), and which token property to
//! probe — binding, single use, who may mint — within one session or across
//! two and their resets.

use super::super::reach::{fire, Tagged};
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

/// Which property of tokens one exec probes. Sessions are `a` and `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// Approve A, redeem for B (B differs from A in data).
    Binding,
    /// Approve A, redeem for A, then again.
    Replay,
    /// Approve A, redeem for A three times in one pipelined batch.
    Concurrent,
    /// A model, tool or plugin approves A.
    Minting(ApproverKind),
    /// Redeem A with a string the model can compute.
    Forged,
    /// Approve A, redeem it, then call A again without a token.
    StandingGrant,
    /// Approve A in session a, redeem it in session b.
    CrossSession,
    /// Approve A, reset the session, redeem.
    ResetVoids,
    /// Approve A in session a, reset session b, redeem in a: allowed.
    ResetOther,
    /// Approve A then B (tokens ta, tb); redeem B with ta (refused), then A
    /// with ta and B with tb (both allowed).
    Interleaved,
    /// Approve A; show its token to an auto call, then to B.
    AutoThenEscalating,
}

const PROBES: &[Probe] = &[
    Probe::Binding,
    Probe::Replay,
    Probe::Concurrent,
    Probe::Minting(ApproverKind::Model),
    Probe::Forged,
    Probe::StandingGrant,
    Probe::CrossSession,
    Probe::ResetVoids,
    Probe::ResetOther,
    Probe::Interleaved,
    Probe::AutoThenEscalating,
];

impl Probe {
    pub fn name(self) -> &'static str {
        match self {
            Probe::Binding => "probe:binding",
            Probe::Replay => "probe:replay",
            Probe::Concurrent => "probe:concurrent",
            Probe::Minting(_) => "probe:minting",
            Probe::Forged => "probe:forged",
            Probe::StandingGrant => "probe:standing-grant",
            Probe::CrossSession => "probe:cross-session",
            Probe::ResetVoids => "probe:reset-voids",
            Probe::ResetOther => "probe:reset-other-session",
            Probe::Interleaved => "probe:interleaved",
            Probe::AutoThenEscalating => "probe:auto-then-escalating",
        }
    }

    /// The requirements a probe exercises (an exhaustive match: a new probe
    /// does not compile without its tags).
    pub fn requirements(self) -> &'static [&'static str] {
        match self {
            Probe::Binding => &["RBV-TOK-002"],
            Probe::Replay => &["RBV-TOK-005", "RBV-TOK-010"],
            Probe::Concurrent => &["RBV-TOK-006"],
            Probe::Minting(_) => &["RBV-TOK-001"],
            Probe::Forged => &["RBV-TOK-007"],
            Probe::StandingGrant => &["RBV-TOK-009"],
            Probe::CrossSession => &["RBV-TOK-009"],
            Probe::ResetVoids => &["RBV-TOK-008"],
            Probe::ResetOther => &["RBV-TOK-010"],
            Probe::Interleaved => &["RBV-TOK-002", "RBV-TOK-010"],
            Probe::AutoThenEscalating => &["RBV-TOK-002", "RBV-TOK-012"],
        }
    }
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
    /// A fetch approved for GET, redeemed for another method (a payload-only
    /// binding sees the same URL).
    ChangeMethod,
    /// 1 → 1.0 or 1e0: the same double, different data.
    RespellNumber,
    /// A string in NFC approved, its NFD form redeemed.
    UnicodeForm,
    /// `Path` approved, `path` redeemed.
    KeyCase,
    /// An item repeated: equal as a set, not as data.
    DuplicateItem,
}

impl Mutation {
    pub fn name(self) -> &'static str {
        match self {
            Mutation::EditString => "edit-string",
            Mutation::EditNumber => "edit-number",
            Mutation::NumberToString => "number-to-string",
            Mutation::BoolToString => "bool-to-string",
            Mutation::NullToMissing => "null-to-missing",
            Mutation::AddArgument => "add-argument",
            Mutation::RemoveArgument => "remove-argument",
            Mutation::RenameArgument => "rename-argument",
            Mutation::ReverseArray => "reverse-array",
            Mutation::Nest => "nest",
            Mutation::OtherPlugin => "other-plugin",
            Mutation::OtherServer => "other-server",
            Mutation::OtherTool => "other-tool",
            Mutation::ChangeMethod => "change-method",
            Mutation::RespellNumber => "respell-number",
            Mutation::UnicodeForm => "unicode-form",
            Mutation::KeyCase => "key-case",
            Mutation::DuplicateItem => "duplicate-item",
        }
    }

    pub fn requirements(self) -> &'static [&'static str] {
        match self {
            Mutation::OtherPlugin | Mutation::OtherServer | Mutation::OtherTool => &["RBV-TOK-004"],
            // The fetch inspector classifies by URL; the token must bind the
            // method too.
            Mutation::ChangeMethod => &["RBV-TOK-002", "RBV-TOK-011"],
            _ => &["RBV-TOK-002"],
        }
    }
}

/// Every production of this generator with its tags, for the reach map.
pub fn productions() -> Vec<Tagged> {
    let probes = PROBES.iter().map(|p| (p.name(), p.requirements()));
    let mutations = MUTATIONS.iter().map(|m| (m.name(), m.requirements()));
    probes
        .chain(mutations)
        .chain([("typed-fetch", &["RBV-TOK-011"][..])])
        .collect()
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
            Mutation::ChangeMethod => "another HTTP method for the same URL",
            Mutation::RespellNumber => "a number spelled another way (1 as 1.0 or 1e0)",
            Mutation::UnicodeForm => "a string in another Unicode normalization form",
            Mutation::KeyCase => "an argument key in another case",
            Mutation::DuplicateItem => "a repeated array item",
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
    Mutation::ChangeMethod,
    Mutation::RespellNumber,
    Mutation::UnicodeForm,
    Mutation::KeyCase,
    Mutation::DuplicateItem,
];

#[derive(Clone, Debug, PartialEq)]
pub struct TokenInput {
    pub probe: Probe,
    pub a: Operation,
    pub b: Operation,
    pub mutation: Mutation,
}

/// A call of the client's fetch tool: a classifier inspects the URL, and
/// the other arguments (method, headers) are data the token binds too.
pub fn fetch_operation(u: &mut Unstructured) -> Result<Operation> {
    let mut arguments = json::object(u, 1)?;
    let item: u16 = u.arbitrary()?;
    arguments.insert(
        "url".into(),
        Value::String(format!("https://api.example.com/items/{item}")),
    );
    arguments.insert("method".into(), Value::String("GET".into()));
    Ok(Operation {
        plugin: None,
        id: "client:fetch".into(),
        kind: Some(rbv_protocol::OperationKind::Fetch),
        arguments,
        trust: None,
        actor: None,
        dialect: None,
        workspace: None,
    })
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
        workspace: None,
    })
}

pub fn input(u: &mut Unstructured) -> Result<TokenInput> {
    // Binding gets half of the execs: its mutations are the widest space.
    let probe = if u.ratio(1, 2)? {
        Probe::Binding
    } else {
        match *u.choose(PROBES)? {
            Probe::Minting(_) => Probe::Minting(*u.choose(&[
                ApproverKind::Model,
                ApproverKind::Tool,
                ApproverKind::Plugin,
            ])?),
            p => p,
        }
    };
    fire("token", probe.name());
    let mut mutation = *u.choose(MUTATIONS)?;
    let mut a = if mutation == Mutation::ChangeMethod || u.ratio(1, 8)? {
        fire("token", "typed-fetch");
        fetch_operation(u)?
    } else {
        operation(u)?
    };
    if a.plugin.is_none() && probe != Probe::Binding {
        // A GET needs no token; the probes other than binding redeem A itself.
        a.arguments
            .insert("method".into(), Value::String("DELETE".into()));
    }
    if a.plugin.is_none() && matches!(mutation, Mutation::OtherPlugin | Mutation::OtherServer) {
        mutation = Mutation::OtherTool;
    }
    let b = mutate(u, &mut a, mutation)?;
    if probe == Probe::Binding && !same_data(&a, &b) {
        fire("token", mutation.name());
    }
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

/// B from A; the mutations that need a particular A (a composable string,
/// a mixed-case key) set it in A first.
fn mutate(u: &mut Unstructured, a: &mut Operation, mutation: Mutation) -> Result<Operation> {
    match mutation {
        Mutation::UnicodeForm => {
            let key = format!("name_{}", u.int_in_range(0..=3u8)?);
            a.arguments
                .insert(key.clone(), Value::String("café crème".into()));
            let mut b = a.clone();
            b.arguments
                .insert(key, Value::String("cafe\u{301} cre\u{300}me".into()));
            return Ok(b);
        }
        Mutation::KeyCase => {
            let key = *u.choose(json::KEYS)?;
            let mut upper = key.to_owned();
            upper[..1].make_ascii_uppercase();
            let v = json::value(u, 1)?;
            a.arguments.insert(upper, v.clone());
            let mut b = a.clone();
            let v = b.arguments.remove(&{
                let mut k = key.to_owned();
                k[..1].make_ascii_uppercase();
                k
            });
            b.arguments.insert(key.to_owned(), v.unwrap_or(Value::Null));
            return Ok(b);
        }
        Mutation::RespellNumber => {
            let key = format!("count_{}", u.int_in_range(0..=3u8)?);
            let n: u8 = u.arbitrary()?;
            a.arguments.insert(key.clone(), Value::from(n));
            let spelled = if u.arbitrary()? {
                format!("{n}.0")
            } else {
                format!("{n}e0")
            };
            let mut b = a.clone();
            b.arguments
                .insert(key, serde_json::from_str(&spelled).expect("a JSON number"));
            return Ok(b);
        }
        Mutation::DuplicateItem => {
            let key = format!("ids_{}", u.int_in_range(0..=3u8)?);
            let (x, y): (u16, u16) = (u.arbitrary()?, u.arbitrary()?);
            let y = if x == y { y.wrapping_add(1) } else { y };
            a.arguments.insert(key.clone(), serde_json::json!([x, y]));
            let mut b = a.clone();
            b.arguments.insert(key, serde_json::json!([x, y, x]));
            return Ok(b);
        }
        Mutation::ChangeMethod => {
            let mut b = a.clone();
            let method = *u.choose(&["DELETE", "POST", "PUT", "PATCH"])?;
            b.arguments
                .insert("method".into(), Value::String(method.into()));
            return Ok(b);
        }
        _ => {}
    }
    let a = &*a;
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
