//! Requirement ids (cases/REQUIREMENTS.yaml) that findings cite. A test
//! checks that each exists in the catalogue.

pub const TOKEN_BINDING: &str = "RBV-TOK-002";
pub const TOKEN_SINGLE_USE: &str = "RBV-TOK-005";
pub const TOKEN_HUMAN_ONLY: &str = "RBV-TOK-001";
pub const SQL: &str = "RBV-SQL-005";
pub const SQL_READS: &str = "RBV-SQL-009";
pub const SQL_CREDENTIALS: &str = "RBV-SQL-017";
pub const SHELL: &str = "RBV-SH-002";
pub const SHELL_DATA: &str = "RBV-SH-001";
pub const FETCH_LOOPBACK: &str = "RBV-FET-001";
pub const FETCH_NOT_LOOPBACK: &str = "RBV-FET-002";
pub const FETCH_REMOTE_WRITE: &str = "RBV-FET-004";
pub const FETCH_METADATA: &str = "RBV-FET-007";
pub const FETCH_INTERNAL: &str = "RBV-FET-008";
pub const FETCH_PARSERS: &str = "RBV-FET-010";
pub const SHELL_RUNS_PROGRAM: &str = "RBV-SH-011";
pub const SHELL_MODES: &str = "RBV-SH-012";
pub const SHELL_BUILD: &str = "RBV-SH-013";
pub const SHELL_SECRETS: &str = "RBV-SH-014";
pub const SHELL_PUSH: &str = "RBV-SH-015";
pub const SHELL_DOWNLOAD: &str = "RBV-SH-016";
pub const SHELL_WORKSPACE: &str = "RBV-WS-001";
pub const PROTOCOL_SURVIVAL: &str = "RBV-PRO-001";
pub const PROTOCOL_ERROR: &str = "RBV-PRO-002";
pub const PROTOCOL_ECHO: &str = "RBV-PRO-003";
pub const PROTOCOL_UNKNOWN_TYPE: &str = "RBV-PRO-004";
pub const MANIFEST_ENTRY: &str = "RBV-MAN-003";
pub const MANIFEST_DEFAULT: &str = "RBV-MAN-008";
pub const MANIFEST_OPTIONAL: &str = "RBV-MAN-001";
pub const MANIFEST_REJECTED: &str = "RBV-MAN-011";
pub const PROJECTION: &str = "RBV-PRJ-001";
pub const PROJECTION_MONOTONE: &str = "RBV-PRJ-003";
pub const ALL: &[&str] = &[
    TOKEN_BINDING,
    TOKEN_SINGLE_USE,
    TOKEN_HUMAN_ONLY,
    SQL,
    SQL_READS,
    SQL_CREDENTIALS,
    SHELL,
    SHELL_DATA,
    FETCH_LOOPBACK,
    FETCH_NOT_LOOPBACK,
    FETCH_REMOTE_WRITE,
    FETCH_METADATA,
    FETCH_INTERNAL,
    FETCH_PARSERS,
    SHELL_RUNS_PROGRAM,
    SHELL_MODES,
    SHELL_BUILD,
    SHELL_SECRETS,
    SHELL_PUSH,
    SHELL_DOWNLOAD,
    SHELL_WORKSPACE,
    PROTOCOL_SURVIVAL,
    PROTOCOL_ERROR,
    PROTOCOL_ECHO,
    PROTOCOL_UNKNOWN_TYPE,
    MANIFEST_ENTRY,
    MANIFEST_DEFAULT,
    MANIFEST_OPTIONAL,
    MANIFEST_REJECTED,
    PROJECTION,
    PROJECTION_MONOTONE,
    TOKEN_SCOPE,
    TOKEN_CONCURRENT,
    TOKEN_FORGED,
    TOKEN_RESET,
    TOKEN_STANDING,
    TOKEN_EXACT,
    R2_ESCALATES,
    R2_ONE_ALONE,
    POLICY_RAISES,
    UNTRUSTED_RAISES,
    DECLARED_REPORTED,
];
pub const TOKEN_SCOPE: &str = "RBV-TOK-004";
pub const TOKEN_CONCURRENT: &str = "RBV-TOK-006";
pub const TOKEN_FORGED: &str = "RBV-TOK-007";
pub const TOKEN_RESET: &str = "RBV-TOK-008";
pub const TOKEN_STANDING: &str = "RBV-TOK-009";
pub const TOKEN_EXACT: &str = "RBV-TOK-010";
pub const R2_ESCALATES: &str = "RBV-R2-001";
pub const R2_ONE_ALONE: &str = "RBV-R2-004";
pub const POLICY_RAISES: &str = "RBV-EFF-002";
pub const UNTRUSTED_RAISES: &str = "RBV-EFF-005";
pub const DECLARED_REPORTED: &str = "RBV-MAN-014";
