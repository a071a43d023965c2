//! Structure-aware generators: each builds an input whose right answer is
//! known by construction (dangerous in a known way, or safe in a known way),
//! so that the oracle never has to re-derive a classification.

pub mod corpus;
pub mod json;
pub mod line;
pub mod manifest;
pub mod rule_of_two;
pub mod shell;
pub mod shell_classes;
pub mod shell_constructs;
pub mod sql;
pub mod tags;
pub mod token;
pub mod url;
pub mod url_forms;
pub mod workspace;
pub mod yaml;

/// What the rule says about a generated input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    /// Must escalate (or be refused): a band below escalate is unsafe.
    Dangerous,
    /// Must not escalate; the band it must have exactly.
    Safe(rbv_protocol::Band),
    /// At least this band; anything above is a defensible reading.
    AtLeast(rbv_protocol::Band),
}

/// A generated classifier input with its truth and the families that built it.
#[derive(Clone, Debug, PartialEq)]
pub struct Labeled {
    pub text: String,
    pub truth: Truth,
    /// The bypass families or safe shapes used, outermost first.
    pub families: Vec<&'static str>,
}
