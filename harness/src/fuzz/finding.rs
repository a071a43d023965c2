//! A reproducible failure found by a fuzz target, and the YAML case it
//! becomes.

use crate::verdict::FailKind;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt;

/// What a target found: which rule broke, which way, and the case that
/// reproduces it in any implementation.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub target: &'static str,
    /// The requirement id (cases/REQUIREMENTS.yaml) the behavior breaks.
    pub requirement: &'static str,
    /// `Under` (unsafe) or `Over` (a prompt nobody needed).
    pub kind: FailKind,
    pub summary: String,
    /// The generator family that built the input (the outermost one): with
    /// the requirement and direction, what makes two findings the same.
    pub family: String,
    /// The classifier input (statement, command line, URL), when there is one.
    pub payload: Option<String>,
    /// How the answer differed from the expected one, in words that do not
    /// depend on the input (`no answer`, `` `ack` for `error` ``, `answered
    /// auto`; empty where the requirement and direction say it all): with
    /// the requirement and the direction, what tells two bugs apart
    /// ([`Finding::bug`]).
    pub difference: String,
    pub case: CaseDraft,
}

/// What an implementation got wrong, as [`Finding::bug`] reads it: findings
/// with one bug are one group (`fuzz::group`). The generator family is not
/// part of it: a family names where the input came from, and the outermost
/// one is often a wrapper (`timeout`, `command`, a pipeline) around the
/// production that shows the bug, so the family split one client's two
/// shell bugs into 13 "distinct" findings. The group lists its families.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bug {
    pub target: &'static str,
    pub requirement: &'static str,
    pub kind: FailKind,
    pub difference: String,
}

/// A case without its provenance, which only promotion knows.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseDraft {
    /// Case area, e.g. `tokens`; the case goes to `regressions/<area>/`.
    pub area: &'static str,
    pub title: String,
    pub tags: Vec<&'static str>,
    /// The `steps:` list, as YAML lines indented by two spaces.
    pub steps: String,
}

/// First 8 hex digits and the whole sha256 of an artifact.
pub fn artifact_hash(bytes: &[u8]) -> (String, String) {
    let hex = hex::encode(Sha256::digest(bytes));
    (hex[..8].to_owned(), hex)
}

impl Finding {
    /// The generator family and the property's reason (the rule broken, and
    /// which way): what the driver shrinks a bounded number of times.
    pub fn key(&self) -> (&str, &str, FailKind) {
        (&self.family, self.requirement, self.kind)
    }

    /// Whether `other` shows the same bug: the same rule broken the same
    /// way, with the same difference, whatever family built it, so that
    /// shrinking can reach the smallest input that shows it.
    pub fn same_answer(&self, other: &Finding) -> bool {
        self.bug() == other.bug()
    }

    /// What the implementation got wrong: its group.
    pub fn bug(&self) -> Bug {
        Bug {
            target: self.target,
            requirement: self.requirement,
            kind: self.kind,
            difference: self.difference.clone(),
        }
    }

    /// The case id a promoted finding gets.
    pub fn case_id(&self, artifact: &[u8]) -> String {
        let (short, _) = artifact_hash(artifact);
        format!(
            "regressions/{}/fuzz-{}-{short}",
            self.case.area, self.target
        )
    }

    /// A complete YAML case document, ready to paste or to write.
    pub fn to_yaml(&self, artifact: &[u8], found: &str) -> String {
        self.to_yaml_with_profile(artifact, found, &BTreeMap::new())
    }

    /// The case document with `profile:` conditions (key → a value, or a
    /// list of the values the case holds under).
    pub fn to_yaml_with_profile(
        &self,
        artifact: &[u8],
        found: &str,
        profile: &BTreeMap<String, serde_json::Value>,
    ) -> String {
        let profile = if profile.is_empty() {
            String::new()
        } else {
            let pairs: Vec<String> = profile
                .iter()
                .map(|(k, v)| format!("{k}: {}", yaml_json(v)))
                .collect();
            format!("\nprofile: {{{}}}", pairs.join(", "))
        };
        let (_, sha) = artifact_hash(artifact);
        let mut tags = vec!["regression", "fuzz"];
        tags.extend(self.case.tags.iter().copied());
        if self.kind == FailKind::Over {
            tags.push("false-positive");
        }
        let reason = match self.kind {
            FailKind::Over => format!(
                "\nreason: >-\n  Found by the {} fuzzer: an implementation escalated this input, which \
                 the rule keeps below escalation (precision).",
                self.target
            ),
            FailKind::Mismatch => format!(
                "\nreason: >-\n  Found by the {} fuzzer: no band is at stake; the answer breaks a rule \
                 of the protocol itself.",
                self.target
            ),
            FailKind::Under => String::new(),
        };
        format!(
            "id: {id}\ntitle: {title}\nrequirements: [{req}]\nsource: {{fuzz: {target}, artifact: \"{sha}\", found: \"{found}\"}}\ntags: [{tags}]{reason}{profile}\nsteps:\n{steps}",
            id = self.case_id(artifact),
            title = yaml_string(&self.case.title),
            req = self.requirement,
            target = self.target,
            tags = tags.join(", "),
            steps = self.case.steps,
        )
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.kind {
            FailKind::Under => "unsafe",
            FailKind::Over => "precision",
            FailKind::Mismatch => "mismatch",
        };
        write!(
            f,
            "[{}] {side} finding against {}: {}",
            self.target, self.requirement, self.summary
        )
    }
}

/// A YAML double-quoted scalar. JSON string syntax is valid YAML.
pub fn yaml_string(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// A JSON value as a YAML flow node (JSON is YAML 1.2).
pub fn yaml_json(v: &serde_json::Value) -> String {
    v.to_string()
}
