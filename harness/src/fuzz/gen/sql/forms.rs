//! The grammar forms: statement kinds, expression kinds and table factors,
//! transaction and session forms, and lexical forms of strings and
//! identifiers that cases/grammar/sql.yaml covers and that neither the
//! catalogue's lists nor the pg_regress writes hold. Each input names the
//! productions it is built to exercise (`claims`), so that the tests can
//! check it with the classifier `rbv lint --coverage` reads the cases with
//! and `rbv fuzz --reach` reads the generated requests with.

use super::{expressions, lexical, statements, Dialect, SqlInput};
use arbitrary::{Result, Unstructured};

/// A generated input and the grammar productions it claims to exercise
/// (`Statement::Kill`, `Expr::Like`, `Token::NationalStringLiteral`).
#[derive(Clone, Debug)]
pub(super) struct Formed {
    pub input: SqlInput,
    // Read by the tests alone, which check every claim with the classifier.
    #[cfg_attr(not(test), allow(dead_code))]
    pub claims: Vec<&'static str>,
}

/// Statement forms outnumber the other families several times, so that
/// every one of them is drawn within a short seeded run; the catalogue's
/// lists of PostgreSQL statement kinds are drawn the same way.
pub(super) fn input(u: &mut Unstructured) -> Result<Formed> {
    match u.int_in_range(0..=9u8)? {
        0..=3 => statements::input(u),
        4 | 5 => statements::catalogued(u),
        6..=8 => expressions::input(u),
        _ => lexical::input(u),
    }
}

/// The name an operation gives `dialect`: PostgreSQL's is the default,
/// sent unnamed or named.
pub(super) fn named(u: &mut Unstructured, dialect: Dialect) -> Result<Option<&'static str>> {
    Ok(match dialect {
        Dialect::Postgresql if u.ratio(1, 2)? => None,
        d => Some(d.as_str()),
    })
}

/// Tables every dialect spells the same way, for the `{t}` of a template.
pub(super) fn table(u: &mut Unstructured) -> Result<&'static str> {
    u.choose(super::PLAIN_TABLES).copied()
}
