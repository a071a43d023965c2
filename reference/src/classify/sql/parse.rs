//! Reading a payload into statements, with the guards that keep a hostile
//! payload from taking the inspector down.

use sqlparser::ast::Statement;
use sqlparser::dialect::{Dialect, PostgreSqlDialect};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, TokenizerError};

/// Parser nesting limit. Deeper input is an error, so it fails safe; with
/// `recursive-protection` the parser also grows its stack instead of
/// overflowing.
const RECURSION_LIMIT: usize = 64;

/// Operators and keywords a payload may hold. A chain `1+1+1…` does not nest
/// in the parser, so the recursion limit does not bound it, but it builds a
/// tree as deep as the chain is long; walking, printing or even dropping a
/// tree of ~100,000 levels overflows a 2 MiB stack (measured: 20,000 is
/// fine). Lists (`IN (1, 2, …)`, `VALUES`) are flat and do not count.
pub(super) const MAX_CHAIN_TOKENS: usize = 5_000;

// PostgreSQL as sqlparser reads it, plus the bare `TABLE name` statement
// (PostgreSQL: exactly `SELECT * FROM name`), which sqlparser 0.64 accepts
// only inside a query body.
sqlparser::derive_dialect!(
    Postgres,
    PostgreSqlDialect,
    preserve_type_id = true,
    overrides = { parse_statement = table_statement(_parser) }
);

sqlparser::derive_dialect!(
    BackslashPostgres,
    PostgreSqlDialect,
    preserve_type_id = true,
    overrides = {
        supports_string_literal_backslash_escape = true,
        parse_statement = table_statement(_parser)
    }
);

fn table_statement(parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
    parser
        .peek_keyword(Keyword::TABLE)
        .then(|| parser.parse_query().map(Statement::Query))
}

/// Why a payload was not read.
#[derive(Debug, thiserror::Error)]
pub(super) enum Unreadable {
    #[error("unparseable SQL fails safe: {0}")]
    Tokens(#[from] TokenizerError),
    #[error("unparseable SQL fails safe: {0}")]
    Parse(#[from] ParserError),
    #[error("{0} operators and keywords: more than the {MAX_CHAIN_TOKENS} the inspector reads")]
    TooComplex(usize),
}

/// How PostgreSQL lexes string literals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lexing {
    /// `standard_conforming_strings = on`, the default since PostgreSQL 9.1.
    Standard,
    /// The legacy setting: a backslash escapes inside `'…'` too.
    BackslashEscapes,
}

pub(super) fn statements(sql: &str, lexing: Lexing) -> Result<Vec<Statement>, Unreadable> {
    let standard = Postgres::new();
    let backslash = BackslashPostgres::new();
    let dialect: &dyn Dialect = match lexing {
        Lexing::Standard => &standard,
        Lexing::BackslashEscapes => &backslash,
    };
    let tokens = without_variadic(
        Tokenizer::new(dialect, sql)
            .with_unescape(true)
            .tokenize_with_location()?,
    );
    let chain = tokens.iter().filter(|t| chains(&t.token)).count();
    if chain > MAX_CHAIN_TOKENS {
        return Err(Unreadable::TooComplex(chain));
    }
    Ok(Parser::new(dialect)
        .with_recursion_limit(RECURSION_LIMIT)
        .with_tokens_with_locations(tokens)
        .parse_statements()?)
}

/// sqlparser 0.64 does not know `VARIADIC` in a call (`f(VARIADIC arr)`).
/// The marker decides how the arguments are passed, not which function runs
/// or what its arguments compute, so the call is read without it. Anywhere
/// else PostgreSQL rejects it as a syntax error, and with it the payload.
fn without_variadic(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut kept: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    for t in tokens {
        let variadic = matches!(&t.token, Token::Word(w)
            if w.keyword == Keyword::VARIADIC && w.quote_style.is_none());
        let after_open = kept
            .iter()
            .rev()
            .find(|p| !matches!(p.token, Token::Whitespace(_)))
            .is_some_and(|p| matches!(p.token, Token::LParen | Token::Comma));
        if !(variadic && after_open) {
            kept.push(t);
        }
    }
    kept
}

/// Whether a token can extend a chain: anything but atoms, list
/// punctuation and whitespace.
fn chains(token: &Token) -> bool {
    match token {
        Token::Word(w) => w.keyword != Keyword::NoKeyword && w.quote_style.is_none(),
        Token::Whitespace(_)
        | Token::EOF
        | Token::Comma
        | Token::LParen
        | Token::RParen
        | Token::SemiColon
        | Token::Period
        | Token::Number(..)
        | Token::Placeholder(_)
        | Token::SingleQuotedString(_)
        | Token::DoubleQuotedString(_)
        | Token::DollarQuotedString(_)
        | Token::EscapedStringLiteral(_)
        | Token::UnicodeStringLiteral(_)
        | Token::NationalStringLiteral(_)
        | Token::HexStringLiteral(_)
        | Token::SingleQuotedByteStringLiteral(_) => false,
        _ => true,
    }
}
