//! Expression kinds and table factors that can call a function or hold a
//! subquery, nested in one another around a core: a column or a
//! read-only built-in, and the read is auto (RBV-SQL-001), or a call of a
//! function with an effect, which escalates wherever it sits
//! (RBV-SQL-007, RBV-SQL-016): a client that inspects the select list
//! and WHERE but not an EXISTS, an ANY array, a CASE arm, an XMLTABLE's
//! document or a PIVOT's aggregate misses it.

use super::forms::{self, Formed};
use super::{catalog, dialect, Dialect, Labeled, SqlInput, Truth};
use arbitrary::{Result, Unstructured};
use rbv_protocol::Band;

use Dialect::{Mysql as My, Postgresql as Pg, Sqlite as Lite};

/// A production with a hole: `{v}` takes a value expression, `{t}` a table.
pub(super) struct Holed {
    pub production: &'static str,
    pub dialects: &'static [Dialect],
    pub template: &'static str,
}

const ALL: &[Dialect] = &[Pg, My, Lite];

const fn holed(
    production: &'static str,
    dialects: &'static [Dialect],
    template: &'static str,
) -> Holed {
    Holed {
        production,
        dialects,
        template,
    }
}

/// Value expressions around a value, which they parenthesize where an
/// operator's precedence would otherwise bind into it. MATCH … AGAINST
/// takes a literal only (sqlparser refuses any other), so its value
/// stands beside it.
pub(super) const EXPRESSIONS: &[Holed] = &[
    holed("Expr::Case", ALL, "CASE WHEN {v} IS NULL THEN 0 ELSE 1 END"),
    holed("Expr::IsNull", ALL, "({v}) IS NULL"),
    holed("Expr::Nested", ALL, "({v})"),
    holed("Expr::Like", ALL, "({v}) LIKE 'a%'"),
    holed("Expr::ILike", &[Pg], "({v}) ILIKE '%drop%'"),
    holed("Expr::Exists", ALL, "EXISTS (SELECT {v})"),
    holed("Expr::Extract", &[Pg, My], "EXTRACT(YEAR FROM {v})"),
    holed("Expr::Interval", &[Pg], "({v}) * INTERVAL '1 day'"),
    holed("Expr::Interval", &[My], "created_at + INTERVAL ({v}) DAY"),
    holed("Expr::TypedString", &[Pg], "DATE '2020-01-01' + ({v})"),
    holed("Expr::AnyOp", &[Pg], "1 = ANY (ARRAY[{v}, 2])"),
    holed("Expr::AllOp", &[Pg], "1 > ALL (ARRAY[{v}])"),
    holed("Expr::CompoundFieldAccess", &[Pg], "(ARRAY[{v}])[1]"),
    holed("Expr::Convert", &[My], "CONVERT({v}, CHAR)"),
    holed("Expr::MemberOf", &[My], "({v}) MEMBER OF('[1, 2]')"),
    holed(
        "Expr::MatchAgainst",
        &[My],
        "MATCH (body) AGAINST ('drop table') AND ({v})",
    ),
    holed("Expr::Prefixed", &[My], "concat(_utf8mb4'abc', {v})"),
    holed("Expr::JsonAccess", &[My], "concat(v:a, {v})"),
];

/// Statements around a value expression: table factors, a hierarchical
/// query, and the plain select list and WHERE.
pub(super) const STATEMENTS: &[Holed] = &[
    holed("Statement::Query", ALL, "SELECT {v} FROM {t}"),
    holed("Statement::Query", ALL, "SELECT id FROM {t} WHERE {v}"),
    holed(
        "TableFactor::UNNEST",
        &[Pg],
        "SELECT * FROM unnest(ARRAY[{v}])",
    ),
    holed(
        "TableFactor::TableFunction",
        &[Pg],
        "SELECT * FROM TABLE(generate_series(1, {v}))",
    ),
    holed(
        "TableFactor::Function",
        &[Pg],
        "SELECT * FROM {t}, LATERAL generate_series(1, {v}) AS g",
    ),
    holed(
        "TableFactor::NestedJoin",
        ALL,
        "SELECT * FROM ({t} a JOIN orders b ON b.id = ({v}))",
    ),
    holed(
        "TableFactor::JsonTable",
        &[My],
        "SELECT * FROM JSON_TABLE({v}, '$[*]' COLUMNS (x INT PATH '$')) AS jt",
    ),
    holed(
        "TableFactor::OpenJsonTable",
        &[Pg],
        "SELECT * FROM OPENJSON({v})",
    ),
    holed(
        "TableFactor::Pivot",
        &[Pg],
        "SELECT * FROM {t} PIVOT (SUM({v}) FOR b IN (1, 2))",
    ),
    holed(
        "TableFactor::Unpivot",
        &[Pg],
        "SELECT * FROM (SELECT {v} AS a, 1 AS b) AS s UNPIVOT (x FOR k IN (a, b))",
    ),
    holed(
        "TableFactor::XmlTable",
        &[Pg],
        "SELECT * FROM XMLTABLE('/a' PASSING ({v}) COLUMNS x int PATH 'x')",
    ),
    holed(
        "Expr::Prior",
        &[My],
        "SELECT id FROM {t} START WITH id = 1 CONNECT BY PRIOR id = ({v})",
    ),
];

