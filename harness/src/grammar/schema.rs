//! The productions of the JSON Schemas rbv ships, and which cases exercise
//! them: every property path of every request and answer of the wire
//! (`protocol/schema/`, generated from the wire types), of the Agent
//! Plugins manifest and `mcp.json` (`spec/`), and of the permissions object
//! (`docs/permissions.schema.json`) once per placement (top level and the
//! `extensions` namespace), each enum value where the schema has one.
//!
//! Unlike bash's and SQL's, this grammar's list is not checked in: it is
//! derived from the schema files themselves, so a field added to a schema
//! is a production at once, and `rbv lint` fails until a case covers it or
//! `grammar/schema.yaml` declares it irrelevant with a reason. Names:
//!
//! - `request/evaluate:/operation/kind`: a case's request holds the field;
//! - `request/evaluate:/operation/kind=sql`: it holds that enum value;
//! - `request/evaluate:/operation/kind!type-error`: a raw line holds the
//!   field with the wrong JSON type and the case expects the protocol's
//!   `error` (for a manifest or permissions field: any judged answer, since
//!   the manifest rules, not the protocol, say what a wrong type means);
//! - `request/evaluate:/operation/kind~pair`: two cases whose inputs differ
//!   in that field only expect different answers — the field is one an
//!   answer depends on, and the suite shows it;
//! - `answer/evaluation:/band`: a case's expectation reads the field.
//!
//! `*` stands for any array element or map key. Entries of
//! `grammar/schema.yaml` may end in `*` to declare every production with
//! that prefix at once (one reason for a whole class, such as the type
//! errors of answers, which no case can send).

use super::Covered;
use crate::case::model::{Action, Expect, Step, Token};
use crate::case::Case;
use rbv_protocol::RequestBody;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

/// The namespace of the permissions object's extension placement.
pub const NAMESPACE: &str = "org.agent-plugins.permissions";

/// The placements of the permissions object inside a manifest.
pub const PLACEMENTS: &[(&str, &[&str])] = &[
    ("top-level", &["permissions"]),
    ("extension", &["extensions", NAMESPACE]),
];

const PLUGIN: &str = include_str!("../../schemas/plugin.schema.json");
const MCP: &str = include_str!("../../schemas/mcp.schema.json");
const PERMISSIONS: &str = include_str!("../../schemas/permissions.schema.json");

/// What a schema says of one field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Field {
    /// JSON types it may hold (`string`, `integer`, `number`, `boolean`,
    /// `array`, `object`); empty when the schema leaves it open.
    pub types: BTreeSet<&'static str>,
    /// Its enum (and `const`) values, when it has them.
    pub values: BTreeSet<String>,
}

/// One schema, flattened: field path → what it allows.
#[derive(Clone, Debug, Default)]
pub struct Flat {
    /// The production prefix (`request/evaluate`, `manifest`, …).
    pub name: String,
    pub fields: BTreeMap<String, Field>,
    /// Whether a wrong type and a one-field pair are productions too: a
    /// case sends requests and manifests, never answers.
    pub input: bool,
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn static_type(t: &str) -> Option<&'static str> {
    [
        "string", "integer", "number", "boolean", "array", "object", "null",
    ]
    .into_iter()
    .find(|k| *k == t)
}

/// Flattens `schema` (draft 2020-12, local `$ref`s into `$defs`).
fn flatten(name: &str, schema: &Value, input: bool) -> Flat {
    let mut flat = Flat {
        name: name.to_owned(),
        input,
        ..Flat::default()
    };
    walk(schema, schema, "", &mut flat.fields, 0);
    // The envelope is the same on every message and has its own cases
    // (`protocol/malformed`, `protocol/ids`): its fields are not repeated
    // per message type.
    for k in ["/id", "/session", "/type"] {
        if name.starts_with("request/") || name.starts_with("answer/") {
            flat.fields.remove(k);
        }
    }
    flat
}

fn resolve<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(r) => match r.strip_prefix("#/") {
            Some(ptr) => root.pointer(&format!("/{ptr}")).unwrap_or(node),
            None => node,
        },
        None => node,
    }
}

