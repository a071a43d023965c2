//! Requirement tags of the classifier generators' families (`Labeled::families`,
//! fired by the classifier targets under their area name), plus the truth
//! of each input (`dangerous`, `safe`, `at-least`), which is what the
//! target itself exercises whatever the family.
//!
//! Kept apart from `sql.rs`, `shell.rs` and `url.rs` so that a family can be
//! added there without touching this file first; `rbv fuzz --reach` (and
//! its test) then names it as unmapped until it gets its tags here, and
//! names a tag here whose family no longer fires as stale.

use super::super::reach::Tagged;

pub const SQL: &[Tagged] = &[
    // The SQL target's execute_sql is declared auto: a dangerous statement
    // escalates only if the declaration is a floor, not a ceiling.
    ("dangerous", &["RBV-SQL-002", "RBV-SQL-010", "RBV-MAN-010"]),
    ("safe", &["RBV-SQL-001"]),
    ("via-auto-skill", &["RBV-MAN-016"]),
    ("ddl", &["RBV-SQL-002"]),
    ("truncate", &["RBV-SQL-002"]),
    ("dcl", &["RBV-SQL-002"]),
    ("dml", &["RBV-SQL-002"]),
    ("copy-from", &["RBV-SQL-002"]),
    ("select-into", &["RBV-SQL-005"]),
    ("do-block", &["RBV-SQL-002", "RBV-SQL-005"]),
    ("side-effecting-function", &["RBV-SQL-007"]),
    ("function-in-subquery", &["RBV-SQL-005", "RBV-SQL-007"]),
    ("locking-read", &["RBV-SQL-006"]),
    ("data-modifying-cte", &["RBV-SQL-005"]),
    ("nested-cte-write", &["RBV-SQL-005"]),
    ("explain-analyze", &["RBV-SQL-005"]),
    ("transaction-escape", &["RBV-SQL-003", "RBV-SQL-008"]),
    ("second-statement", &["RBV-SQL-003", "RBV-SQL-008"]),
    ("hidden-after-comment", &["RBV-SQL-008"]),
    ("pg-regress-write", &["RBV-SQL-002"]),
    ("string-literal", &["RBV-SQL-009"]),
    ("line-comment", &["RBV-SQL-009"]),
    ("block-comment", &["RBV-SQL-009"]),
    ("dollar-quote", &["RBV-SQL-009"]),
    ("aggregate", &["RBV-SQL-001"]),
    ("pure-cte", &["RBV-SQL-001"]),
    ("explain-read", &["RBV-SQL-001"]),
];

pub const SHELL: &[Tagged] = &[
    // The dangerous cores: local destruction, history rewriting, uploads
    // and remote commands.
    ("dangerous", &["RBV-SH-006", "RBV-SH-009"]),
    ("safe", &["RBV-SH-007"]),
    ("escaped-program-name", &["RBV-SH-006"]),
    ("xargs", &["RBV-SH-002", "RBV-SH-003"]),
    ("find-exec", &["RBV-SH-002"]),
    ("heredoc-to-shell", &["RBV-SH-010"]),
    ("bash-c", &["RBV-SH-002"]),
    ("sh-c", &["RBV-SH-002"]),
    ("command-substitution", &["RBV-SH-002"]),
    (
        "command-substitution-in-quotes",
        &["RBV-SH-001", "RBV-SH-002"],
    ),
    ("backticks", &["RBV-SH-002"]),
    ("eval", &["RBV-SH-002"]),
    ("env-wrapper", &["RBV-SH-002"]),
    ("inline-bypass-export", &["RBV-BYP-002"]),
    ("sudo", &["RBV-SH-002"]),
    ("timeout-wrapper", &["RBV-SH-002"]),
    ("nohup-nice", &["RBV-SH-002"]),
    ("and-chain", &["RBV-SH-003"]),
    ("semicolon-list", &["RBV-SH-003"]),
    ("newline-list", &["RBV-SH-003"]),
    ("pipeline", &["RBV-SH-003"]),
    ("subshell", &["RBV-SH-003"]),
    ("double-quoted-data", &["RBV-SH-001"]),
    ("single-quoted-data", &["RBV-SH-001"]),
    ("commit-message", &["RBV-SH-001"]),
    ("grep-pattern", &["RBV-SH-001"]),
    ("printf-data", &["RBV-SH-001"]),
    ("devnull-redirect", &["RBV-SH-004", "RBV-SH-007"]),
    ("sed-stdout", &["RBV-SH-007"]),
    ("quoted-heredoc-data", &["RBV-SH-010"]),
    ("read-chain", &["RBV-SH-003", "RBV-SH-007"]),
    ("read-pipeline", &["RBV-SH-003", "RBV-SH-007"]),
];

pub const FETCH: &[Tagged] = &[
    ("safe", &["RBV-FET-001", "RBV-FET-003"]),
    ("at-least", &["RBV-FET-003"]),
    ("loopback-spelling", &["RBV-FET-001", "RBV-FET-002"]),
    ("lookalike-host", &["RBV-FET-002"]),
    ("userinfo", &["RBV-FET-002"]),
    ("port", &["RBV-FET-002"]),
    ("query-mentions-other-host", &["RBV-FET-002"]),
    ("fragment-mentions-other-host", &["RBV-FET-002"]),
    ("path-mentions-other-host", &["RBV-FET-002"]),
    ("wpt-url", &["RBV-FET-002", "RBV-FET-005"]),
];
