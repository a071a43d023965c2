//! The walk over one parsed statement: every nested statement, query,
//! expression, table factor and literal is visited, and each part with an
//! effect leaves a [`Finding`].

use super::catalog::{self, FunctionKind};
use super::effect::{Effect, Finding};
use super::FunctionPolicy;
use crate::mutant::Mutant;
use rbv_protocol::SqlDialect;
use sqlparser::ast::{
    BinaryOperator, CopyTarget, DiscardObject, Expr, ObjectName, ObjectNamePart, Query, Reset,
    Select, Set, Statement, TableFactor, TransactionAccessMode, TransactionMode,
    TransactionModifier, Value, ValueWithSpan, Visit, Visitor,
};
use std::collections::HashMap;
use std::ops::ControlFlow;

/// Prepared statements of the payload so far, by folded name, with what
/// executing them does.
pub(super) type Prepared = HashMap<String, Vec<Finding>>;

/// The findings of one top-level statement.
pub(super) fn statement(
    stmt: &Statement,
    dialect: SqlDialect,
    policy: FunctionPolicy,
    prepared: &Prepared,
    mutant: Option<Mutant>,
) -> Vec<Finding> {
    let mut walker = Walker {
        dialect,
        policy,
        prepared,
        credentials: mutant != Some(Mutant::CredentialCatalogBlind),
        planned: 0,
        findings: Vec::new(),
    };
    // The walker never breaks: every part of the statement is visited.
    let _ = stmt.visit(&mut walker);
    walker.findings
}

/// The statement's kind for reasons: its leading keywords.
pub(super) fn kind(stmt: &Statement) -> String {
    let text = stmt.to_string();
    let mut words = text.split_whitespace().map(|w| w.to_ascii_uppercase());
    let first = words.next().unwrap_or_default();
    match first.as_str() {
        "CREATE" | "ALTER" | "DROP" => match words.next() {
            Some(second) => format!("{first} {second}"),
            None => first,
        },
        _ => first,
    }
}

struct Walker<'a> {
    dialect: SqlDialect,
    policy: FunctionPolicy,
    prepared: &'a Prepared,
    /// Whether reading a credential relation counts as sensitive data (not
    /// under the `credential-catalog-blind` mutant).
    credentials: bool,
    /// Depth inside `EXPLAIN` without `ANALYZE`: the statement is planned,
    /// not run, so its own kind, locks and `INTO` have no effect. Functions
    /// still count: the planner folds immutable calls with constant
    /// arguments, and a user-defined function may be declared immutable.
    planned: usize,
    findings: Vec<Finding>,
}