/// The branches a node stands for: itself, its `$ref`'s target, and the
/// branches of its `anyOf`/`oneOf`/`allOf`.
fn branches<'a>(root: &'a Value, node: &'a Value, out: &mut Vec<&'a Value>, depth: usize) {
    if depth > 16 {
        return;
    }
    let node = resolve(root, node);
    out.push(node);
    for key in ["anyOf", "oneOf", "allOf"] {
        for b in node
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            branches(root, b, out, depth + 1);
        }
    }
}

fn walk(root: &Value, node: &Value, path: &str, out: &mut BTreeMap<String, Field>, depth: usize) {
    if depth > 16 {
        return;
    }
    let mut all = Vec::new();
    branches(root, node, &mut all, 0);
    let mut field = Field::default();
    for b in &all {
        match b.get("type") {
            Some(Value::String(t)) => field.types.extend(static_type(t)),
            Some(Value::Array(ts)) => field
                .types
                .extend(ts.iter().filter_map(Value::as_str).filter_map(static_type)),
            _ => {}
        }
        let values = b
            .get("enum")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .chain(b.get("const").cloned());
        for v in values {
            if let Value::String(s) = &v {
                field.values.insert(s.clone());
            }
            field.types.insert(json_type(&v));
        }
    }
    // `null` stands for "absent" in the wire's optional fields.
    field.types.remove("null");
    if !path.is_empty() {
        out.entry(path.to_owned())
            .and_modify(|f| {
                f.types.extend(field.types.iter().copied());
                f.values.extend(field.values.iter().cloned());
            })
            .or_insert(field);
    }
    for b in &all {
        if let Some(props) = b.get("properties").and_then(Value::as_object) {
            for (k, v) in props {
                walk(root, v, &format!("{path}/{k}"), out, depth + 1);
            }
        }
        if let Some(extra) = b.get("additionalProperties").filter(|v| v.is_object()) {
            walk(root, extra, &format!("{path}/*"), out, depth + 1);
        }
        if let Some(items) = b.get("items").filter(|v| v.is_object()) {
            walk(root, items, &format!("{path}/*"), out, depth + 1);
        }
    }
}

/// Every schema rbv ships, flattened: the wire's requests and answers, the
/// manifest, `mcp.json`, and the permissions object per placement.
pub fn schemas() -> &'static [Flat] {
    static ALL: LazyLock<Vec<Flat>> = LazyLock::new(|| {
        let mut out = Vec::new();
        for (path, schema) in rbv_protocol::schema::all_schemas() {
            let (folder, file) = path.split_once('/').expect("folder/file.json");
            let kind = file.trim_end_matches(".json");
            let (side, input) = match folder {
                "requests" => ("request", true),
                _ => ("answer", false),
            };
            out.push(flatten(&format!("{side}/{kind}"), &schema, input));
        }
        let parse =
            |text: &str| -> Value { serde_json::from_str(text).expect("a shipped schema is JSON") };
        out.push(flatten("manifest", &parse(PLUGIN), true));
        out.push(flatten("mcp", &parse(MCP), true));
        let permissions = parse(PERMISSIONS);
        for (placement, _) in PLACEMENTS {
            out.push(flatten(
                &format!("permissions@{placement}"),
                &permissions,
                true,
            ));
        }
        out
    });
    &ALL
}

fn by_name(name: &str) -> Option<&'static Flat> {
    schemas().iter().find(|f| f.name == name)
}

/// Every production, derived from the schemas, in a stable order.
pub fn productions() -> Vec<String> {
    let mut out = Vec::new();
    for flat in schemas() {
        for (path, field) in &flat.fields {
            let base = format!("{}:{path}", flat.name);
            out.push(base.clone());
            out.extend(field.values.iter().map(|v| format!("{base}={v}")));
            // A field the schema leaves open (a verbatim manifest) has no
            // wrong type.
            if flat.input && !field.types.is_empty() {
                out.push(format!("{base}!type-error"));
            }
            if flat.input {
                out.push(format!("{base}~pair"));
            }
        }
    }
    out
}

/// Whether a declaration of `grammar/schema.yaml` names `production`:
/// exactly, or as a prefix ending in `*`.
pub fn declares(pattern: &str, production: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) if !pattern.ends_with("/*") => production.starts_with(prefix),
        _ => pattern == production,
    }
}