/// Columns and read-only built-ins every dialect has.
const READS: &[&str] = &[
    "id",
    "note",
    "1",
    "'x'",
    "lower(note)",
    "coalesce(id, 0)",
    "abs(id)",
];

/// A call with an effect in `dialect`.
fn effect(u: &mut Unstructured, dialect: Dialect) -> Result<String> {
    Ok(match dialect {
        Pg => catalog::effect_function(u)?,
        My => (*u.choose(dialect::MYSQL_EFFECTS)?).to_owned(),
        Lite => (*u.choose(dialect::SQLITE_EFFECTS)?).to_owned(),
    })
}

fn of(list: &'static [Holed], dialect: Dialect) -> Vec<&'static Holed> {
    list.iter()
        .filter(|h| h.dialects.contains(&dialect))
        .collect()
}

/// A statement of one of the dialects, up to three expressions deep
/// around a read or an effect, the outermost drawn from every production
/// so that each is as likely.
pub(super) fn input(u: &mut Unstructured) -> Result<Formed> {
    let everything: Vec<&'static Holed> = EXPRESSIONS.iter().chain(STATEMENTS).collect();
    let first = *u.choose(&everything)?;
    let dialect = *u.choose(first.dialects)?;
    let hides = u.ratio(1, 2)?;
    let mut value = if hides {
        effect(u, dialect)?
    } else {
        (*u.choose(READS)?).to_owned()
    };
    let mut claims = Vec::new();
    let expressions = of(EXPRESSIONS, dialect);
    for _ in 0..u.int_in_range(0..=2u8)? {
        let inner = *u.choose(&expressions)?;
        value = inner.template.replace("{v}", &value);
        claims.push(inner.production);
    }
    let statement = if STATEMENTS.iter().any(|s| std::ptr::eq(s, first)) {
        first
    } else {
        value = first.template.replace("{v}", &value);
        claims.push(first.production);
        *u.choose(&of(STATEMENTS, dialect))?
    };
    claims.push(statement.production);
    let table = forms::table(u)?;
    let text = statement
        .template
        .replace("{t}", table)
        .replace("{v}", &value);
    let (truth, family) = if hides {
        (Truth::Dangerous, "effect-in-expression-form")
    } else {
        (Truth::Safe(Band::Auto), "expression-form-read")
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
        claims,
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
    fn every_input_holds_its_claims_and_is_dangerous_exactly_when_it_calls_an_effect() {
        let inputs = drawn(4_000);
        let mut reached = std::collections::BTreeSet::new();
        // Each core's name followed by its opening parenthesis.
        let effects: Vec<String> = dialect::MYSQL_EFFECTS
            .iter()
            .chain(dialect::SQLITE_EFFECTS)
            .map(|c| c.split('(').next().unwrap())
            .chain(catalog::EFFECT_FUNCTIONS.iter().copied())
            .map(|name| format!("{name}("))
            .collect();
        for formed in &inputs {
            claims_hold(formed);
            reached.extend(formed.claims.iter().copied());
            let labeled = &formed.input.labeled;
            let calls = effects.iter().any(|e| labeled.text.contains(e.as_str()));
            assert_eq!(labeled.truth == Truth::Dangerous, calls, "{}", labeled.text);
        }
        for h in EXPRESSIONS.iter().chain(STATEMENTS) {
            assert!(
                reached.contains(h.production),
                "{} never drawn",
                h.production
            );
        }
    }

    #[test]
    fn the_reference_agrees_with_every_form() {
        reference_agrees(drawn(1_500).iter());
    }
}
