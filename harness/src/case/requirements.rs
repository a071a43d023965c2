//! The requirement catalogue (`cases/REQUIREMENTS.yaml`): what each
//! requirement says, and the profile keys with their values and defaults.

use rbv_protocol::Capability;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

// A requirement's level is the one the published report records.
pub use rbv_report::model::RequirementLevel;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    pub id: String,
    pub title: String,
    pub rule: String,
    /// The proposal section, `"§2.2"`.
    pub section: String,
    pub level: RequirementLevel,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability: Option<Capability>,
    /// The requirement also has a precision side worth guarding (a band that
    /// must not be higher than needed).
    #[serde(default)]
    pub safe_side: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
    /// The request paths that can observe the rule, where its capability's
    /// default (`coverage::Path::required_for`) does not fit: a manifest
    /// rule seen only when a plugin loads says `paths: [manifest]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// The contributors to the effective band the rule itself names
    /// (`declared`, `default`, `undeclared`, `inspector`, `rule-of-two`,
    /// `policy`, `critical`; `[]` when it names none): the pairwise table
    /// (`case::pairs`) needs every pair of them, and each with every path.
    /// Declared, not inferred from the cases: inferred, a pair the cases
    /// lack would never be required. `rbv lint` fails a requirement
    /// without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contributors: Option<Vec<String>>,
    /// Pairs of the table no case needs to cover, each with the reason
    /// (`declared×policy`, `invoke×critical`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unpaired: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileKey {
    pub key: String,
    pub values: Vec<Value>,
    pub default: Value,
    pub section: String,
    pub description: String,
    /// The capability without which the key changes nothing: a case that
    /// sets the key needs it (a Rule-of-Two threshold means nothing to a
    /// client without Rule-of-Two, which must skip the case, not fail it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs: Option<Capability>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    #[serde(default)]
    pub requirements: Vec<Requirement>,
    #[serde(default)]
    pub profiles: Vec<ProfileKey>,
}

/// Whether two JSON values are the same datum; numbers compare by value, so
/// that `2` and `2.0` agree whatever their spelling.
/// Whether an implementation's profile value `have` meets a case's
/// condition `want`: a value, or a list of values any of which will do.
pub fn condition_holds(want: &Value, have: &Value) -> bool {
    match want {
        Value::Array(alternatives) => alternatives.iter().any(|w| same_value(w, have)),
        _ => same_value(want, have),
    }
}

/// The value of a condition to run the reference with: `preferred` (the
/// default) when the condition allows it, else its first value.
pub fn condition_value<'a>(want: &'a Value, preferred: Option<&'a Value>) -> &'a Value {
    match (want, preferred) {
        (Value::Array(_), Some(p)) if condition_holds(want, p) => p,
        (Value::Array(alternatives), _) => alternatives.first().unwrap_or(want),
        _ => want,
    }
}

pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || x.to_string().parse::<f64>().ok() == y.to_string().parse::<f64>().ok()
        }
        _ => a == b,
    }
}

impl Catalogue {
    pub fn requirement(&self, id: &str) -> Option<&Requirement> {
        self.requirements.iter().find(|r| r.id == id)
    }

    pub fn profile(&self, key: &str) -> Option<&ProfileKey> {
        self.profiles.iter().find(|p| p.key == key)
    }

    /// The value an implementation has for `key`: what its handshake
    /// declares, else the catalogue default.
    pub fn profile_value<'a>(
        &'a self,
        key: &str,
        declared: &'a BTreeMap<String, Value>,
    ) -> Option<&'a Value> {
        declared
            .get(key)
            .or_else(|| self.profile(key).map(|p| &p.default))
    }

    /// Why a case's profile condition `key: value` cannot be satisfied by
    /// any implementation, if so.
    pub fn check_condition(&self, key: &str, value: &Value) -> Result<(), String> {
        let Some(profile) = self.profile(key) else {
            let known: Vec<&str> = self.profiles.iter().map(|p| p.key.as_str()).collect();
            return Err(format!(
                "unknown profile key `{key}` (known: {})",
                known.join(", ")
            ));
        };
        if let Value::Array(alternatives) = value {
            // A list: the case applies under any of these values.
            if alternatives.is_empty() {
                return Err(format!("profile `{key}`: an empty list of values"));
            }
            return alternatives
                .iter()
                .try_for_each(|v| self.check_condition(key, v).map(|_| ()));
        }
        if profile.values.iter().any(|v| same_value(v, value)) {
            Ok(())
        } else {
            let values: Vec<String> = profile.values.iter().map(ToString::to_string).collect();
            Err(format!(
                "profile `{key}` has no value {value} (values: {})",
                values.join(", ")
            ))
        }
    }

    /// Problems inside the catalogue itself, with the index of the entry
    /// (requirement or profile) they concern.
    pub fn problems(&self) -> Vec<(Entry, String)> {
        let mut out = Vec::new();
        let mut seen = BTreeMap::new();
        for (i, r) in self.requirements.iter().enumerate() {
            if let Some(first) = seen.insert(r.id.as_str(), i) {
                out.push((
                    Entry::Requirement(i),
                    format!(
                        "duplicate requirement `{}` (first at entry {})",
                        r.id,
                        first + 1
                    ),
                ));
            }
        }
        let mut keys = BTreeMap::new();
        for (i, p) in self.profiles.iter().enumerate() {
            if keys.insert(p.key.as_str(), i).is_some() {
                out.push((
                    Entry::Profile(i),
                    format!("duplicate profile key `{}`", p.key),
                ));
            }
            if !p.values.iter().any(|v| same_value(v, &p.default)) {
                out.push((
                    Entry::Profile(i),
                    format!(
                        "profile `{}`: default {} is not one of its values",
                        p.key, p.default
                    ),
                ));
            }
        }
        out
    }
}

/// An entry of the catalogue, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Requirement(usize),
    Profile(usize),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn catalogue() -> Catalogue {
        Catalogue {
            requirements: vec![],
            profiles: vec![ProfileKey {
                key: "rule_of_two_threshold".into(),
                values: vec![json!(2), json!(3)],
                default: json!(2),
                section: "§2.3".into(),
                description: "d".into(),
                needs: None,
            }],
        }
    }

    #[test]
    fn profile_values_default_and_conditions_are_checked() {
        let c = catalogue();
        let none = BTreeMap::new();
        assert_eq!(
            c.profile_value("rule_of_two_threshold", &none),
            Some(&json!(2))
        );
        let declared = BTreeMap::from([("rule_of_two_threshold".to_owned(), json!(3))]);
        assert_eq!(
            c.profile_value("rule_of_two_threshold", &declared),
            Some(&json!(3))
        );
        assert!(c
            .check_condition("rule_of_two_threshold", &json!(3))
            .is_ok());
        assert!(c
            .check_condition("rule_of_two_threshold", &json!(4))
            .is_err());
        assert!(c
            .check_condition("nope", &json!(2))
            .unwrap_err()
            .contains("unknown profile"));
        assert!(c.problems().is_empty());
    }
}