/// The child path of `key` under `path` in `flat`, if the schema has one.
fn child(flat: &Flat, path: &str, key: &str) -> Option<String> {
    let exact = format!("{path}/{key}");
    if flat.fields.contains_key(&exact) {
        return Some(exact);
    }
    let any = format!("{path}/*");
    flat.fields.contains_key(&any).then_some(any)
}

/// What a document exercises of `flat`: fields, enum values, wrong types.
fn visit(flat: &Flat, path: &str, value: &Value, seen: &mut BTreeSet<String>) {
    if let Some(field) = flat.fields.get(path) {
        let base = format!("{}:{path}", flat.name);
        let t = json_type(value);
        let fits = field.types.is_empty()
            || field.types.contains(t)
            || (t == "integer" && field.types.contains("number"))
            || value.is_null();
        if !fits {
            seen.insert(format!("{base}!type-error"));
        }
        if let Value::String(s) = value {
            if field.values.contains(s) {
                seen.insert(format!("{base}={s}"));
            }
        }
        seen.insert(base);
    }
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if let Some(p) = child(flat, path, k) {
                    visit(flat, &p, v, seen);
                }
            }
        }
        Value::Array(items) => {
            if let Some(p) = child(flat, path, "0") {
                for v in items {
                    visit(flat, &p, v, seen);
                }
            }
        }
        _ => {}
    }
}

/// The manifests and `mcp.json` documents of a request, with their bundle.
fn bundles(request: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    if let Some(ps) = request.get("plugins").and_then(Value::as_array) {
        out.extend(ps);
    }
    for k in ["plugin", "old", "new"] {
        out.extend(request.get(k).filter(|p| p.is_object()));
    }
    out
}

fn placement<'a>(manifest: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().try_fold(manifest, |v, k| v.get(*k))
}

/// Everything one request exercises: its own schema's fields, and those of
/// every manifest, `mcp.json` and permissions object it carries.
fn request_productions(request: &Value, seen: &mut BTreeSet<String>) {
    let kind = request.get("type").and_then(Value::as_str).unwrap_or("");
    if let Some(flat) = by_name(&format!("request/{kind}")) {
        visit(flat, "", request, seen);
    }
    for bundle in bundles(request) {
        let manifest = &bundle["manifest"];
        if let Some(flat) = by_name("manifest") {
            visit(flat, "", manifest, seen);
        }
        if let (Some(mcp), Some(flat)) = (bundle.get("mcp"), by_name("mcp")) {
            visit(flat, "", mcp, seen);
        }
        for (name, keys) in PLACEMENTS {
            if let (Some(p), Some(flat)) = (
                placement(manifest, keys),
                by_name(&format!("permissions@{name}")),
            ) {
                visit(flat, "", p, seen);
            }
        }
    }
}

/// The productions of the schemas one request's JSON exercises (its
/// own fields, its manifests'), type errors included.
pub fn request_fields(request: &Value) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    request_productions(request, &mut seen);
    seen
}

/// The requests one action sends, as JSON (a captured token as a fixed
/// string: which token it is does not change the request's fields).
fn requests(action: &Action) -> Vec<Value> {
    let typed = |action: &Action| -> Option<Vec<RequestBody>> {
        let action = match action {
            Action::Invoke {
                operation,
                token: Some(Token::Capture(_)),
            } => Action::Invoke {
                operation: operation.clone(),
                token: Some(Token::Literal("tok-captured".into())),
            },
            other => other.clone(),
        };
        crate::case::bodies(&action, &BTreeMap::new()).ok()
    };
    match action {
        Action::SendRaw(raw) => {
            let line = crate::transport::fill_raw(&raw.line, 1, "s");
            serde_json::from_str(&line).ok().into_iter().collect()
        }
        Action::Concurrent(actions) => actions.iter().flat_map(requests).collect(),
        other => typed(other)
            .unwrap_or_default()
            .iter()
            .filter_map(|b| serde_json::from_str(&b.typed_json()).ok())
            .collect(),
    }
}

