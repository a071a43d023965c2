//! Reading a payload into statements, with the guards that keep a hostile
//! payload from taking the inspector down.

use rbv_protocol::SqlDialect;
use sqlparser::ast::{Statement, Value, ValueWithSpan};
use sqlparser::dialect::{Dialect, MySqlDialect, PostgreSqlDialect, SQLiteDialect};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, TokenizerError, Whitespace};

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

// MySQL reads backslash escapes in strings unless the server runs with
// `sql_mode = NO_BACKSLASH_ESCAPES`; this is that second reading.
sqlparser::derive_dialect!(
    MySqlNoBackslash,
    MySqlDialect,
    preserve_type_id = true,
    overrides = { supports_string_literal_backslash_escape = false }
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

// SQLite as sqlparser reads it, plus pragma values that are names or
// keywords (`PRAGMA table_info(users)`, `PRAGMA foreign_keys = OFF`),
// which sqlparser 0.64 accepts only as strings and numbers.
sqlparser::derive_dialect!(
    Sqlite,
    SQLiteDialect,
    preserve_type_id = true,
    overrides = { parse_statement = pragma_statement(_parser) }
);

fn pragma_statement(parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
    parser.peek_keyword(Keyword::PRAGMA).then(|| {
        parser.expect_keyword_is(Keyword::PRAGMA)?;
        let name = parser.parse_object_name(false)?;
        let (value, is_eq) = if parser.consume_token(&Token::LParen) {
            let value = pragma_value(parser)?;
            parser.expect_token(&Token::RParen)?;
            (Some(value), false)
        } else if parser.consume_token(&Token::Eq) {
            (Some(pragma_value(parser)?), true)
        } else {
            (None, false)
        };
        Ok(Statement::Pragma { name, value, is_eq })
    })
}

/// A signed number, a string, or a name kept as its text: what the
/// inspector judges is which pragma gets a value, not the value.
fn pragma_value(parser: &mut Parser) -> Result<ValueWithSpan, ParserError> {
    let _sign = parser.consume_token(&Token::Minus) || parser.consume_token(&Token::Plus);
    match parser.peek_token().token {
        Token::Word(w) => {
            parser.next_token();
            Ok(Value::SingleQuotedString(w.value).with_empty_span())
        }
        _ => parser.parse_value(),
    }
}

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
    #[error("a MariaDB executable comment (/*M! … */) runs its text on MariaDB: fails safe")]
    MariaDbExecutable,
}

/// How a server lexes string literals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lexing {
    /// A backslash is an ordinary character inside `'…'`: PostgreSQL with
    /// `standard_conforming_strings = on` (its default since 9.1), SQLite,
    /// MySQL with `sql_mode = NO_BACKSLASH_ESCAPES`.
    Standard,
    /// A backslash escapes inside `'…'`: MySQL's default, PostgreSQL's
    /// legacy setting.
    BackslashEscapes,
}

impl Lexing {
    /// The reading a server of the dialect uses unless configured otherwise.
    pub(super) fn default_for(dialect: SqlDialect) -> Lexing {
        match dialect {
            SqlDialect::Mysql => Lexing::BackslashEscapes,
            SqlDialect::Postgresql | SqlDialect::Sqlite => Lexing::Standard,
        }
    }

    /// The reading of the same dialect under its other setting, if it has one.
    pub(super) fn other_for(dialect: SqlDialect) -> Option<Lexing> {
        match dialect {
            SqlDialect::Mysql => Some(Lexing::Standard),
            SqlDialect::Postgresql => Some(Lexing::BackslashEscapes),
            SqlDialect::Sqlite => None,
        }
    }
}

/// The statements of a payload as a server of `dialect` reads them.
/// MySQL's executable comments (`/*! … */`, `/*!50000 … */`) are read as
/// the code they are (sqlparser's comment hints); their version number is
/// ignored, as if every server were new enough to run them.
pub(super) fn statements(
    sql: &str,
    dialect: SqlDialect,
    lexing: Lexing,
) -> Result<Vec<Statement>, Unreadable> {
    let dialect = server(dialect, lexing);
    let dialect = dialect.as_ref();
    let tokens = without_variadic(
        Tokenizer::new(dialect, sql)
            .with_unescape(true)
            .tokenize_with_location()?,
    );
    if dialect.supports_multiline_comment_hints()
        && tokens.iter().any(|t| mariadb_executable(&t.token))
    {
        return Err(Unreadable::MariaDbExecutable);
    }
    let chain = tokens.iter().filter(|t| chains(&t.token)).count();
    if chain > MAX_CHAIN_TOKENS {
        return Err(Unreadable::TooComplex(chain));
    }
    Ok(Parser::new(dialect)
        .with_recursion_limit(RECURSION_LIMIT)
        .with_tokens_with_locations(tokens)
        .parse_statements()?)
}

/// The dialect sqlparser reads a server of `dialect` with under `lexing`.
fn server(dialect: SqlDialect, lexing: Lexing) -> Box<dyn Dialect> {
    match (dialect, lexing) {
        (SqlDialect::Postgresql, Lexing::Standard) => Box::new(Postgres::new()),
        (SqlDialect::Postgresql, Lexing::BackslashEscapes) => Box::new(BackslashPostgres::new()),
        (SqlDialect::Mysql, Lexing::BackslashEscapes) => Box::new(MySqlDialect {}),
        (SqlDialect::Mysql, Lexing::Standard) => Box::new(MySqlNoBackslash::new()),
        (SqlDialect::Sqlite, _) => Box::new(Sqlite::new()),
    }
}

/// The tokens of a payload as [`statements`] lexes them.
pub(super) fn tokens(
    sql: &str,
    dialect: SqlDialect,
    lexing: Lexing,
) -> Result<Vec<Token>, Unreadable> {
    let tokens = Tokenizer::new(server(dialect, lexing).as_ref(), sql)
        .with_unescape(true)
        .tokenize()?;
    Ok(tokens)
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

/// MariaDB also runs `/*M! … */` and `/*M!100100 … */`, which MySQL (and
/// sqlparser) keep as a comment.
fn mariadb_executable(token: &Token) -> bool {
    // Either case: a client that lower-cases the payload must not hide it.
    matches!(token, Token::Whitespace(Whitespace::MultiLineComment(c))
        if c.starts_with("M!") || c.starts_with("m!"))
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
