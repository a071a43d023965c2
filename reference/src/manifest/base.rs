//! The Agent Plugins base specification (1.0.0 and 1.1.0): `plugin.json`
//! and `mcp.json`, validated by hand against their small closed schemas
//! (spec/plugin.schema.json, spec/mcp.schema.json, spec/README.md).
//!
//! Failure boundaries follow the specification: an unknown top-level field of
//! `plugin.json` is reported and ignored; a non-object `extensions` is
//! reported and ignored; any other manifest violation rejects the plugin. A
//! bad `mcp.json` disables MCP for the plugin; a bad server entry skips that
//! server only.

use super::{error, warning, Pointer};
use rbv_protocol::Diagnostic;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// The Agent Plugins release a document targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecVersion {
    V1_0,
    V1_1,
}

const PLUGIN_SCHEMAS: &[(&str, SpecVersion)] = &[
    (
        "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
        SpecVersion::V1_0,
    ),
    (
        "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json",
        SpecVersion::V1_1,
    ),
];
const MCP_SCHEMAS: &[(&str, SpecVersion)] = &[
    (
        "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json",
        SpecVersion::V1_0,
    ),
    (
        "https://agent-plugins.org/schemas/1.1.0/mcp.schema.json",
        SpecVersion::V1_1,
    ),
];

/// What the base specification says about one `plugin.json`.
#[derive(Clone, Debug, PartialEq)]
pub struct BaseManifest {
    pub name: Option<String>,
    pub version: Option<String>,
    /// False when the specification rejects the plugin.
    pub loaded: bool,
    pub spec: Option<SpecVersion>,
    /// Top-level fields the specification does not define (reported and
    /// ignored by the base layer; `permissions` among them is read by the
    /// permissions layer according to the profile).
    pub unknown_fields: Vec<String>,
    /// The `extensions` object, when it is one.
    pub extensions: Option<Map<String, Value>>,
}

/// Whether `name` satisfies §5.5: 1-64 of `a-z 0-9 - .`, alphanumeric at
/// both ends, no `--` and no `..`.
pub fn valid_plugin_name(name: &str) -> bool {
    let alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 64
        && bytes.iter().all(|&c| alnum(c) || c == b'-' || c == b'.')
        && alnum(bytes[0])
        && alnum(bytes[bytes.len() - 1])
        && !name.contains("--")
        && !name.contains("..")
}