/// The natural answer type of an action.
fn answer_type(action: &Action, expect: &Expect) -> Option<String> {
    if let Some(t) = &expect.answer_type {
        return Some(t.clone());
    }
    Some(
        match action {
            Action::LoadPlugins(_) => "loaded",
            Action::ValidateManifest(_) => "validation",
            Action::Project(_) => "projection",
            Action::RecordEvent(_) | Action::SetPolicy(_) | Action::ResetSession => "ack",
            Action::Evaluate(_) => "evaluation",
            Action::Approve { .. } => "approval",
            Action::Invoke { .. } | Action::Concurrent(_) => "invocation",
            Action::DiffManifests { .. } => "diff",
            Action::SendRaw(_) => return None,
        }
        .to_owned(),
    )
}

/// The answer a step's expectation reads, as a document of the answer's
/// shape: each expected key at its place in the answer, holding the
/// expected value when it is one string (an exact band, a decision), else
/// `null` (read, value open).
fn expected_answer(step: &Step, kind: &str) -> Value {
    let e = serde_json::to_value(&step.expect).unwrap_or(Value::Null);
    let mut out = e.get("match").cloned().unwrap_or_else(|| json!({}));
    if !out.is_object() {
        out = json!({});
    }
    let leaf = |v: &Value| match v {
        Value::String(_) => v.clone(),
        _ => Value::Null,
    };
    let report = |o: &mut Map<String, Value>| {
        for k in ["loaded", "default_floor"] {
            if let Some(v) = e.get(k) {
                o.insert(k.into(), leaf(v));
            }
        }
        if let Some(Value::Object(d)) = e.get("declarations") {
            let d: Map<String, Value> = d.iter().map(|(k, v)| (k.clone(), leaf(v))).collect();
            o.insert("declarations".into(), Value::Object(d));
        }
    };
    let o = out.as_object_mut().expect("an object");
    // The report the expectation reads, merged into what `match` reads of
    // it (nothing is added when the expectation reads no report).
    let mut r = Map::new();
    report(&mut r);
    match kind {
        "loaded" if !r.is_empty() => {
            let plugins = o.entry("plugins").or_insert_with(|| json!([]));
            if !plugins.is_array() {
                *plugins = json!([]);
            }
            let list = plugins.as_array_mut().expect("an array");
            if list.first().is_none_or(|p| !p.is_object()) {
                list.insert(0, json!({}));
            }
            list[0].as_object_mut().expect("an object").extend(r);
        }
        "validation" if !r.is_empty() => {
            let plugin = o.entry("plugin").or_insert_with(|| json!({}));
            if !plugin.is_object() {
                *plugin = json!({});
            }
            plugin.as_object_mut().expect("an object").extend(r);
        }
        "loaded" | "validation" => {}
        _ => {
            for k in [
                "band", "declared", "decision", "allowed", "granted", "breaking",
            ] {
                if let Some(v) = e.get(k) {
                    o.insert(k.into(), leaf(v));
                }
            }
            if e.get("allowed_count").is_some() {
                o.insert("allowed".into(), Value::Null);
            }
        }
    }
    for path in step
        .capture
        .values()
        .chain(step.expect.present.iter().flatten())
    {
        let mut at = &mut *o;
        let parts: Vec<&str> = path.split('.').collect();
        for (i, part) in parts.iter().enumerate() {
            if i + 1 == parts.len() {
                at.entry(part.to_string()).or_insert(Value::Null);
            } else {
                let next = at.entry(part.to_string()).or_insert_with(|| json!({}));
                if !next.is_object() {
                    break;
                }
                at = next.as_object_mut().expect("an object");
            }
        }
    }
    out
}

/// The sides of a step: (can fail under, can fail over).
fn sides(step: &Step) -> (bool, bool) {
    crate::case::judge_sides(step)
}

fn add(
    out: &mut BTreeMap<(String, String), Covered>,
    case: &Case,
    names: BTreeSet<String>,
    (under, over): (bool, bool),
) {
    for name in names {
        let c = out.entry(("schema".to_owned(), name)).or_default();
        if under {
            c.unsafe_cases.insert(case.id.clone());
        }
        if over {
            c.precision_cases.insert(case.id.clone());
        }
        c.readings.insert("json");
    }
}

