//! What a case document says, typed. Wire types come from `rbv_protocol`, so
//! that a YAML case and a wire request spell every word the same.

use rbv_protocol::{
    Approver, Band, Decision, Operation, PluginBundle, ProjectRequest, SessionEvent,
    SetPolicyRequest,
};
use serde::de::{self, value::MapAccessDeserializer, Deserializer, IntoDeserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Where a case comes from. At least one of `proposal`, `design`, `fuzz`,
/// `peer`, `corpus` or `note` is given (checked by the loader). A source is
/// what a reader of the published suite can check: no private tracker's
/// numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design: Option<String>,
    /// The fuzz target that found the case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuzz: Option<String>,
    /// sha256 of the fuzz input's bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<String>,
    /// The adapter the behavior was seen in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer: Option<String>,
    /// `name@version` the peer behavior was seen in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpus: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Source {
    /// Why this source is incomplete, if it is.
    pub fn problem(&self) -> Option<&'static str> {
        let any = self.proposal.is_some()
            || self.design.is_some()
            || self.fuzz.is_some()
            || self.peer.is_some()
            || self.corpus.is_some()
            || self.note.is_some();
        if !any {
            return Some("`source` names none of proposal, design, fuzz, peer, corpus, note");
        }
        if (self.artifact.is_some() || self.found.is_some()) && self.fuzz.is_none() {
            return Some("`artifact` and `found` belong to a `fuzz` source");
        }
        if self.package.is_some() && self.peer.is_none() {
            return Some("`package` belongs to a `peer` source");
        }
        None
    }
}

/// An approval token: a literal (a forgery attempt) or a value captured from
/// an earlier answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    Literal(String),
    Capture(String),
}

/// A matcher over an ordered vocabulary (bands, decisions). Serializes to
/// the form a case writes (`escalate`, `{at_least: soft-ack}`, `{one_of: [...]}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Matcher<T> {
    Exact(T),
    /// At least one bound is present.
    Range {
        at_least: Option<T>,
        at_most: Option<T>,
    },
    OneOf(Vec<T>),
}

impl<T: Serialize> Serialize for Matcher<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Matcher::Exact(v) => v.serialize(s),
            Matcher::Range { at_least, at_most } => {
                let mut map = s.serialize_map(None)?;
                if let Some(lo) = at_least {
                    map.serialize_entry("at_least", lo)?;
                }
                if let Some(hi) = at_most {
                    map.serialize_entry("at_most", hi)?;
                }
                map.end()
            }
            Matcher::OneOf(set) => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("one_of", set)?;
                map.end()
            }
        }
    }
}

/// Which way an observation missed a matcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Miss {
    Below,
    Above,
    Elsewhere,
}

impl<T: Ord + Copy> Matcher<T> {
    /// `None` when `observed` matches.
    pub fn miss(&self, observed: T) -> Option<Miss> {
        let (lo, hi) = match self {
            Matcher::Exact(b) => (Some(*b), Some(*b)),
            Matcher::Range { at_least, at_most } => (*at_least, *at_most),
            Matcher::OneOf(set) => {
                if set.contains(&observed) {
                    return None;
                }
                (set.iter().min().copied(), set.iter().max().copied())
            }
        };
        if lo.is_some_and(|lo| observed < lo) {
            Some(Miss::Below)
        } else if hi.is_some_and(|hi| observed > hi) {
            Some(Miss::Above)
        } else if matches!(self, Matcher::OneOf(_)) {
            Some(Miss::Elsewhere)
        } else {
            None
        }
    }

    /// Whether some value of `all` lies below / above the accepted range.
    pub fn can_miss(&self, all: &[T]) -> (bool, bool) {
        let below = all.iter().any(|v| self.miss(*v) == Some(Miss::Below));
        let above = all.iter().any(|v| self.miss(*v) == Some(Miss::Above));
        (below, above)
    }
}