impl Walker<'_> {
    fn push(&mut self, effect: Effect, reason: impl Into<String>) {
        self.findings.push(Finding::new(effect, reason));
    }

    fn push_sensitive(&mut self, effect: Effect, reason: impl Into<String>) {
        self.findings.push(Finding::new(effect, reason).sensitive());
    }

    fn classify(&mut self, stmt: &Statement) {
        use Effect::*;
        match stmt {
            // A query's parts are judged where the walk meets them.
            Statement::Query(_)
            | Statement::Explain { .. }
            | Statement::ExplainTable { .. }
            | Statement::Prepare { .. }
            | Statement::Savepoint { .. }
            | Statement::ReleaseSavepoint { .. }
            | Statement::Close { .. }
            | Statement::Deallocate { .. }
            | Statement::UNLISTEN { .. }
            | Statement::Fetch { into: None, .. }
            | Statement::ShowVariable { .. }
            | Statement::ShowVariables { .. }
            | Statement::ShowStatus { .. }
            | Statement::ShowFunctions { .. }
            | Statement::ShowCreate { .. }
            | Statement::ShowColumns { .. }
            | Statement::ShowCatalogs { .. }
            | Statement::ShowDatabases { .. }
            | Statement::ShowSchemas { .. }
            | Statement::ShowCharset(_)
            | Statement::ShowObjects(_)
            | Statement::ShowTables { .. }
            | Statement::ShowViews { .. }
            | Statement::ShowCollation { .. }
            | Statement::ShowProcessList { .. } => {}
            Statement::Declare { stmts, .. } => {
                if stmts.iter().any(|d| d.hold == Some(true)) {
                    self.push(
                        Hold,
                        "DECLARE … WITH HOLD keeps the cursor's rows on the server past the transaction, until it is closed",
                    );
                }
            }
            Statement::LISTEN { .. } => self.push(
                Hold,
                "LISTEN registers the session on the server's notification queue until UNLISTEN or the session ends",
            ),
            Statement::Pragma { name, value, is_eq } => self.pragma(name, value.is_some(), *is_eq),
            Statement::AttachDatabase { .. } => self.push_sensitive(
                External,
                "ATTACH opens, or creates, a database file on the host",
            ),
            Statement::LoadData { .. } => self.push_sensitive(
                External,
                "LOAD DATA reads a file of the host into a table",
            ),
            Statement::Insert(_) => self.push(Write, "INSERT writes rows"),
            Statement::Update(_) => self.push(Write, "UPDATE changes rows"),
            Statement::Merge(_) => self.push(Write, "MERGE changes rows"),
            Statement::Delete(_) => self.push(Destroy, "DELETE removes rows"),
            Statement::Truncate(_) => self.push(Destroy, "TRUNCATE removes every row"),
            Statement::Set(set) => self.set(set),
            Statement::Reset(reset) => self.reset(&reset.reset),
            Statement::StartTransaction { modes, modifier, .. } => {
                if read_write(modes) {
                    self.push(Write, "a READ WRITE transaction escapes a read-only wrapper");
                }
                if matches!(
                    modifier,
                    Some(TransactionModifier::Immediate | TransactionModifier::Exclusive)
                ) {
                    self.push(
                        Write,
                        "BEGIN IMMEDIATE/EXCLUSIVE takes the database's write lock until the transaction ends",
                    );
                }
            }
            Statement::Commit { .. } => self.push(
                Write,
                "COMMIT ends the transaction: it makes earlier writes permanent and escapes a read-only wrapper",
            ),
            Statement::Rollback {
                savepoint: None, ..
            } => self.push(
                Write,
                "ROLLBACK ends the transaction: it discards earlier work and escapes a read-only wrapper",
            ),
            Statement::Rollback { .. } => {
                self.push(Write, "ROLLBACK TO SAVEPOINT discards work done since the savepoint")
            }
            Statement::Execute { name, .. } => self.execute(name.as_ref()),
            Statement::Discard { object_type } => match object_type {
                DiscardObject::PLANS | DiscardObject::SEQUENCES => {}
                DiscardObject::ALL | DiscardObject::TEMP => {
                    self.push(Destroy, "DISCARD drops the session's temporary tables")
                }
            },
            Statement::NOTIFY { .. } => self.push(Write, "NOTIFY sends a message to other sessions"),
            Statement::Copy { to, target, .. } => self.copy(*to, target),
            Statement::Lock(_) | Statement::LockTables { .. } => {
                self.push(Write, "LOCK blocks other sessions until the transaction ends")
            }
            Statement::Analyze(_) | Statement::Vacuum(_) => {
                self.push(Write, "maintenance rewrites statistics or tables")
            }
            Statement::Grant(_)
            | Statement::Revoke(_)
            | Statement::GrantRole(_)
            | Statement::RevokeRole(_)
            | Statement::Deny(_)
            | Statement::AlterDefaultPrivileges(_)
            | Statement::CreateRole(_)
            | Statement::AlterRole { .. }
            | Statement::CreateUser(_)
            | Statement::AlterUser(_) => self.push_sensitive(Write, "changes roles or privileges"),
            Statement::Call(_) => self.push(
                Unknown,
                "CALL runs a procedure whose effects the statement does not show",
            ),
            Statement::Load { .. } | Statement::Install { .. } => {
                self.push(External, "loads code into the database server")
            }
            Statement::Kill { .. } => self.push(Destroy, "ends another session"),
            other => {
                let kind = kind(other);
                match kind.split(' ').next().unwrap_or_default() {
                    "DROP" => self.push(Destroy, format!("{kind} removes a database object")),
                    "CREATE" | "ALTER" | "COMMENT" | "REFRESH" | "RENAME" => {
                        self.push(Write, format!("{kind} changes the schema"))
                    }
                    _ => self.push(Unknown, format!("{kind} is not known to be read-only")),
                }
            }
        }
    }

    /// SQLite's `PRAGMA`: a read of a setting or of the schema, or a write
    /// of a setting. Elsewhere the statement does not exist.
    fn pragma(&mut self, name: &ObjectName, has_value: bool, is_eq: bool) {
        let last = folded_name(name).and_then(|parts| parts.last().cloned());
        let Some(pragma) = last.filter(|_| self.dialect == SqlDialect::Sqlite) else {
            return self.push(
                Effect::Unknown,
                format!("PRAGMA {name} is not a statement of this dialect"),
            );
        };
        match catalog::pragma(&pragma, has_value, is_eq) {
            catalog::PragmaKind::Read => {}
            catalog::PragmaKind::Write => self.push(
                Effect::Write,
                format!("PRAGMA {pragma} changes how the database stores, checks or reads data"),
            ),
            catalog::PragmaKind::Unlisted => self.push(
                Effect::Unknown,
                format!("PRAGMA {pragma} is not known to be a read"),
            ),
        }
    }

    fn set(&mut self, set: &Set) {
        use Effect::*;
        match set {
            Set::SingleAssignment {
                variable, values, ..
            } => self.assign(variable, values),
            Set::ParenthesizedAssignments { variables, values } => {
                for variable in variables {
                    self.assign(variable, values);
                }
            }
            Set::MultipleAssignments { assignments } => {
                for a in assignments {
                    self.assign(&a.name, std::slice::from_ref(&a.value));
                }
            }
            Set::SetTimeZone { .. } => {}
            Set::SetTransaction { modes, .. } => {
                if read_write(modes) {
                    self.push(
                        Write,
                        "a READ WRITE transaction escapes a read-only wrapper",
                    );
                }
            }
            Set::SetRole { .. } | Set::SetSessionAuthorization(_) => {
                self.push_sensitive(Write, "changes the role later statements run as")
            }
            Set::SetNames { .. } | Set::SetNamesDefault {} => self.push(
                Write,
                "changes the client encoding, which changes how later statement text is read",
            ),
            Set::SetSessionParam(_) => self.push(Unknown, "session parameter not known"),
        }
    }

    fn assign(&mut self, variable: &ObjectName, values: &[Expr]) {
        let name = folded_name(variable).map(|parts| parts.join("."));
        let Some(name) = name else {
            return self.push(Effect::Unknown, "SET of a computed name");
        };
        if catalog::harmless_setting(&name) {
            return;
        }
        let turned_on = values.iter().all(|v| {
            let text = v.to_string().trim_matches('\'').to_ascii_lowercase();
            matches!(text.as_str(), "on" | "true" | "1" | "yes")
        });
        if catalog::READ_ONLY_SETTINGS.contains(&name.as_str()) && turned_on && !values.is_empty() {
            return;
        }
        self.push(
            Effect::Write,
            format!("SET {name} changes how later statements run or are read"),
        );
    }

    fn reset(&mut self, reset: &Reset) {
        match reset {
            Reset::ALL => self.push(
                Effect::Write,
                "RESET ALL restores every setting, also read-only mode and role",
            ),
            Reset::SessionAuthorization => {
                self.push_sensitive(Effect::Write, "changes the role later statements run as")
            }
            Reset::ConfigurationParameter(name) => {
                match folded_name(name).map(|parts| parts.join(".")) {
                    Some(name) if catalog::harmless_setting(&name) => {}
                    Some(name) => self.push(
                        Effect::Write,
                        format!("RESET {name} changes how later statements run or are read"),
                    ),
                    None => self.push(Effect::Unknown, "RESET of a computed name"),
                }
            }
        }
    }

    fn execute(&mut self, name: Option<&ObjectName>) {
        let prepared = name
            .and_then(folded_name)
            .and_then(|parts| self.prepared.get(&parts.join(".")));
        match prepared {
            Some(findings) => self.findings.extend(findings.iter().cloned()),
            None => self.push(
                Effect::Unknown,
                "EXECUTE runs a prepared statement this payload does not show",
            ),
        }
    }

    fn copy(&mut self, to: bool, target: &CopyTarget) {
        use Effect::*;
        match (to, target) {
            (true, CopyTarget::Stdout) => {}
            (true, CopyTarget::File { .. }) => {
                self.push(External, "COPY TO a file writes on the database host")
            }
            (_, CopyTarget::Program { .. }) => self.push(
                External,
                "COPY … PROGRAM runs a shell command on the database host",
            ),
            (false, CopyTarget::File { .. }) => self.push_sensitive(
                Write,
                "COPY FROM a file reads the database host's files into a table",
            ),
            (false, CopyTarget::Stdin) => self.push(Write, "COPY FROM writes rows"),
            (true, CopyTarget::Stdin) | (false, CopyTarget::Stdout) => {
                self.push(Unknown, "COPY in an unknown direction")
            }
        }
    }

    fn function(&mut self, name: &ObjectName) {
        let Some(parts) = folded_name(name) else {
            return self.push(
                Effect::Unknown,
                format!("call of a computed function name {name}"),
            );
        };
        let (schema, function) = match parts.as_slice() {
            [function] => (None, function.as_str()),
            [schema, function] => (Some(schema.as_str()), function.as_str()),
            _ => {
                return self.push(
                    Effect::Unknown,
                    format!("call of {name} in another database"),
                )
            }
        };
        match catalog::function(function, self.dialect) {
            FunctionKind::Effect {
                effect,
                sensitive,
                what,
            } => {
                let finding = Finding::new(effect, format!("{name}() {what}"));
                self.findings.push(if sensitive {
                    finding.sensitive()
                } else {
                    finding
                });
            }
            FunctionKind::Pure
                if schema.is_none()
                    || (schema == Some("pg_catalog") && self.dialect == SqlDialect::Postgresql) => {
            }
            _ => {
                if self.policy == FunctionPolicy::AllowList {
                    self.push(
                        Effect::Unknown,
                        format!("{name}() is not a known read-only built-in; a user-defined function can do anything"),
                    );
                }
            }
        }
    }

    fn operator(&mut self, op: &BinaryOperator) {
        let builtin = match op {
            BinaryOperator::Custom(symbol) => catalog::builtin_operator(symbol),
            BinaryOperator::PGCustomBinaryOperator(parts) => matches!(
                parts.as_slice(),
                [schema, symbol] if schema == "pg_catalog" && catalog::builtin_operator(symbol)
            ),
            _ => true,
        };
        if !builtin && self.policy == FunctionPolicy::AllowList {
            self.push(
                Effect::Unknown,
                format!("operator {op} is not built in; a user-defined operator runs a function"),
            );
        }
    }
}

