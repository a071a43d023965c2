//! The lexical forms of strings and identifiers each dialect has beside
//! the plain quote: PostgreSQL's `N'…'`, `U&'…'`, `E'…'` and `B"…"`,
//! MySQL's double-quoted strings and bit strings, SQLite's bracketed
//! identifiers. Dangerous words inside one are data (RBV-SQL-009); a
//! statement after one still runs (RBV-SQL-003); and where a backslash
//! ends the literal sooner than a reader that skips `\'` thinks, what
//! follows is a statement (RBV-SQL-008, RBV-SQL-011).

use super::dialect::{common_write, DANGER_WORDS};
use super::forms::{self, Formed};
use super::{Dialect, Labeled, SqlInput, Truth};
use arbitrary::{Result, Unstructured};
use rbv_protocol::Band;

use Dialect::{Mysql as My, Postgresql as Pg, Sqlite as Lite};

/// A literal form; `{w}` takes words.
pub(super) struct Literal {
    pub production: &'static str,
    pub dialect: Dialect,
    pub template: &'static str,
}

const fn literal(production: &'static str, dialect: Dialect, template: &'static str) -> Literal {
    Literal {
        production,
        dialect,
        template,
    }
}

pub(super) const LITERALS: &[Literal] = &[
    literal("Token::NationalStringLiteral", Pg, "N'{w}'"),
    literal("Token::NationalStringLiteral", My, "N'{w}'"),
    literal("Token::UnicodeStringLiteral", Pg, "U&'{w}'"),
    literal("Token::EscapedStringLiteral", Pg, "E'{w}'"),
    // `\'` inside an escape string is a quote, not its end.
    literal("Token::EscapedStringLiteral", Pg, r"E'it\'s {w}'"),
    literal("Token::DoubleQuotedByteStringLiteral", Pg, "B\"{w}\""),
    literal("Token::DoubleQuotedString", My, "\"{w}\""),
    // MySQL reads backslash escapes in double-quoted strings too.
    literal("Token::DoubleQuotedString", My, r#""it\"s {w}""#),
    literal("Token::SingleQuotedByteStringLiteral", My, "b'101'"),
];

/// Literals that end at a doubled backslash: `\\` is one backslash, and
/// the quote after it closes the string, so the write that follows runs.
/// `{s}` is the statement.
const ENDS_EARLY: &[Literal] = &[
    literal("Token::EscapedStringLiteral", Pg, r"E'x\\'; {s}; -- '"),
    literal("Token::DoubleQuotedString", My, r#""x\\"; {s}; -- ""#),
];

/// A read that holds a literal form, or a bracketed identifier, with a
/// write after it at times.
pub(super) fn input(u: &mut Unstructured) -> Result<Formed> {
    let table = forms::table(u)?;
    let (dialect, production, mut text, family) = match u.int_in_range(0..=5u8)? {
        0 => {
            let text = format!("SELECT [id], [note] FROM [{table}]");
            (Lite, "Ident::bracket", text, "bracket-identifier-read")
        }
        1 => {
            let l = u.choose(ENDS_EARLY)?;
            let text = format!(
                "SELECT {}",
                l.template.replace("{s}", &common_write(u, table)?)
            );
            return Ok(Formed {
                input: SqlInput {
                    dialect: forms::named(u, l.dialect)?,
                    labeled: Labeled {
                        text,
                        truth: Truth::Dangerous,
                        families: vec!["string-form-ends-early"],
                    },
                },
                claims: vec![l.production],
            });
        }
        _ => {
            let l = u.choose(LITERALS)?;
            let value = l.template.replace("{w}", u.choose(DANGER_WORDS)?);
            let text = if u.ratio(1, 2)? {
                format!("SELECT {value} AS s FROM {table}")
            } else {
                format!("SELECT id FROM {table} WHERE note = {value}")
            };
            (l.dialect, l.production, text, "string-form-read")
        }
    };
    let (truth, family) = if u.ratio(1, 3)? {
        text = format!("{text}; {}", common_write(u, table)?);
        let family = if family == "bracket-identifier-read" {
            "write-after-bracket-identifier"
        } else {
            "write-after-string-form"
        };
        (Truth::Dangerous, family)
    } else {
        (Truth::Safe(Band::Auto), family)
    };
    Ok(Formed {
        input: SqlInput {
            dialect: forms::named(u, dialect)?,
            labeled: Labeled {
                text,
                truth,
                families: vec![family],
            },
        },
        claims: vec![production],
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{claims_hold, reference_agrees};
    use super::*;

    fn drawn(n: u64) -> Vec<Formed> {
        super::super::tests::drawn(n, input)
    }

    #[test]
    fn every_input_holds_its_claims_and_a_second_statement_is_what_escalates() {
        let mut reached = std::collections::BTreeSet::new();
        for formed in drawn(3_000) {
            claims_hold(&formed);
            reached.extend(formed.claims.iter().copied());
            let labeled = &formed.input.labeled;
            let dialect = formed.input.dialect.map_or(Pg, |d| d.parse().unwrap());
            // Statements as the dialect's own reader splits them: the
            // words inside a literal never make one.
            let statements = rbv_reference::classify::sql::read(&labeled.text, dialect)
                .and_then(|r| r.statements.ok())
                .map_or(0, |s| s.len());
            let expected = if statements > 1 {
                Truth::Dangerous
            } else {
                Truth::Safe(Band::Auto)
            };
            assert_eq!(labeled.truth, expected, "{}", labeled.text);
        }
        for l in LITERALS.iter().chain(ENDS_EARLY) {
            assert!(
                reached.contains(l.production),
                "{} never drawn",
                l.production
            );
        }
        assert!(reached.contains("Ident::bracket"));
    }

    #[test]
    fn the_reference_agrees_with_every_form() {
        reference_agrees(drawn(1_500).iter());
    }
}
