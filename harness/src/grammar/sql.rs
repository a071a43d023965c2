//! The productions of sqlparser's grammar one SQL payload exercises, read
//! by the reference's own reading of it (`rbv_reference::classify::sql::read`).
//!
//! Production names are the parser's own enum variants: `Statement::Copy`,
//! `Expr::Function`, `TableFactor::Derived`, `Set::SetRole`,
//! `TransactionModifier::Immediate`, `Token::DollarQuotedString`,
//! `Whitespace::MultiLineComment`, plus the quoting styles of identifiers
//! (`Ident::double-quoted`, `Ident::backtick`, `Ident::bracket`), which
//! the tokenizer keeps in a field rather than a variant.

use rbv_protocol::SqlDialect;
use rbv_reference::classify::sql;
use sqlparser::ast::{Expr, Statement, TableFactor, Visit, Visitor};
use sqlparser::tokenizer::Token;
use std::collections::BTreeSet;
use std::fmt::Debug;
use std::ops::ControlFlow;

/// The enums of sqlparser whose every variant is a production, with the
/// source file (under the crate's `src/`) that defines each.
pub const ENUMS: &[(&str, &str)] = &[
    ("Statement", "ast/mod.rs"),
    ("Expr", "ast/mod.rs"),
    ("TableFactor", "ast/query.rs"),
    ("Set", "ast/mod.rs"),
    ("TransactionModifier", "ast/mod.rs"),
    ("TransactionAccessMode", "ast/mod.rs"),
    ("BeginTransactionKind", "ast/mod.rs"),
    ("Whitespace", "tokenizer.rs"),
];

/// `Token`'s variants that are lexical forms of literals (strings, bytes,
/// numbers' neighbours): those named `…String…` or `…Literal`. Its other
/// variants are punctuation and operators.
pub fn lexical_token(variant: &str) -> bool {
    variant.contains("String") || variant.ends_with("Literal")
}

/// Identifier quoting styles, named after the character that opens them.
pub const QUOTE_STYLES: &[(char, &str)] = &[
    ('"', "Ident::double-quoted"),
    ('`', "Ident::backtick"),
    ('[', "Ident::bracket"),
];

