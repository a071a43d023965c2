//! Reads of the server's credential relations (RBV-SQL-017): Rule-of-Two's
//! sensitive-data boolean, which no band shows alone. A relation from the
//! rule's list, spelled as the dialect allows (bare, schema-qualified,
//! another letter case, quoted), in any place a read can name it (the FROM
//! list, a join, a subquery, a CTE, a union); and the neighbours that read
//! no credential (the masked views, a plan without execution, the name in a
//! string or a comment, a table that shares a prefix).

use super::{Labeled, Truth};
use arbitrary::{Result, Unstructured};
use rbv_protocol::Band;

/// A credential read or a neighbour, with the dialect it is written for
/// (`None`: PostgreSQL, the default).
pub struct CredentialRead {
    pub dialect: Option<&'static str>,
    pub labeled: Labeled,
}

/// PostgreSQL's relations that hold credentials, with a column of each.
const POSTGRES: &[(&str, &str)] = &[
    ("pg_authid", "rolpassword"),
    ("pg_shadow", "passwd"),
    ("pg_user_mapping", "umoptions"),
    ("pg_user_mappings", "umoptions"),
    ("pg_hba_file_rules", "address"),
    ("pg_ident_file_mappings", "map_name"),
];

/// MySQL's.
const MYSQL: &[(&str, &str)] = &[
    ("user", "authentication_string"),
    ("global_priv", "Priv"),
    ("db", "Db"),
    ("proxies_priv", "Proxied_user"),
];

pub fn read(u: &mut Unstructured) -> Result<CredentialRead> {
    let mysql = u.ratio(1, 3)?;
    if u.ratio(1, 3)? {
        return neighbour(u, mysql);
    }
    let (relation, column, dialect) = if mysql {
        let (name, column) = *u.choose(MYSQL)?;
        // MySQL's table names are case-sensitive where its files are
        // (Linux): no other letter case.
        let relation = match u.int_in_range(0..=1)? {
            0 => format!("mysql.{name}"),
            _ => format!("`mysql`.`{name}`"),
        };
        (relation, column, Some("mysql"))
    } else {
        let (name, column) = *u.choose(POSTGRES)?;
        let relation = match u.int_in_range(0..=3)? {
            0 => name.to_owned(),
            1 => format!("pg_catalog.{name}"),
            2 => name.to_uppercase(),
            _ => format!("\"{name}\""),
        };
        (relation, column, None)
    };
    let (text, place) = match u.int_in_range(0..=5)? {
        0 => (
            format!("SELECT {column} FROM {relation}"),
            "credential-from",
        ),
        1 => (
            format!("SELECT u.id, c.{column} FROM users u JOIN {relation} c ON true"),
            "credential-join",
        ),
        2 => (
            format!("SELECT count(*) FROM users WHERE name IN (SELECT {column} FROM {relation})"),
            "credential-subquery",
        ),
        3 => (
            format!("WITH c AS (SELECT {column} FROM {relation}) SELECT * FROM c"),
            "credential-cte",
        ),
        4 => (
            format!("SELECT name FROM users UNION SELECT {column} FROM {relation}"),
            "credential-union",
        ),
        _ => (format!("SELECT * FROM {relation}"), "credential-from"),
    };
    Ok(CredentialRead {
        dialect,
        labeled: Labeled {
            text,
            truth: Truth::Dangerous,
            families: vec!["credential-read", place],
        },
    })
}

fn neighbour(u: &mut Unstructured, mysql: bool) -> Result<CredentialRead> {
    let (text, family) = if mysql {
        *u.choose(&[
            (
                "SELECT name FROM mysql.help_topic",
                "credential-other-system-table",
            ),
            ("SELECT 'mysql.user' AS t", "credential-name-in-string"),
            (
                "SELECT id FROM users # FROM mysql.user",
                "credential-name-in-comment",
            ),
            ("SELECT * FROM mysql_user_notes", "credential-prefix-table"),
        ])?
    } else {
        *u.choose(&[
            (
                "SELECT rolname, rolpassword FROM pg_roles",
                "credential-masked-view",
            ),
            (
                "SELECT usename, passwd FROM pg_user",
                "credential-masked-view",
            ),
            (
                "EXPLAIN SELECT rolpassword FROM pg_authid",
                "credential-plan-only",
            ),
            ("SELECT 'pg_authid' AS catalog", "credential-name-in-string"),
            ("SELECT 1 -- FROM pg_shadow", "credential-name-in-comment"),
            (
                "SELECT * FROM pg_authid_backup_notes",
                "credential-prefix-table",
            ),
            ("SELECT id, email FROM users", "credential-ordinary-table"),
        ])?
    };
    Ok(CredentialRead {
        dialect: mysql.then_some("mysql"),
        labeled: Labeled {
            text: text.to_owned(),
            truth: Truth::Safe(Band::Auto),
            families: vec!["credential-neighbour", family],
        },
    })
}