/// Validates `plugin.json`.
pub fn validate_plugin(manifest: &Value, diags: &mut Vec<Diagnostic>) -> BaseManifest {
    let mut out = BaseManifest {
        name: None,
        version: None,
        loaded: false,
        spec: None,
        unknown_fields: Vec::new(),
        extensions: None,
    };
    let Value::Object(map) = manifest else {
        diags.push(error(
            "manifest-not-object",
            "plugin.json must be a JSON object",
            "",
        ));
        return out;
    };
    let mut fatal = false;
    let mut fail = |diags: &mut Vec<Diagnostic>, code: &str, msg: String, ptr: &str| {
        fatal = true;
        diags.push(error(code, msg, ptr));
    };

    match map.get("$schema") {
        Some(Value::String(s)) => match PLUGIN_SCHEMAS.iter().find(|(id, _)| id == s) {
            Some((_, v)) => out.spec = Some(*v),
            None => fail(
                diags,
                "unsupported-schema",
                format!(
                    "`$schema` `{s}` is not a canonical Agent Plugins 1.0.0 or 1.1.0 identifier"
                ),
                "/$schema",
            ),
        },
        Some(_) => fail(
            diags,
            "invalid-schema",
            "`$schema` must be a string".into(),
            "/$schema",
        ),
        None => fail(diags, "missing-schema", "`$schema` is required".into(), ""),
    }
    match map.get("name") {
        Some(Value::String(n)) => {
            out.name = Some(n.clone());
            if !valid_plugin_name(n) {
                fail(
                    diags,
                    "invalid-name",
                    format!(
                        "`{n}` violates §5.5 (1-64 of a-z 0-9 - ., alphanumeric ends, no -- or ..)"
                    ),
                    "/name",
                );
            }
        }
        Some(_) => fail(
            diags,
            "invalid-name",
            "`name` must be a string".into(),
            "/name",
        ),
        None => fail(diags, "missing-name", "`name` is required".into(), ""),
    }

    // Fields of the targeted release; an unreadable `$schema` is already
    // fatal, so checking it against 1.1.0 only adds diagnostics.
    let v1_1 = out.spec != Some(SpecVersion::V1_0);
    for (key, value) in map {
        let ptr = Pointer::root().push(key).to_string();
        match key.as_str() {
            "$schema" | "name" => {}
            "version" | "description" | "homepage" | "repository" | "license" => {
                if let Value::String(s) = value {
                    if key == "version" {
                        out.version = Some(s.clone());
                    }
                } else {
                    fail(
                        diags,
                        "invalid-type",
                        format!("`{key}` must be a string"),
                        &ptr,
                    );
                }
            }
            "displayName" | "icon" if v1_1 => {
                // A string icon that is not a plugin-relative path is
                // advisory only (§5.8); only its type is fatal.
                if !value.is_string() {
                    fail(
                        diags,
                        "invalid-type",
                        format!("`{key}` must be a string"),
                        &ptr,
                    );
                }
            }
            "author" => match value {
                Value::Object(author) => {
                    for (k, v) in author {
                        let p = Pointer::root().push("author").push(k).to_string();
                        if !matches!(k.as_str(), "name" | "email" | "url") {
                            fail(
                                diags,
                                "invalid-author",
                                format!("`author` has no field `{k}`"),
                                &p,
                            );
                        } else if !v.is_string() {
                            fail(
                                diags,
                                "invalid-type",
                                format!("`author.{k}` must be a string"),
                                &p,
                            );
                        }
                    }
                }
                _ => fail(
                    diags,
                    "invalid-type",
                    "`author` must be an object".into(),
                    &ptr,
                ),
            },
            "keywords" => match value {
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        if !item.is_string() {
                            let p = Pointer::root()
                                .push("keywords")
                                .push(&i.to_string())
                                .to_string();
                            fail(diags, "invalid-type", "keywords are strings".into(), &p);
                        }
                    }
                }
                _ => fail(
                    diags,
                    "invalid-type",
                    "`keywords` must be an array of strings".into(),
                    &ptr,
                ),
            },
            "extensions" => match value {
                Value::Object(ext) => {
                    for (ns, v) in ext {
                        if !v.is_object() {
                            let p = Pointer::root().push("extensions").push(ns).to_string();
                            fail(
                                diags,
                                "invalid-extension",
                                format!("extension namespace `{ns}` must hold an object"),
                                &p,
                            );
                        }
                    }
                    out.extensions = Some(ext.clone());
                }
                _ => diags.push(warning(
                    "extensions-not-object",
                    "`extensions` is not an object; reported and ignored (§8.1)",
                    &ptr,
                )),
            },
            _ => {
                out.unknown_fields.push(key.clone());
                diags.push(warning(
                    "unknown-field",
                    format!("unknown top-level field `{key}`: reported and ignored (§5.2)"),
                    &ptr,
                ));
            }
        }
    }
    out.loaded = !fatal;
    out
}

/// Validates `mcp.json`; returns the names of the servers that load.
/// `None`: MCP is disabled for the plugin.
pub fn validate_mcp(
    mcp: &Value,
    plugin_spec: Option<SpecVersion>,
    diags: &mut Vec<Diagnostic>,
) -> Option<BTreeSet<String>> {
    let disable = |diags: &mut Vec<Diagnostic>, msg: String, ptr: &str| {
        diags.push(warning(
            "mcp-disabled",
            format!("{msg}; MCP is disabled for this plugin (§7.2.2)"),
            ptr,
        ));
        None
    };
    let Value::Object(map) = mcp else {
        return disable(diags, "mcp.json is not a JSON object".into(), "/mcp");
    };
    let spec = match map.get("$schema") {
        Some(Value::String(s)) => match MCP_SCHEMAS.iter().find(|(id, _)| id == s) {
            Some((_, v)) => *v,
            None => {
                return disable(
                    diags,
                    format!("`$schema` `{s}` is not supported"),
                    "/mcp/$schema",
                )
            }
        },
        _ => {
            return disable(
                diags,
                "`$schema` is missing or not a string".into(),
                "/mcp/$schema",
            )
        }
    };
    if plugin_spec.is_some_and(|p| p != spec) {
        return disable(
            diags,
            "mcp.json targets another release than plugin.json".into(),
            "/mcp/$schema",
        );
    }
    if let Some(extra) = map
        .keys()
        .find(|k| !matches!(k.as_str(), "$schema" | "mcpServers"))
    {
        return disable(diags, format!("unknown top-level field `{extra}`"), "/mcp");
    }
    let Some(Value::Object(servers)) = map.get("mcpServers") else {
        return disable(
            diags,
            "`mcpServers` is missing or not an object".into(),
            "/mcp/mcpServers",
        );
    };
    let mut loaded = BTreeSet::new();
    for (name, server) in servers {
        let ptr = Pointer::root()
            .push("mcp")
            .push("mcpServers")
            .push(name)
            .to_string();
        match check_server(server, spec) {
            Ok(()) => {
                loaded.insert(name.clone());
            }
            Err(why) => diags.push(warning(
                "invalid-server",
                format!("MCP server `{name}` is skipped: {why}"),
                &ptr,
            )),
        }
    }
    Some(loaded)
}