/// The variant name of a value of a sqlparser enum, from its `Debug`
/// (derived, so it starts with the variant's name).
fn variant(value: &impl Debug) -> String {
    let text = format!("{value:?}");
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

struct Seen(BTreeSet<String>);

impl Seen {
    fn add(&mut self, family: &str, value: &impl Debug) {
        self.0.insert(format!("{family}::{}", variant(value)));
    }
}

impl Visitor for Seen {
    type Break = ();

    fn pre_visit_statement(&mut self, statement: &Statement) -> ControlFlow<()> {
        self.add("Statement", statement);
        match statement {
            Statement::Set(set) => self.add("Set", set),
            Statement::StartTransaction {
                modifier,
                modes,
                transaction,
                ..
            } => {
                if let Some(m) = modifier {
                    self.add("TransactionModifier", m);
                }
                if let Some(k) = transaction {
                    self.add("BeginTransactionKind", k);
                }
                for mode in modes {
                    if let sqlparser::ast::TransactionMode::AccessMode(a) = mode {
                        self.add("TransactionAccessMode", a);
                    }
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        self.add("Expr", expr);
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        self.add("TableFactor", factor);
        ControlFlow::Continue(())
    }
}

/// The productions `payload` exercises in `dialect`: nothing when it does
/// not lex, its lexical forms alone when it does not parse.
pub fn productions(payload: &str, dialect: SqlDialect) -> BTreeSet<String> {
    match sql::read(payload, dialect) {
        Some(reading) => seen_in(&reading.tokens, reading.statements.ok().as_deref()),
        None => BTreeSet::new(),
    }
}

/// The productions sqlparser's own dialect `name` makes of `payload`, for
/// the dialects no operation can name (the reference reads none of them).
pub fn foreign_productions(payload: &str, name: &str) -> Result<BTreeSet<String>, String> {
    let dialect = sqlparser::dialect::dialect_from_str(name)
        .ok_or_else(|| format!("`{name}` is not a dialect of sqlparser"))?;
    let tokens = sqlparser::tokenizer::Tokenizer::new(&*dialect, payload)
        .tokenize()
        .map_err(|e| e.to_string())?;
    let statements = sqlparser::parser::Parser::parse_sql(&*dialect, payload).ok();
    Ok(seen_in(&tokens, statements.as_deref()))
}

/// Why the `foreign` declaration of `production` does not hold, if it
/// does not: its probe must make it in the named dialect and in no wire
/// dialect.
pub fn foreign_problem(production: &str, foreign: &super::Foreign) -> Option<String> {
    let made = match foreign_productions(&foreign.probe, &foreign.dialect) {
        Ok(made) => made,
        Err(e) => return Some(format!("`{production}`: its `foreign` probe: {e}")),
    };
    if !made.contains(production) {
        return Some(format!(
            "`{production}`: the `foreign` probe does not make it in {} (it makes: {})",
            foreign.dialect,
            made.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    let wire = [
        SqlDialect::Postgresql,
        SqlDialect::Mysql,
        SqlDialect::Sqlite,
    ];
    let read_so: Vec<&str> = wire
        .into_iter()
        .filter(|&d| productions(&foreign.probe, d).contains(production))
        .map(|d| d.as_str())
        .collect();
    (!read_so.is_empty()).then(|| {
        format!(
            "`{production}` is declared `foreign`, but its probe makes it in {} too: \
             cover it with a case",
            read_so.join(", ")
        )
    })
}

fn seen_in(tokens: &[Token], statements: Option<&[Statement]>) -> BTreeSet<String> {
    let mut seen = Seen(BTreeSet::new());
    for token in tokens {
        match token {
            Token::Whitespace(w) => seen.add("Whitespace", w),
            Token::Word(w) => {
                let style = QUOTE_STYLES.iter().find(|(c, _)| Some(*c) == w.quote_style);
                seen.0.extend(style.map(|(_, name)| (*name).to_owned()));
            }
            t => {
                let name = variant(t);
                if lexical_token(&name) {
                    seen.0.insert(format!("Token::{name}"));
                }
            }
        }
    }
    for statement in statements.unwrap_or_default() {
        let _ = statement.visit(&mut seen);
    }
    seen.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_statements_expressions_and_lexical_forms_are_seen() {
        let seen = productions(
            "WITH d AS (DELETE FROM \"t\" RETURNING id) SELECT f($$x$$) FROM d -- c",
            SqlDialect::Postgresql,
        );
        for name in [
            "Statement::Query",
            "Statement::Delete",
            "Expr::Function",
            "TableFactor::Table",
            "Token::DollarQuotedString",
            "Whitespace::SingleLineComment",
            "Ident::double-quoted",
        ] {
            assert!(seen.contains(name), "{name} not in {seen:?}");
        }
        assert!(
            !seen.iter().any(|s| s.starts_with("Token::Word")),
            "{seen:?}"
        );
    }

    #[test]
    fn transaction_and_session_forms_are_seen() {
        let seen = productions("BEGIN IMMEDIATE TRANSACTION", SqlDialect::Sqlite);
        assert!(seen.contains("TransactionModifier::Immediate"), "{seen:?}");
        let seen = productions("SET ROLE admin", SqlDialect::Postgresql);
        assert!(seen.contains("Set::SetRole"), "{seen:?}");
        let seen = productions("SELECT `a` FROM t # c", SqlDialect::Mysql);
        assert!(seen.contains("Ident::backtick"), "{seen:?}");
    }

    #[test]
    fn an_unparseable_payload_still_has_its_lexical_forms() {
        let seen = productions("SELEC 'x'", SqlDialect::Postgresql);
        assert!(seen.contains("Token::SingleQuotedString"), "{seen:?}");
        assert!(
            !seen.iter().any(|s| s.starts_with("Statement::")),
            "{seen:?}"
        );
    }
}