/// What one case exercises of the schemas.
pub fn exercised(case: &Case, out: &mut BTreeMap<(String, String), Covered>) {
    let guards = case.guards();
    if !case.plugins.is_empty() {
        // Loaded before step 1 and not judged themselves: what the case's
        // steps then judge depends on them.
        let mut seen = BTreeSet::new();
        request_productions(
            &json!({"type": "load_plugins", "plugins": case.plugins}),
            &mut seen,
        );
        seen.retain(|s| !s.starts_with("request/"));
        let none = !guards.unsafe_side && !guards.precision;
        add(
            out,
            case,
            seen,
            (guards.unsafe_side || none, guards.precision),
        );
    }
    for step in &case.steps {
        let (under, over) = sides(step);
        let judged = under || over;
        let expects_error = step.expect.answer_type.as_deref() == Some("error");
        let mut seen = BTreeSet::new();
        for r in requests(&step.action) {
            request_productions(&r, &mut seen);
        }
        // A wrong type in a request is the protocol's to refuse (`error`);
        // in a manifest, the manifest rules say what follows, so any
        // judged answer counts.
        seen.retain(|s| {
            !s.ends_with("!type-error")
                || if s.starts_with("request/") {
                    expects_error
                } else {
                    judged
                }
        });
        // A step that expects nothing sets up what later steps judge (an
        // event, a policy, a load): it counts with the case's sides. A case
        // with no side at all (a raw line's, where no band is at stake and
        // the answer's type is checked) counts as exercising it.
        let sides = if judged {
            (under, over)
        } else {
            let none = !guards.unsafe_side && !guards.precision;
            (guards.unsafe_side || none, guards.precision)
        };
        if let Some(kind) = answer_type(&step.action, &step.expect) {
            if let Some(flat) = by_name(&format!("answer/{kind}")) {
                visit(flat, "", &expected_answer(step, &kind), &mut seen);
            }
        }
        // An answer's wrong type is the implementation's, never a case's.
        seen.retain(|s| !(s.starts_with("answer/") && s.ends_with("!type-error")));
        add(out, case, seen, sides);
    }
}

/// A case's input with every value at `field` removed (`None`: no field),
/// and the values removed.
type Masked = (String, String);

/// The field part of a production name: (`request/evaluate`, `/operation/kind`).
fn split(production: &str) -> Option<(&str, &str)> {
    production.split_once(':')
}

/// Removes the values at `path` (of segments, `*` for any) under `value`,
/// collecting them.
fn remove_at(value: &mut Value, path: &[&str], removed: &mut Vec<Value>) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    match value {
        Value::Object(map) if rest.is_empty() => {
            if *first == "*" {
                removed.extend(std::mem::take(map).into_values());
            } else if let Some(v) = map.remove(*first) {
                removed.push(v);
            }
        }
        Value::Object(map) => {
            if *first == "*" {
                map.values_mut().for_each(|v| remove_at(v, rest, removed));
            } else if let Some(v) = map.get_mut(*first) {
                remove_at(v, rest, removed);
            }
        }
        Value::Array(items) if *first == "*" => {
            if rest.is_empty() {
                removed.append(items);
            } else {
                items.iter_mut().for_each(|v| remove_at(v, rest, removed));
            }
        }
        _ => {}
    }
}

/// The documents of `schema` inside one request.
fn documents<'a>(request: &'a mut Value, schema: &str) -> Vec<&'a mut Value> {
    if let Some(kind) = schema.strip_prefix("request/") {
        let is = request.get("type").and_then(Value::as_str) == Some(kind);
        return if is { vec![request] } else { Vec::new() };
    }
    let mut out = Vec::new();
    let mut bundles: Vec<&mut Value> = Vec::new();
    let Value::Object(map) = request else {
        return out;
    };
    for (k, v) in map.iter_mut() {
        match (k.as_str(), v) {
            ("plugins", Value::Array(ps)) => bundles.extend(ps.iter_mut()),
            ("plugin" | "old" | "new", v @ Value::Object(_)) => bundles.push(v),
            _ => {}
        }
    }
    for b in bundles {
        match schema {
            "manifest" => out.extend(b.get_mut("manifest")),
            "mcp" => out.extend(b.get_mut("mcp")),
            _ => {
                let name = schema.strip_prefix("permissions@").unwrap_or_default();
                let keys = PLACEMENTS
                    .iter()
                    .find(|(p, _)| *p == name)
                    .map_or(&[][..], |(_, k)| *k);
                let mut at = b.get_mut("manifest");
                for k in keys {
                    at = at.and_then(|v| v.get_mut(*k));
                }
                out.extend(at);
            }
        }
    }
    out
}