fn check_server(server: &Value, spec: SpecVersion) -> Result<(), String> {
    let Value::Object(map) = server else {
        return Err("not an object".into());
    };
    let kind = match map.get("type") {
        Some(Value::String(t)) => t.as_str(),
        _ => return Err("`type` is missing or not a string".into()),
    };
    let allowed: &[&str] = match kind {
        "stdio" => &["type", "command", "args", "env", "cwd", "extensions"],
        "streamable-http" | "sse" => &["type", "url", "headers", "extensions"],
        other => return Err(format!("unknown type `{other}`")),
    };
    for key in map.keys() {
        if !allowed.contains(&key.as_str()) || (key == "extensions" && spec == SpecVersion::V1_0) {
            return Err(format!("unknown field `{key}` for type `{kind}`"));
        }
    }
    if let Some(ext) = map.get("extensions") {
        match ext {
            Value::Object(e) if e.values().all(Value::is_object) => {}
            _ => return Err("`extensions` must map namespaces to objects".into()),
        }
    }
    if kind == "stdio" {
        let command = match map.get("command") {
            Some(Value::String(c)) if !c.is_empty() => c,
            _ => return Err("`command` must be a non-empty string".into()),
        };
        if command.contains('/')
            && (!command.starts_with("./") || command.split('/').any(|s| s == ".."))
        {
            return Err("`command` is a path that is not plugin-relative".into());
        }
        if let Some(args) = map.get("args") {
            if !args
                .as_array()
                .is_some_and(|a| a.iter().all(Value::is_string))
            {
                return Err("`args` must be an array of strings".into());
            }
        }
        if let Some(env) = map.get("env") {
            let Value::Object(env) = env else {
                return Err("`env` must be an object".into());
            };
            for (k, v) in env {
                if k == "PLUGIN_ROOT" || k == "PLUGIN_DATA" {
                    return Err(format!("`env` may not set `{k}`"));
                }
                if !v.is_string() {
                    return Err(format!("`env.{k}` must be a string"));
                }
            }
        }
        if let Some(cwd) = map.get("cwd") {
            let Value::String(cwd) = cwd else {
                return Err("`cwd` must be a string".into());
            };
            let rooted = |p: &str| cwd == p || cwd.starts_with(&format!("{p}/"));
            let relative = cwd.starts_with("./");
            if !(relative || rooted("${PLUGIN_ROOT}") || rooted("${PLUGIN_DATA}"))
                || cwd.split('/').any(|s| s == "..")
            {
                return Err(
                    "`cwd` is not plugin-relative, PLUGIN_ROOT- or PLUGIN_DATA-rooted".into(),
                );
            }
        }
    } else {
        let url = match map.get("url") {
            Some(Value::String(u)) if !u.is_empty() => u,
            _ => return Err("`url` must be a non-empty string".into()),
        };
        check_endpoint(url)?;
        if let Some(headers) = map.get("headers") {
            let Value::Object(h) = headers else {
                return Err("`headers` must be an object".into());
            };
            let mut seen = BTreeSet::new();
            for (k, v) in h {
                if !v.is_string() {
                    return Err(format!("header `{k}` must be a string"));
                }
                if !seen.insert(k.to_ascii_lowercase()) {
                    return Err(format!("header `{k}` appears twice under different casing"));
                }
            }
        }
    }
    Ok(())
}

/// §7.2.1: absolute http(s), no user information, no fragment, HTTPS unless
/// the host is exactly `localhost` or a loopback IP literal.
fn check_endpoint(raw: &str) -> Result<(), String> {
    let url = url::Url::parse(raw).map_err(|e| format!("`url` is not an absolute URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("`url` must be http or https".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("`url` may not carry user information".into());
    }
    if url.fragment().is_some() {
        return Err("`url` may not carry a fragment".into());
    }
    if url.scheme() == "http" {
        let loopback = match url.host() {
            Some(url::Host::Domain(d)) => d == "localhost",
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        };
        if !loopback {
            return Err("a non-loopback endpoint must use https".into());
        }
    }
    Ok(())
}