impl<T: fmt::Display> fmt::Display for Matcher<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Matcher::Exact(b) => write!(f, "{b}"),
            Matcher::Range { at_least, at_most } => {
                let mut parts = Vec::new();
                if let Some(lo) = at_least {
                    parts.push(format!("at_least: {lo}"));
                }
                if let Some(hi) = at_most {
                    parts.push(format!("at_most: {hi}"));
                }
                write!(f, "{{{}}}", parts.join(", "))
            }
            Matcher::OneOf(set) => {
                let items: Vec<String> = set.iter().map(ToString::to_string).collect();
                write!(f, "{{one_of: [{}]}}", items.join(", "))
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RangeSpec<T> {
    at_least: Option<T>,
    at_most: Option<T>,
    one_of: Option<Vec<T>>,
}

struct MatcherVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for MatcherVisitor<T> {
    type Value = Matcher<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value, or a map of `at_least`, `at_most` or `one_of`")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Matcher<T>, E> {
        T::deserialize(v.into_deserializer()).map(Matcher::Exact)
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Matcher<T>, A::Error> {
        let spec = RangeSpec::<T>::deserialize(MapAccessDeserializer::new(map))?;
        match spec {
            RangeSpec {
                at_least: None,
                at_most: None,
                one_of: Some(set),
            } if !set.is_empty() => Ok(Matcher::OneOf(set)),
            RangeSpec {
                one_of: Some(_),
                at_least: None,
                at_most: None,
            } => Err(de::Error::custom("`one_of` needs at least one value")),
            RangeSpec {
                one_of: Some(_), ..
            } => Err(de::Error::custom(
                "`one_of` does not combine with `at_least`/`at_most`",
            )),
            RangeSpec {
                at_least: None,
                at_most: None,
                one_of: None,
            } => Err(de::Error::custom(
                "a matcher needs `at_least`, `at_most` or `one_of`",
            )),
            RangeSpec {
                at_least,
                at_most,
                one_of: None,
            } => Ok(Matcher::Range { at_least, at_most }),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Matcher<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(MatcherVisitor(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaptureRef {
    capture: String,
}

struct TokenVisitor;

impl<'de> Visitor<'de> for TokenVisitor {
    type Value = Token;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a literal token or `{capture: NAME}`")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Token, E> {
        Ok(Token::Literal(v.to_owned()))
    }
    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Token, A::Error> {
        CaptureRef::deserialize(MapAccessDeserializer::new(map)).map(|c| Token::Capture(c.capture))
    }
}

impl<'de> Deserialize<'de> for Token {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TokenVisitor)
    }
}

/// `Some(None)` for an explicit `null`, `None` for an absent key.
fn nullable<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// What a step's answer must show. Every present key is judged.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The answer's `type`; `None` means the step's natural answer.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "type")]
    pub answer_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<Matcher<Band>>,
    /// `Some(None)`: the operation must be undeclared.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    pub declared: Option<Option<Matcher<Band>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Matcher<Decision>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loaded: Option<bool>,
    /// Per operation id; `None` means absent (undeclared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declarations: Option<BTreeMap<String, Option<Matcher<Band>>>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    pub default_floor: Option<Option<Band>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breaking: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_count: Option<usize>,
    /// A partial JSON match on the whole answer.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "match")]
    pub partial: Option<serde_json::Value>,
    /// Dotted paths that must be in the answer, not null, whatever their
    /// value (a timestamp, a signature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub present: Option<Vec<String>>,
    /// Dotted path → capture name: the value there equals the captured one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same: Option<BTreeMap<String, String>>,
    /// Dotted path → capture name: the value there differs from the
    /// captured one (an absent value is no difference: it fails).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub differs: Option<BTreeMap<String, String>>,
}

impl Expect {
    /// Every capture name `same` and `differs` compare with.
    pub fn compared_captures(&self) -> impl Iterator<Item = &String> {
        self.same
            .iter()
            .chain(&self.differs)
            .flat_map(|m| m.values())
    }
}

impl Expect {
    /// The keys present, by their YAML names, with the answer types each
    /// applies to (`None`: any answer).
    pub fn keys(&self) -> Vec<(&'static str, Option<&'static [&'static str]>)> {
        const BANDED: &[&str] = &["projection", "evaluation", "invocation"];
        const DECIDED: &[&str] = &["evaluation", "invocation"];
        const MANIFEST: &[&str] = &["loaded", "validation"];
        let mut keys = Vec::new();
        let mut add = |present: bool, key, applies| {
            if present {
                keys.push((key, applies));
            }
        };
        add(self.band.is_some(), "band", Some(BANDED));
        add(
            self.declared.is_some(),
            "declared",
            Some(&["evaluation"][..]),
        );
        add(self.decision.is_some(), "decision", Some(DECIDED));
        add(self.allowed.is_some(), "allowed", Some(&["invocation"][..]));
        add(self.granted.is_some(), "granted", Some(&["approval"][..]));
        add(self.loaded.is_some(), "loaded", Some(MANIFEST));
        add(self.declarations.is_some(), "declarations", Some(MANIFEST));
        add(
            self.default_floor.is_some(),
            "default_floor",
            Some(MANIFEST),
        );
        add(self.breaking.is_some(), "breaking", Some(&["diff"][..]));
        add(
            self.allowed_count.is_some(),
            "allowed_count",
            Some(&["invocation"][..]),
        );
        add(self.partial.is_some(), "match", None);
        add(self.present.is_some(), "present", None);
        add(self.same.is_some(), "same", None);
        add(self.differs.is_some(), "differs", None);
        keys
    }
}

/// One request a step sends, with plugin fixtures already resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    LoadPlugins(Vec<PluginBundle>),
    ValidateManifest(PluginBundle),
    Project(ProjectRequest),
    RecordEvent(SessionEvent),
    SetPolicy(SetPolicyRequest),
    Evaluate(Operation),
    Approve {
        operation: Operation,
        approver: Approver,
    },
    Invoke {
        operation: Operation,
        token: Option<Token>,
    },
    DiffManifests {
        old: PluginBundle,
        new: PluginBundle,
    },
    ResetSession,
    /// Every action pipelined before any answer is read.
    Concurrent(Vec<Action>),
    /// One line sent exactly as written (`case::raw`).
    SendRaw(super::raw::RawLine),
}

impl Action {
    /// Every action key, as written in YAML.
    pub const KEYS: &'static [&'static str] = &[
        "load_plugins",
        "validate_manifest",
        "project",
        "record_event",
        "set_policy",
        "evaluate",
        "approve",
        "invoke",
        "diff_manifests",
        "reset_session",
        "concurrent",
        "send_raw",
    ];

    /// The YAML key (and wire `type`) of this action.
    pub fn key(&self) -> &'static str {
        match self {
            Action::LoadPlugins(_) => "load_plugins",
            Action::ValidateManifest(_) => "validate_manifest",
            Action::Project(_) => "project",
            Action::RecordEvent(_) => "record_event",
            Action::SetPolicy(_) => "set_policy",
            Action::Evaluate(_) => "evaluate",
            Action::Approve { .. } => "approve",
            Action::Invoke { .. } => "invoke",
            Action::DiffManifests { .. } => "diff_manifests",
            Action::ResetSession => "reset_session",
            Action::Concurrent(_) => "concurrent",
            Action::SendRaw(_) => "send_raw",
        }
    }

    /// The answer `type` this request gets when all is well. For
    /// `concurrent`, the natural answer of its first action (the loader
    /// requires all of them to agree).
    pub fn natural(&self) -> &'static str {
        match self {
            Action::LoadPlugins(_) => "loaded",
            Action::ValidateManifest(_) => "validation",
            Action::Project(_) => "projection",
            Action::RecordEvent(_) | Action::SetPolicy(_) | Action::ResetSession => "ack",
            Action::Evaluate(_) => "evaluation",
            Action::Approve { .. } => "approval",
            Action::Invoke { .. } => "invocation",
            Action::DiffManifests { .. } => "diff",
            Action::Concurrent(actions) => actions.first().map_or("ack", Action::natural),
            // Without `expect: {type}` any answer type is accepted (see `raw`).
            Action::SendRaw(_) => "error",
        }
    }
}

/// One step: an action, what its answer must show, what to keep from it.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub action: Action,
    pub expect: Expect,
    /// Capture name → dotted path into the answer.
    pub capture: BTreeMap<String, String>,
    pub note: Option<String>,
    /// The named session the step acts in; `None` is the case's own session.
    pub session: Option<String>,
    /// The step's line in its file.
    pub line: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_say_which_way_they_missed() {
        use Band::*;
        let exact = Matcher::Exact(SoftAck);
        assert_eq!(exact.miss(Auto), Some(Miss::Below));
        assert_eq!(exact.miss(Escalate), Some(Miss::Above));
        assert_eq!(exact.miss(SoftAck), None);
        let floor = Matcher::Range {
            at_least: Some(SoftAck),
            at_most: None,
        };
        assert_eq!(floor.miss(Escalate), None);
        assert_eq!(floor.can_miss(Band::ALL), (true, false));
        let set = Matcher::OneOf(vec![Auto, Escalate]);
        assert_eq!(set.miss(SoftAck), Some(Miss::Elsewhere));
        assert_eq!(set.can_miss(Band::ALL), (false, false));
        assert_eq!(Matcher::Exact(Escalate).can_miss(Band::ALL), (true, false));
    }
}