/// A case as comparable input (every request it sends, its profile and
/// sessions) and its expectations.
#[derive(Clone, Debug)]
pub struct Input {
    pub id: String,
    requests: Vec<Value>,
    context: String,
    expect: String,
}

/// The input and expectations of a case.
pub fn input(case: &Case) -> Input {
    let mut requests = Vec::new();
    if !case.plugins.is_empty() {
        requests.push(json!({"type": "load_plugins", "plugins": case.plugins}));
    }
    let mut shape = Vec::new();
    let mut expect = Vec::new();
    for step in &case.steps {
        let sent = requests_of(step);
        shape.push(json!([step.action.key(), step.session, sent.len()]));
        requests.extend(sent);
        expect.push(json!([
            serde_json::to_value(&step.expect).ok(),
            step.capture
        ]));
    }
    Input {
        id: case.id.clone(),
        requests,
        context: json!([case.profile, shape]).to_string(),
        expect: Value::Array(expect).to_string(),
    }
}

fn requests_of(step: &Step) -> Vec<Value> {
    requests(&step.action)
}

impl Input {
    /// The input with `production`'s field removed everywhere, and what
    /// was removed (`None` when the field occurs nowhere and nothing
    /// changes).
    fn masked(&self, production: &str) -> Option<Masked> {
        let (schema, path) = split(production)?;
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        let mut requests = self.requests.clone();
        let mut removed = Vec::new();
        for r in &mut requests {
            for doc in documents(r, schema) {
                remove_at(doc, &segments, &mut removed);
            }
        }
        Some((
            json!([self.context, requests]).to_string(),
            Value::Array(removed).to_string(),
        ))
    }

    fn key(&self) -> String {
        json!([self.context, self.requests]).to_string()
    }
}

/// For every `…~pair` production of `fields` (the field productions the
/// cases exercise), a pair of cases that differ in that field only and
/// expect different answers; the covered sides are both cases'.
pub fn pairs(
    cases: &[Case],
    fields: &BTreeMap<String, BTreeSet<usize>>,
) -> BTreeMap<(String, String), Covered> {
    let inputs: Vec<Input> = crate::parallel::map(cases, input);
    let whole: BTreeMap<String, Vec<usize>> =
        inputs
            .iter()
            .enumerate()
            .fold(BTreeMap::new(), |mut m, (i, input)| {
                m.entry(input.key()).or_default().push(i);
                m
            });
    let fields: Vec<(&String, &BTreeSet<usize>)> = fields.iter().collect();
    let found = crate::parallel::map(&fields, |(field, with)| {
        // Cases holding the field, by their input without it; a case
        // without the field is its own input unmasked.
        let mut groups: BTreeMap<String, Vec<(usize, String)>> = BTreeMap::new();
        for &i in with.iter() {
            if let Some((key, removed)) = inputs[i].masked(field) {
                groups.entry(key).or_default().push((i, removed));
            }
        }
        for (key, members) in &mut groups {
            for &j in whole.get(key).into_iter().flatten() {
                if !with.contains(&j) {
                    members.push((j, "[]".to_owned()));
                }
            }
        }
        for members in groups.values() {
            for (n, (a, va)) in members.iter().enumerate() {
                for (b, vb) in &members[n + 1..] {
                    if va != vb && inputs[*a].expect != inputs[*b].expect {
                        return Some(((*field).clone(), *a, *b));
                    }
                }
            }
        }
        None
    });
    let mut out = BTreeMap::new();
    for (field, a, b) in found.into_iter().flatten() {
        let c: &mut Covered = out
            .entry(("schema".to_owned(), format!("{field}~pair")))
            .or_default();
        for i in [a, b] {
            let g = cases[i].guards();
            if g.unsafe_side {
                c.unsafe_cases.insert(cases[i].id.clone());
            }
            if g.precision {
                c.precision_cases.insert(cases[i].id.clone());
            }
            if !g.unsafe_side && !g.precision {
                c.unsafe_cases.insert(cases[i].id.clone());
            }
        }
        c.readings.insert("json");
    }
    out
}

