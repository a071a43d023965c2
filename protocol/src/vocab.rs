//! The vocabulary of the proposal: bands, the three axes, operation ids,
//! decisions and audit records. Spellings are exactly the proposal's; any
//! other spelling (also another letter case) is not a value of these types.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A risk band. Ordered: `Auto < SoftAck < Escalate`; ordering is the only
/// semantic a client needs to implement a floor.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Band {
    Auto,
    SoftAck,
    Escalate,
}

/// R — can the effect be undone by the actor that caused it?
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Reversibility {
    Reversible,
    HardToReverse,
    Irreversible,
}

/// S — where the effect lands (blast radius).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    Local,
    SharedRemote,
    External,
}

/// T — where the operation's parameters came from.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Trust {
    Trusted,
    Untrusted,
}

/// What a client does with an operation at call time. `Deny` has no approval
/// path (the optional critical floor); the others map from bands
/// (auto → allow, soft-ack → note, escalate → ask).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    Allow,
    Note,
    Ask,
    Deny,
}

/// A feature area an implementation claims in its handshake. Cases that need
/// an unclaimed capability are skipped, and reports say so.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Capability {
    Manifest,
    Projection,
    RuleOfTwo,
    Sql,
    Shell,
    Fetch,
    Tokens,
    Audit,
    Versioning,
    CriticalFloor,
    Workspace,
}

/// The SQL dialect an operation's payload is written in, which decides how
/// it is lexed (comments, string escapes) and which statements exist. Sent
/// as text in `Operation::dialect`; a value outside these spellings must be
/// judged fail-safe (escalate), never read as the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SqlDialect {
    /// The default when an operation names none.
    Postgresql,
    Mysql,
    Sqlite,
}

/// Who approves an operation. Only a `Human` approval may mint a token.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ApproverKind {
    Human,
    Model,
    Tool,
    Plugin,
}

macro_rules! spelled {
    ($ty:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// The exact wire spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $text),+ }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $ty {
            type Err = UnknownValue;
            /// Exact, case-sensitive: `Escalate` is not a band.
            fn from_str(s: &str) -> Result<Self, UnknownValue> {
                match s {
                    $($text => Ok($ty::$variant),)+
                    _ => Err(UnknownValue { kind: stringify!($ty), value: s.to_owned() }),
                }
            }
        }
    };
}

spelled!(Band { Auto = "auto", SoftAck = "soft-ack", Escalate = "escalate" });
spelled!(Reversibility {
    Reversible = "reversible",
    HardToReverse = "hard-to-reverse",
    Irreversible = "irreversible",
});
spelled!(Scope { Local = "local", SharedRemote = "shared-remote", External = "external" });
spelled!(Trust { Trusted = "trusted", Untrusted = "untrusted" });
spelled!(Decision { Allow = "allow", Note = "note", Ask = "ask", Deny = "deny" });
spelled!(ApproverKind { Human = "human", Model = "model", Tool = "tool", Plugin = "plugin" });
spelled!(SqlDialect { Postgresql = "postgresql", Mysql = "mysql", Sqlite = "sqlite" });
spelled!(Capability {
    Manifest = "manifest",
    Projection = "projection",
    RuleOfTwo = "rule-of-two",
    Sql = "sql",
    Shell = "shell",
    Fetch = "fetch",
    Tokens = "tokens",
    Audit = "audit",
    Versioning = "versioning",
    CriticalFloor = "critical-floor",
    Workspace = "workspace",
});

impl Band {
    /// The decision a band maps to when nothing denies the operation outright.
    pub fn decision(self) -> Decision {
        match self {
            Band::Auto => Decision::Allow,
            Band::SoftAck => Decision::Note,
            Band::Escalate => Decision::Ask,
        }
    }
}

/// A string that is not one of a closed enumeration's spellings.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not a {kind} (the spelling is exact and case-sensitive)")]
pub struct UnknownValue {
    pub kind: &'static str,
    pub value: String,
}

/// A parsed operation identifier: `mcp:<server>/<tool>`, `skill:<name>`, or
/// `client:<name>` for a client's own tools (its shell, its fetch), which
/// plugins cannot declare but which clients still gate.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OperationId {
    Mcp { server: String, tool: String },
    Skill { name: String },
    Client { name: String },
}