impl Visitor for Walker<'_> {
    type Break = ();

    fn pre_visit_statement(&mut self, stmt: &Statement) -> ControlFlow<()> {
        if self.planned == 0 {
            self.classify(stmt);
        }
        if only_planned(stmt) {
            self.planned += 1;
        }
        ControlFlow::Continue(())
    }

    fn post_visit_statement(&mut self, stmt: &Statement) -> ControlFlow<()> {
        if only_planned(stmt) {
            self.planned -= 1;
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if self.planned == 0 && !query.locks.is_empty() {
            self.push(
                Effect::Write,
                "a locking clause (FOR UPDATE/SHARE) locks rows against other sessions",
            );
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<()> {
        if self.planned == 0 && select.into.is_some() {
            let what = match self.dialect {
                SqlDialect::Postgresql => "SELECT … INTO creates a table",
                _ => "SELECT … INTO writes a table, a file or session variables",
            };
            self.push(Effect::Write, what);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        match expr {
            // `(VALUES (1))` and `ARRAY(SELECT …)` reach the AST as calls;
            // both words are reserved, so an unquoted call of either cannot
            // be a user function. Their arguments are walked all the same.
            Expr::Function(f) if is_reserved_constructor(&f.name) => {}
            Expr::Function(f) => self.function(&f.name),
            Expr::BinaryOp { op, .. } => self.operator(op),
            Expr::AnyOp { compare_op, .. } | Expr::AllOp { compare_op, .. } => {
                self.operator(compare_op)
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        match factor {
            TableFactor::Table {
                name,
                args: Some(_),
                ..
            }
            | TableFactor::Function { name, .. } => self.function(name),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<()> {
        let parts = folded_name(relation).unwrap_or_default();
        if self.credentials
            && self.planned == 0
            && catalog::credential_relation(&parts, self.dialect)
        {
            self.push(
                Effect::SensitiveRead,
                format!("reads credentials ({relation})"),
            );
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_value(&mut self, value: &ValueWithSpan) -> ControlFlow<()> {
        // PostgreSQL lexes `$1` as a parameter, never as a dollar-quote tag:
        // where the two lexers part, the inspector does not guess.
        if let Value::DollarQuotedString(s) = &value.value {
            if s.tag
                .as_ref()
                .is_some_and(|t| t.starts_with(|c: char| c.is_ascii_digit()))
            {
                self.push(
                    Effect::Unknown,
                    "a dollar-quote tag PostgreSQL would read as a parameter",
                );
            }
        }
        ControlFlow::Continue(())
    }
}

/// `EXPLAIN` without `ANALYZE` plans its statement and does not run it.
/// `ANALYZE` (or PostgreSQL's `ANALYSE`) given as an option counts unless
/// its value is plainly false.
fn only_planned(stmt: &Statement) -> bool {
    let Statement::Explain {
        analyze, options, ..
    } = stmt
    else {
        return false;
    };
    let analyze_option = options.iter().flatten().any(|o| {
        (o.name.value.eq_ignore_ascii_case("analyze")
            || o.name.value.eq_ignore_ascii_case("analyse"))
            && o.arg.as_ref().is_none_or(|arg| {
                let text = arg.to_string().trim_matches('\'').to_ascii_lowercase();
                !matches!(text.as_str(), "false" | "off" | "0" | "no")
            })
    });
    !analyze && !analyze_option
}

fn is_reserved_constructor(name: &ObjectName) -> bool {
    matches!(
        name.0.as_slice(),
        [ObjectNamePart::Identifier(ident)]
            if ident.quote_style.is_none()
                && (ident.value.eq_ignore_ascii_case("values")
                    || ident.value.eq_ignore_ascii_case("array"))
    )
}

fn read_write(modes: &[TransactionMode]) -> bool {
    modes.iter().any(|m| {
        matches!(
            m,
            TransactionMode::AccessMode(TransactionAccessMode::ReadWrite)
        )
    })
}

/// The name's parts as PostgreSQL folds them: unquoted identifiers
/// lower-cased, quoted ones verbatim. `None` for a computed part.
pub(super) fn folded_name(name: &ObjectName) -> Option<Vec<String>> {
    name.0
        .iter()
        .map(|part| match part {
            // PostgreSQL folds ASCII letters only: `\u{212A}` (KELVIN SIGN) stays.
            ObjectNamePart::Identifier(ident) if ident.quote_style.is_none() => {
                Some(ident.value.to_ascii_lowercase())
            }
            ObjectNamePart::Identifier(ident) => Some(ident.value.clone()),
            ObjectNamePart::Function(_) => None,
        })
        .collect()
}