/// The input fields each case holds (by case index), for [`pairs`].
pub fn input_fields(
    per_case: &[BTreeMap<(String, String), Covered>],
) -> BTreeMap<String, BTreeSet<usize>> {
    let inputs: BTreeSet<&str> = schemas()
        .iter()
        .filter(|f| f.input)
        .map(|f| f.name.as_str())
        .collect();
    let mut out: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (i, seen) in per_case.iter().enumerate() {
        for (grammar, name) in seen.keys() {
            if grammar != "schema" || name.contains(['=', '!', '~']) {
                continue;
            }
            if split(name).is_some_and(|(s, _)| inputs.contains(s)) {
                out.entry(name.clone()).or_default().insert(i);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(yaml: &str) -> Vec<Case> {
        let files = vec![
            (
                crate::case::CATALOGUE.to_owned(),
                "requirements:\n  - {id: RBV-X-001, title: t, rule: r, section: \"§1\", level: MUST, capability: manifest, safe_side: true}\n  - {id: RBV-PRO-001, title: t, rule: r, section: \"§1\", level: MUST}\nprofiles: []\n".to_owned(),
            ),
            ("m/a.yaml".to_owned(), yaml.to_owned()),
        ];
        crate::case::load_files(&files)
            .unwrap_or_else(|e| panic!("{e:?}"))
            .cases
    }

    fn exercised_by(cases: &[Case]) -> BTreeSet<String> {
        let mut out = BTreeMap::new();
        for c in cases {
            exercised(c, &mut out);
        }
        out.into_keys().map(|(_, n)| n).collect()
    }

    const MANIFEST: &str = r#"{"$schema": "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json", "name": "p", "version": "1.0.0"#;

    #[test]
    fn the_productions_come_from_the_shipped_schemas() {
        let all = productions();
        for name in [
            "request/evaluate:/operation/kind",
            "request/evaluate:/operation/kind=sql",
            "request/evaluate:/operation/trust!type-error",
            "request/set_policy:/workspace/root~pair",
            "answer/evaluation:/band=escalate",
            "manifest:/author/email",
            "mcp:/mcpServers/*/type=stdio",
            "permissions@top-level:/operations/*/band=auto",
            "permissions@extension:/default~pair",
        ] {
            assert!(all.iter().any(|p| p == name), "{name} not derived");
        }
        // The envelope has its own cases; answers are never sent.
        assert!(!all.iter().any(|p| p == "request/evaluate:/id"));
        assert!(!all
            .iter()
            .any(|p| p.starts_with("answer/") && p.ends_with("~pair")));
        assert!(declares("answer/handshake:*", "answer/handshake:/profile"));
        assert!(!declares("answer/handshake:*", "answer/evaluation:/band"));
        assert!(!declares(
            "manifest:/extensions/*",
            "manifest:/extensions/*/x"
        ));
        assert!(declares("manifest:/extensions/*", "manifest:/extensions/*"));
    }

    #[test]
    fn a_case_covers_fields_values_wrong_types_and_answers() {
        let cases = load(&format!(
            r#"id: m/a
requirements: [RBV-X-001]
source: {{note: t}}
steps:
  - validate_manifest: {{manifest: {MANIFEST}", "description": 5, "extensions": {{"org.agent-plugins.permissions": {{"operations": [{{"id": "mcp:a/b", "band": "auto"}}]}}}}}}}}
    expect: {{loaded: false, declarations: {{"mcp:a/b": null}}}}
---
id: m/b
requirements: [RBV-PRO-001]
source: {{note: t}}
reason: the protocol's own
steps:
  - send_raw: '{{"id":$ID,"session":"$SESSION","type":"project","scope":7}}'
    expect: {{type: error}}
"#
        ));
        let seen = exercised_by(&cases);
        for name in [
            "request/validate_manifest:/plugin/manifest",
            "manifest:/description",
            "manifest:/description!type-error",
            "permissions@extension:/operations/*/band=auto",
            "answer/validation:/plugin/loaded",
            "answer/validation:/plugin/declarations/*",
            "request/project:/scope!type-error",
        ] {
            assert!(seen.contains(name), "{name} not in {seen:#?}");
        }
        assert!(
            !seen.contains("permissions@top-level:/operations"),
            "{seen:#?}"
        );
    }

    #[test]
    fn a_pair_differs_in_one_field_and_in_its_answer() {
        let case = |id: &str, trust: &str, band: &str, title: &str| {
            format!(
                r#"id: m/{id}
title: {title}
requirements: [RBV-X-001]
source: {{note: t}}
steps:
  - evaluate: {{id: "client:shell", kind: shell, arguments: {{command: "ls"}}{trust}}}
    expect: {{band: {band}}}
"#
            )
        };
        let yaml = [
            case("a", "", "auto", "one"),
            case("b", ", trust: untrusted", "soft-ack", "two"),
            // Trusted, as the session would derive: the same answer as `a`.
            case("c", ", trust: trusted", "auto", "three"),
        ]
        .join("---\n");
        let cases = load(&yaml);
        let per: Vec<_> = cases
            .iter()
            .map(|c| {
                let mut m = BTreeMap::new();
                exercised(c, &mut m);
                m
            })
            .collect();
        let fields = input_fields(&per);
        let found = pairs(&cases, &fields);
        let trust = (
            "schema".to_owned(),
            "request/evaluate:/operation/trust~pair".to_owned(),
        );
        let covered = &found[&trust];
        assert!(covered.unsafe_cases.contains("m/b"), "{covered:?}");
        // `kind` is the same in every case: no pair shows it.
        let kind = (
            "schema".to_owned(),
            "request/evaluate:/operation/kind~pair".to_owned(),
        );
        assert!(!found.contains_key(&kind), "{found:?}");
        // Same answers for a different value: not a pair either.
        let only_same = load(
            &[
                case("a", "", "auto", "x"),
                case("c", ", trust: trusted", "auto", "y"),
            ]
            .join("---\n"),
        );
        let per: Vec<_> = only_same
            .iter()
            .map(|c| {
                let mut m = BTreeMap::new();
                exercised(c, &mut m);
                m
            })
            .collect();
        assert!(pairs(&only_same, &input_fields(&per)).is_empty());
    }

    /// The lint checks this grammar adds, each shown failing: a field no
    /// case holds, a field without a one-field pair, a declaration that
    /// names nothing the schemas make, and one without a reason.
    #[test]
    fn the_schema_lint_checks_fail_on_an_uncovered_field_a_missing_pair_and_a_stale_entry() {
        let cases = load(
            r#"id: m/a
requirements: [RBV-X-001]
source: {note: t}
steps:
  - evaluate: {id: "client:shell", kind: shell, arguments: {command: "ls"}}
    expect: {band: auto}
"#,
        );
        let declared = |productions: Vec<super::super::Production>| {
            BTreeMap::from([(
                "schema".to_owned(),
                super::super::Declared {
                    grammar: "schema".into(),
                    parser: "test".into(),
                    productions,
                },
            )])
        };
        let rows = super::super::coverage(&declared(Vec::new()), &cases);
        let problem = |name: &str| {
            rows.iter()
                .find(|r| r.production == name)
                .unwrap_or_else(|| panic!("no row {name}"))
                .problem()
        };
        // Covered by the case: no problem.
        assert_eq!(problem("request/evaluate:/operation/kind"), None);
        // Held by no case, and a field no pair shows: lint errors.
        assert!(problem("request/evaluate:/operation/dialect").is_some());
        assert!(problem("request/evaluate:/operation/kind~pair").is_some());
        assert!(problem("manifest:/name!type-error").is_some());
        // Declared irrelevant (by prefix): no problem.
        let irrelevant = super::super::Production {
            name: "request/evaluate:/operation/dialect*".into(),
            irrelevant: Some("a reason".into()),
            foreign: None,
        };
        let rows = super::super::coverage(&declared(vec![irrelevant.clone()]), &cases);
        let row = rows
            .iter()
            .find(|r| r.production == "request/evaluate:/operation/dialect~pair")
            .unwrap();
        assert_eq!(row.problem(), None);
        // The file's own problems: a stale name, an entry without a reason.
        let stale = super::super::Production {
            name: "request/evaluate:/operation/colour".into(),
            ..irrelevant.clone()
        };
        let bare = super::super::Production {
            irrelevant: None,
            ..irrelevant
        };
        let problems = declared(vec![stale, bare])["schema"].problems();
        assert!(
            problems.iter().any(|p| p.contains("names no production")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("only declares productions")),
            "{problems:?}"
        );
    }
}
