//! Case-step text shared by the targets' findings.

use super::finding::yaml_json;
use rbv_protocol::{Operation, PluginBundle};

/// The list under `load_plugins:`, indented for a step.
pub fn plugins_yaml(plugins: &[PluginBundle]) -> String {
    let mut out = String::new();
    for p in plugins {
        out.push_str(&format!("      - manifest: {}\n", yaml_json(&p.manifest)));
    }
    out
}

/// An operation as a YAML flow node.
pub fn op_json(op: &Operation) -> String {
    yaml_json(&serde_json::to_value(op).expect("operations serialize"))
}