/// Why a string is not an operation id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{id}` is not an operation id: {why}")]
pub struct BadOperationId {
    pub id: String,
    pub why: &'static str,
}

impl OperationId {
    /// Parses an id. Components are non-empty, contain no whitespace, no
    /// control characters, no `/` (besides the MCP separator) and no `:`.
    pub fn parse(id: &str) -> Result<Self, BadOperationId> {
        let bad = |why| BadOperationId {
            id: id.to_owned(),
            why,
        };
        let (scheme, rest) = id
            .split_once(':')
            .ok_or_else(|| bad("missing `mcp:`, `skill:` or `client:` prefix"))?;
        let component = |s: &str| -> Result<String, BadOperationId> {
            if s.is_empty() {
                return Err(bad("empty component"));
            }
            if s.chars()
                .any(|c| c.is_whitespace() || c.is_control() || c == '/' || c == ':')
            {
                return Err(bad(
                    "component holds whitespace, a control character, `/` or `:`",
                ));
            }
            Ok(s.to_owned())
        };
        match scheme {
            "mcp" => {
                let (server, tool) = rest
                    .split_once('/')
                    .ok_or_else(|| bad("an MCP id is `mcp:<server>/<tool>`"))?;
                Ok(OperationId::Mcp {
                    server: component(server)?,
                    tool: component(tool)?,
                })
            }
            "skill" => Ok(OperationId::Skill {
                name: component(rest)?,
            }),
            "client" => Ok(OperationId::Client {
                name: component(rest)?,
            }),
            _ => Err(bad("unknown prefix (expected `mcp`, `skill` or `client`)")),
        }
    }
}

impl fmt::Display for OperationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OperationId::Mcp { server, tool } => write!(f, "mcp:{server}/{tool}"),
            OperationId::Skill { name } => write!(f, "skill:{name}"),
            OperationId::Client { name } => write!(f, "client:{name}"),
        }
    }
}

/// A band decision as a structured audit record (proposal §5, "Alignment with
/// audit-trail standardization"). Every decision yields one — allowed,
/// noted, asked or denied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AuditRecord {
    /// RFC 3339 time of the decision.
    #[schemars(extend("format" = "date-time"))]
    pub timestamp: String,
    /// Who asked for the operation (`model`, `user`, …).
    pub actor: String,
    /// The plugin the operation belongs to; `null` for the client's own tools.
    pub plugin: Option<String>,
    pub plugin_version: Option<String>,
    /// The operation id as requested.
    pub operation: String,
    /// The authorization key: a digest of the argument-bearing form.
    pub signature: String,
    pub band: Band,
    pub decision: Decision,
    /// Which gate set the band (`manifest`, `sql`, `shell`, `fetch`,
    /// `rule-of-two`, `policy`, `token`, …).
    pub gate: String,
    /// The approver whose token was redeemed, if any.
    pub authorized_by: Option<String>,
    /// What happened: `allowed`, `noted`, `asked`, `denied`, `minted`,
    /// `refused`, `redeemed`, `rejected`, …
    pub outcome: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_are_ordered_as_the_proposal_says() {
        assert!(Band::Auto < Band::SoftAck && Band::SoftAck < Band::Escalate);
    }

    #[test]
    fn spelling_is_exact_and_case_sensitive() {
        assert_eq!("soft-ack".parse::<Band>(), Ok(Band::SoftAck));
        assert!("Escalate".parse::<Band>().is_err());
        assert!("soft_ack".parse::<Band>().is_err());
        assert_eq!(
            serde_json::to_string(&Scope::SharedRemote).unwrap(),
            "\"shared-remote\""
        );
        assert!(serde_json::from_str::<Band>("\"Escalate\"").is_err());
        for r in Reversibility::ALL {
            assert_eq!(r.as_str().parse::<Reversibility>(), Ok(*r));
        }
    }

    #[test]
    fn operation_ids_parse_and_print_back() {
        for id in ["mcp:db/execute_sql", "skill:rollback", "client:shell"] {
            assert_eq!(OperationId::parse(id).unwrap().to_string(), id);
        }
        for bad in [
            "mcp:db",
            "mcp:/tool",
            "mcp:db/",
            "mcp:db/a/b",
            "skill:",
            "skill:a b",
            "tool:x",
            "execute_sql",
            "MCP:db/x",
        ] {
            assert!(OperationId::parse(bad).is_err(), "{bad} parsed");
        }
    }
}
