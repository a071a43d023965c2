//! The implementation's profile: its answers to the proposal's open
//! questions (`profiles:` in `cases/REQUIREMENTS.yaml`, the "Profile keys"
//! table of `docs/case-format.md`). The handshake declares it and cases that
//! apply to other answers are skipped, so the reference implements every
//! value of every key; [`Profile::default`] is the answer rbv recommends.

use rbv_protocol::Band;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// Where an implementation reads the permissions object (profile key
/// `permissions_placement`, proposal §3, §6.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Placement {
    /// The sketch's top-level `permissions` field (needs a spec release).
    TopLevel,
    /// The `org.agent-plugins.permissions` extension namespace (1.x clients).
    Extension,
    /// Both, merged (highest floor per operation).
    #[default]
    Both,
}

impl Placement {
    pub const ALL: [Placement; 3] = [Placement::TopLevel, Placement::Extension, Placement::Both];

    pub fn as_str(self) -> &'static str {
        match self {
            Placement::TopLevel => "top-level",
            Placement::Extension => "extension",
            Placement::Both => "both",
        }
    }
    pub fn reads_top_level(self) -> bool {
        matches!(self, Placement::TopLevel | Placement::Both)
    }
    pub fn reads_extension(self) -> bool {
        matches!(self, Placement::Extension | Placement::Both)
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

pub const PERMISSIONS_PLACEMENT: &str = "permissions_placement";
pub const RULE_OF_TWO_THRESHOLD: &str = "rule_of_two_threshold";
pub const HARD_TO_REVERSE_LOCAL: &str = "hard_to_reverse_local";
pub const UNDECLARED_OPAQUE_BAND: &str = "undeclared_opaque_band";

/// Every key with its allowed values, in the catalogue's order and spelling.
pub const KEYS: [(&str, &[&str]); 4] = [
    (PERMISSIONS_PLACEMENT, &["top-level", "extension", "both"]),
    (RULE_OF_TWO_THRESHOLD, &["2", "3"]),
    (HARD_TO_REVERSE_LOCAL, &["escalate", "soft-ack"]),
    (UNDECLARED_OPAQUE_BAND, &["auto", "soft-ack", "escalate"]),
];

/// One profile. The fields are private so that every value is one the
/// catalogue allows; change them with [`Profile::set`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Profile {
    permissions_placement: Placement,
    rule_of_two_threshold: u8,
    hard_to_reverse_local: Band,
    undeclared_opaque_band: Band,
}

impl Default for Profile {
    fn default() -> Self {
        Profile {
            permissions_placement: Placement::Both,
            rule_of_two_threshold: 2,
            hard_to_reverse_local: Band::Escalate,
            undeclared_opaque_band: Band::Escalate,
        }
    }
}

impl Profile {
    pub fn permissions_placement(&self) -> Placement {
        self.permissions_placement
    }
    /// How many of the three run booleans escalate (2 or 3).
    pub fn rule_of_two_threshold(&self) -> u8 {
        self.rule_of_two_threshold
    }
    /// The band of hard-to-reverse ∧ local (escalate or soft-ack).
    pub fn hard_to_reverse_local(&self) -> Band {
        self.hard_to_reverse_local
    }
    /// The band of an undeclared operation no call-time inspector reads.
    pub fn undeclared_opaque_band(&self) -> Band {
        self.undeclared_opaque_band
    }

    /// Sets one key from its catalogue spelling (`"soft-ack"`, `"3"`). An
    /// unknown key or value is refused with the allowed ones named, and the
    /// profile is left unchanged.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let Some((key, allowed)) = KEYS.iter().find(|(k, _)| *k == key) else {
            let known: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
            return Err(format!(
                "unknown profile key `{key}` (known: {})",
                known.join(", ")
            ));
        };
        if !allowed.contains(&value) {
            return Err(format!(
                "profile `{key}` has no value `{value}` (values: {})",
                allowed.join(", ")
            ));
        }
        match *key {
            PERMISSIONS_PLACEMENT => {
                self.permissions_placement = *Placement::ALL
                    .iter()
                    .find(|p| p.as_str() == value)
                    .expect("the allowed values are the placements")
            }
            RULE_OF_TWO_THRESHOLD => {
                self.rule_of_two_threshold = value.parse().expect("the allowed values are numbers")
            }
            HARD_TO_REVERSE_LOCAL => self.hard_to_reverse_local = band(value),
            UNDECLARED_OPAQUE_BAND => self.undeclared_opaque_band = band(value),
            _ => unreachable!("every key of KEYS is handled"),
        }
        Ok(())
    }

    /// [`Profile::set`] from a JSON value, as a case's `profile:` condition
    /// or a handshake carries it: a string, or a number for the threshold.
    pub fn set_value(&mut self, key: &str, value: &Value) -> Result<(), String> {
        match value {
            Value::String(s) => self.set(key, s),
            Value::Number(n) => self.set(key, &n.to_string()),
            other => Err(format!(
                "profile `{key}`: {other} is neither a string nor a number"
            )),
        }
    }

    /// The default profile with every `(key, value)` applied through
    /// [`Profile::set_value`]: what a case's `profile:` conditions ask for.
    pub fn from_values<'a, K>(
        pairs: impl IntoIterator<Item = (&'a K, &'a Value)>,
    ) -> Result<Profile, String>
    where
        K: AsRef<str> + 'a + ?Sized,
    {
        let mut profile = Profile::default();
        for (key, value) in pairs {
            profile.set_value(key.as_ref(), value)?;
        }
        Ok(profile)
    }

    /// [`Profile::set`] from `key=value`, the `--profile` flag's syntax.
    pub fn apply(&mut self, assignment: &str) -> Result<(), String> {
        match assignment.split_once('=') {
            Some((key, value)) => self.set(key.trim(), value.trim()),
            None => Err(format!(
                "`{assignment}` is not KEY=VALUE (keys: {})",
                KEYS.map(|(k, _)| k).join(", ")
            )),
        }
    }

    /// The handshake's `profile` object, with the catalogue's types (the
    /// threshold is a number, everything else a string).
    pub fn to_handshake_map(&self) -> BTreeMap<String, Value> {
        [
            (
                PERMISSIONS_PLACEMENT,
                Value::from(self.permissions_placement.as_str()),
            ),
            (
                RULE_OF_TWO_THRESHOLD,
                Value::from(self.rule_of_two_threshold),
            ),
            (
                HARD_TO_REVERSE_LOCAL,
                Value::from(self.hard_to_reverse_local.as_str()),
            ),
            (
                UNDECLARED_OPAQUE_BAND,
                Value::from(self.undeclared_opaque_band.as_str()),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }
}

impl fmt::Display for Profile {
    /// `key=value` pairs, the `--profile` syntax.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let map = self.to_handshake_map();
        let mut first = true;
        for (k, v) in &map {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            match v {
                Value::String(s) => write!(f, "{k}={s}")?,
                other => write!(f, "{k}={other}")?,
            }
        }
        Ok(())
    }
}

fn band(value: &str) -> Band {
    value.parse().expect("the allowed values are bands")
}

#[cfg(test)]
mod tests;
