//! The productions of bash's grammar one shell payload exercises, read by
//! the parse the reference inspects (brush-parser, through
//! `rbv_reference::classify::shell::with_program`), and every bash builtin
//! it names as a command.
//!
//! Production names are brush-parser's own enum variants, from its AST
//! (`Command::Function`, `CompoundCommand::Coprocess`,
//! `IoFileRedirectKind::Clobber`, `IoRedirect::HereString`,
//! `ExtendedTestExpr::UnaryTest`, `UnaryPredicate::ShellVariableIsSetAndAssigned`,
//! `ArithmeticExpr::Assignment`) and from its word parser, which splits
//! each word into the expansions bash performs (`WordPiece::CommandSubstitution`,
//! `WordPiece::BackquotedCommandSubstitution`, `ParameterExpr::Transform`,
//! `ParameterTransformOp::PromptExpand`, `TildeExpr::UserHome`,
//! `BraceExpressionMember::NumberSequence`). A few forms live in a field
//! rather than a variant and are named after it (`Pipeline::piped`,
//! `Pipeline::negated`, `ParameterExpr::indirect`,
//! `IoHereDocument::expanding`, …: [`FIELDS`]). Builtins are
//! `Builtin::<name>` ([`BUILTINS`]).
//!
//! Code inside code is walked as the shell runs it: the bodies of `$(…)`
//! and backquotes, process substitutions, the words inside `${…}`
//! operators, arithmetic text (whose subscripts expand), here-document
//! bodies that expand. Strings the shell hands to a program (`bash -c`,
//! `eval`'s arguments) are data to the parser and are not walked here.

use brush_parser::ast::{
    ArithmeticExpr, ArithmeticTarget, AssignmentName, AssignmentValue, Command,
    CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, ExtendedTestExpr,
    IoFileRedirectTarget, IoRedirect, Pipeline, Program, SimpleCommand, Word,
};
use brush_parser::word::{
    BraceExpressionOrText, Parameter, ParameterExpr, WordPiece, WordPieceWithSource,
};
use brush_parser::ParserOptions;
use rbv_reference::classify::shell;
use std::collections::BTreeSet;
use std::fmt::Debug;

/// The enums of brush-parser whose every variant is a production, with
/// the source file (under the crate's `src/`) that defines each. Left out,
/// and why: the arithmetic operators (`BinaryOperator`, `UnaryOperator`,
/// `UnaryAssignmentOperator`) and the `${…}` operators' modifiers
/// (`ParameterTestType`: `:-` or `-`; `SubstringMatchKind`: `/#`, `/%`,
/// `//`), which choose an operation on values already expanded and hold
/// no code, path or host; `TestExpr`, the `test` builtin's reading of its
/// arguments after expansion, which the parser never makes of a command
/// line (`[[ … ]]` is `ExtendedTestExpr`); `ExtendedGlobKind`, which
/// brush-parser 0.4 only uses inside `pattern_to_regex_str` and makes no
/// node of (extglob patterns stay `WordPiece::Text`); and
/// `BraceExpressionOrText`, the wrapper of a brace expansion's members
/// (`BraceExpressionMember` is listed).
pub const ENUMS: &[(&str, &str)] = &[
    ("SeparatorOperator", "ast.rs"),
    ("AndOr", "ast.rs"),
    ("PipelineTimed", "ast.rs"),
    ("Command", "ast.rs"),
    ("CompoundCommand", "ast.rs"),
    ("CaseItemPostAction", "ast.rs"),
    ("CommandPrefixOrSuffixItem", "ast.rs"),
    ("ProcessSubstitutionKind", "ast.rs"),
    ("AssignmentName", "ast.rs"),
    ("AssignmentValue", "ast.rs"),
    ("IoRedirect", "ast.rs"),
    ("IoFileRedirectKind", "ast.rs"),
    ("IoFileRedirectTarget", "ast.rs"),
    ("ExtendedTestExpr", "ast.rs"),
    ("UnaryPredicate", "ast.rs"),
    ("BinaryPredicate", "ast.rs"),
    ("ArithmeticExpr", "ast.rs"),
    ("ArithmeticTarget", "ast.rs"),
    ("WordPiece", "word.rs"),
    ("TildeExpr", "word.rs"),
    ("Parameter", "word.rs"),
    ("SpecialParameter", "word.rs"),
    ("ParameterExpr", "word.rs"),
    ("ParameterTransformOp", "word.rs"),
    ("BraceExpressionMember", "word.rs"),
];

/// Forms the parser keeps in a field rather than a variant, each with the
/// struct and field the test of the list checks it has.
pub const FIELDS: &[(&str, &str, &str)] = &[
    // `a | b`: more than one command in `seq`.
    ("Pipeline::piped", "Pipeline", "seq"),
    // `! a`.
    ("Pipeline::negated", "Pipeline", "bang"),
    // `a=(…)`/`a+=x`: `+=` appends.
    ("Assignment::append", "Assignment", "append"),
    // `<<EOF`: the body expands (`$(…)` in it runs); `<<'EOF'`: it does not.
    (
        "IoHereDocument::expanding",
        "IoHereDocument",
        "requires_expansion",
    ),
    (
        "IoHereDocument::literal",
        "IoHereDocument",
        "requires_expansion",
    ),
    // `<<-EOF`.
    (
        "IoHereDocument::remove_tabs",
        "IoHereDocument",
        "remove_tabs",
    ),
    // `coproc NAME { …; }`.
    ("CoprocessCommand::named", "CoprocessCommand", "name"),
];

/// The field a `${!…}` expansion sets: the value names the variable read.
pub const INDIRECT: &str = "ParameterExpr::indirect";

/// bash's builtins, as the Bash Reference Manual lists them (edition for
/// bash 5.2: §4.1 Bourne Shell Builtins, §4.2 Bash Builtin Commands,
/// §4.3 The Set and Shopt Builtins, §6.8.1 Directory Stack Builtins, §7.2
/// Job Control Builtins, §8.7 Programmable Completion Builtins, §9.2
/// Bash History Builtins; index D.1), plus `true` and `false`, which the
/// manual's builtin chapters leave out and bash(1)'s SHELL BUILTIN
/// COMMANDS documents. `enable -a` of GNU bash 5.2.15 lists exactly
/// these 61 (harness/tests/integration/grammar_sources.rs checks it against the
/// machine's bash).
pub const BUILTINS: &[&str] = &[
    ".",
    ":",
    "[",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "declare",
    "dirs",
    "disown",
    "echo",
    "enable",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "getopts",
    "hash",
    "help",
    "history",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
];

/// The production name of builtin `name`.
pub fn builtin(name: &str) -> String {
    format!("Builtin::{name}")
}

/// The variant name of a value of a brush-parser enum, from its `Debug`
/// (derived, so it starts with the variant's name).
fn variant(value: &impl Debug) -> String {
    let text = format!("{value:?}");
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

struct Seen {
    found: BTreeSet<String>,
    options: ParserOptions,
    depth: usize,
}

/// The productions `command` exercises: nothing when the reference does
/// not parse it (it then fails safe without reading any construct).
pub fn productions(command: &str) -> BTreeSet<String> {
    let mut seen = Seen {
        found: BTreeSet::new(),
        options: ParserOptions::default(),
        depth: 0,
    };
    seen.source(command);
    seen.found
}

impl Seen {
    fn add(&mut self, family: &str, value: &impl Debug) {
        self.found.insert(format!("{family}::{}", variant(value)));
    }

    fn mark(&mut self, name: &str) {
        self.found.insert(name.to_owned());
    }

    /// Code the shell parses and runs: a payload, or the body of a
    /// command substitution, bounded as the walker bounds it.
    fn source(&mut self, text: &str) {
        if self.depth > shell::MAX_NESTED {
            return;
        }
        self.depth += 1;
        let _ = shell::with_program(text, |program: &Program| {
            for list in &program.complete_commands {
                self.list(list);
            }
        });
        self.depth -= 1;
    }

    fn list(&mut self, list: &CompoundList) {
        for item in &list.0 {
            self.add("SeparatorOperator", &item.1);
            let and_or = &item.0;
            self.pipeline(&and_or.first);
            for next in &and_or.additional {
                self.add("AndOr", next);
                let (brush_parser::ast::AndOr::And(p) | brush_parser::ast::AndOr::Or(p)) = next;
                self.pipeline(p);
            }
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline) {
        if let Some(timed) = &pipeline.timed {
            self.add("PipelineTimed", timed);
        }
        if pipeline.bang {
            self.mark("Pipeline::negated");
        }
        if pipeline.seq.len() > 1 {
            self.mark("Pipeline::piped");
        }
        for command in &pipeline.seq {
            self.command(command);
        }
    }

    fn command(&mut self, command: &Command) {
        self.add("Command", command);
        match command {
            Command::Simple(simple) => self.simple(simple),
            Command::Compound(compound, redirects) => {
                self.compound(compound);
                for r in redirects.iter().flat_map(|r| &r.0) {
                    self.redirect(r);
                }
            }
            Command::Function(definition) => {
                self.word(&definition.fname);
                self.compound(&definition.body.0);
                for r in definition.body.1.iter().flat_map(|r| &r.0) {
                    self.redirect(r);
                }
            }
            Command::ExtendedTest(test, redirects) => {
                self.test(&test.expr);
                for r in redirects.iter().flat_map(|r| &r.0) {
                    self.redirect(r);
                }
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand) {
        self.add("CompoundCommand", compound);
        match compound {
            CompoundCommand::Arithmetic(a) => self.arithmetic(&a.expr.value),
            CompoundCommand::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&e.value);
                }
                self.list(&f.body.list);
            }
            CompoundCommand::BraceGroup(b) => self.list(&b.list),
            CompoundCommand::Subshell(s) => self.list(&s.list),
            CompoundCommand::ForClause(f) => {
                for w in f.values.iter().flatten() {
                    self.word(w);
                }
                self.list(&f.body.list);
            }
            CompoundCommand::CaseClause(c) => {
                self.word(&c.value);
                for item in &c.cases {
                    for p in &item.patterns {
                        self.word(p);
                    }
                    if let Some(body) = &item.cmd {
                        self.list(body);
                    }
                    self.add("CaseItemPostAction", &item.post_action);
                }
            }
            CompoundCommand::IfClause(i) => {
                self.list(&i.condition);
                self.list(&i.then);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.list(c);
                    }
                    self.list(&e.body);
                }
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                self.list(&w.0);
                self.list(&w.1.list);
            }
            CompoundCommand::Coprocess(c) => {
                if let Some(name) = &c.name {
                    self.mark("CoprocessCommand::named");
                    self.word(name);
                }
                self.command(&c.body);
            }
        }
    }

    fn simple(&mut self, simple: &SimpleCommand) {
        if let Some(name) = &simple.word_or_name {
            if let Some(text) = self.literal(&name.value) {
                if BUILTINS.contains(&text.as_str()) {
                    self.found.insert(builtin(&text));
                }
            }
            self.word(name);
        }
        let prefix = simple.prefix.iter().flat_map(|p| &p.0);
        let suffix = simple.suffix.iter().flat_map(|s| &s.0);
        for item in prefix.chain(suffix) {
            self.add("CommandPrefixOrSuffixItem", item);
            match item {
                CommandPrefixOrSuffixItem::IoRedirect(r) => self.redirect(r),
                CommandPrefixOrSuffixItem::Word(w) => self.word(w),
                CommandPrefixOrSuffixItem::AssignmentWord(a, _) => {
                    self.add("AssignmentName", &a.name);
                    self.add("AssignmentValue", &a.value);
                    if a.append {
                        self.mark("Assignment::append");
                    }
                    if let AssignmentName::ArrayElementName(_, index) = &a.name {
                        // An indexed array's subscript is arithmetic.
                        self.arithmetic(index);
                    }
                    match &a.value {
                        AssignmentValue::Scalar(w) => self.word(w),
                        AssignmentValue::Array(elements) => {
                            for (key, value) in elements {
                                if let Some(k) = key {
                                    self.word(k);
                                }
                                self.word(value);
                            }
                        }
                    }
                }
                CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                    self.add("ProcessSubstitutionKind", kind);
                    self.list(&sub.list);
                }
            }
        }
    }

    /// The word's text when no expansion decides it (quotes and escapes
    /// removed), as a command name is looked up.
    fn literal(&self, raw: &str) -> Option<String> {
        fn text(pieces: &[WordPieceWithSource], out: &mut String) -> Option<()> {
            for p in pieces {
                match &p.piece {
                    WordPiece::Text(t) | WordPiece::SingleQuotedText(t) => out.push_str(t),
                    WordPiece::EscapeSequence(e) => out.push_str(e.strip_prefix('\\').unwrap_or(e)),
                    WordPiece::DoubleQuotedSequence(inner) => text(inner, out)?,
                    _ => return None,
                }
            }
            Some(())
        }
        let pieces = brush_parser::word::parse(raw, &self.options).ok()?;
        let mut out = String::new();
        text(&pieces, &mut out).map(|()| out)
    }

    fn redirect(&mut self, redirect: &IoRedirect) {
        self.add("IoRedirect", redirect);
        match redirect {
            IoRedirect::File(_, kind, target) => {
                self.add("IoFileRedirectKind", kind);
                self.add("IoFileRedirectTarget", target);
                match target {
                    IoFileRedirectTarget::Filename(w) | IoFileRedirectTarget::Duplicate(w) => {
                        self.word(w)
                    }
                    IoFileRedirectTarget::Fd(_) => {}
                    IoFileRedirectTarget::ProcessSubstitution(kind, sub) => {
                        self.add("ProcessSubstitutionKind", kind);
                        self.list(&sub.list);
                    }
                }
            }
            IoRedirect::HereDocument(_, doc) => {
                if doc.remove_tabs {
                    self.mark("IoHereDocument::remove_tabs");
                }
                if doc.requires_expansion {
                    self.mark("IoHereDocument::expanding");
                    if let Ok(pieces) =
                        brush_parser::word::parse_heredoc(&doc.doc.value, &self.options)
                    {
                        self.pieces(&pieces);
                    }
                } else {
                    self.mark("IoHereDocument::literal");
                }
            }
            IoRedirect::HereString(_, w) | IoRedirect::OutputAndError(w, _) => self.word(w),
        }
    }

    fn test(&mut self, test: &ExtendedTestExpr) {
        self.add("ExtendedTestExpr", test);
        match test {
            ExtendedTestExpr::And(l, r) | ExtendedTestExpr::Or(l, r) => {
                self.test(l);
                self.test(r);
            }
            ExtendedTestExpr::Not(e) | ExtendedTestExpr::Parenthesized(e) => self.test(e),
            ExtendedTestExpr::UnaryTest(p, w) => {
                self.add("UnaryPredicate", p);
                self.word(w);
            }
            ExtendedTestExpr::BinaryTest(p, l, r) => {
                self.add("BinaryPredicate", p);
                self.word(l);
                self.word(r);
            }
        }
    }

    /// A word as the shell expands it: its pieces, and the brace
    /// expansions of its text.
    fn word(&mut self, word: &Word) {
        self.text(&word.value);
    }

    fn text(&mut self, raw: &str) {
        if let Ok(pieces) = brush_parser::word::parse(raw, &self.options) {
            self.pieces(&pieces);
        }
        if let Ok(Some(braces)) = brush_parser::word::parse_brace_expansions(raw, &self.options) {
            self.braces(&braces);
        }
    }

    fn braces(&mut self, items: &[BraceExpressionOrText]) {
        for item in items {
            if let BraceExpressionOrText::Expr(members) = item {
                for m in members {
                    self.add("BraceExpressionMember", m);
                    if let brush_parser::word::BraceExpressionMember::Child(inner) = m {
                        self.braces(inner);
                    }
                }
            }
        }
    }

    fn pieces(&mut self, pieces: &[WordPieceWithSource]) {
        for p in pieces {
            self.add("WordPiece", &p.piece);
            match &p.piece {
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => self.pieces(inner),
                WordPiece::TildeExpansion(t) => self.add("TildeExpr", t),
                WordPiece::ParameterExpansion(e) => self.parameter_expr(e),
                WordPiece::CommandSubstitution(body) => self.source(body),
                WordPiece::BackquotedCommandSubstitution(body) => {
                    self.source(&unescape_backquoted(body))
                }
                WordPiece::ArithmeticExpression(e) => self.arithmetic(&e.value),
                WordPiece::Text(_)
                | WordPiece::SingleQuotedText(_)
                | WordPiece::AnsiCQuotedText(_)
                | WordPiece::EscapeSequence(_) => {}
            }
        }
    }

    fn parameter_expr(&mut self, expr: &ParameterExpr) {
        self.add("ParameterExpr", expr);
        use ParameterExpr as E;
        // The parameter read, whether `${!…}` reads it indirectly, and the
        // words (defaults, patterns, replacements) and arithmetic
        // (offsets) the operator expands.
        let (parameter, indirect, words, arithmetic): (_, _, Vec<&String>, Vec<&String>) =
            match expr {
                E::Parameter {
                    parameter,
                    indirect,
                }
                | E::ParameterLength {
                    parameter,
                    indirect,
                }
                | E::Transform {
                    parameter,
                    indirect,
                    ..
                } => (Some(parameter), *indirect, vec![], vec![]),
                E::UseDefaultValues {
                    parameter,
                    indirect,
                    default_value: w,
                    ..
                }
                | E::AssignDefaultValues {
                    parameter,
                    indirect,
                    default_value: w,
                    ..
                }
                | E::IndicateErrorIfNullOrUnset {
                    parameter,
                    indirect,
                    error_message: w,
                    ..
                }
                | E::UseAlternativeValue {
                    parameter,
                    indirect,
                    alternative_value: w,
                    ..
                }
                | E::RemoveSmallestSuffixPattern {
                    parameter,
                    indirect,
                    pattern: w,
                }
                | E::RemoveLargestSuffixPattern {
                    parameter,
                    indirect,
                    pattern: w,
                }
                | E::RemoveSmallestPrefixPattern {
                    parameter,
                    indirect,
                    pattern: w,
                }
                | E::RemoveLargestPrefixPattern {
                    parameter,
                    indirect,
                    pattern: w,
                }
                | E::UppercaseFirstChar {
                    parameter,
                    indirect,
                    pattern: w,
                }
                | E::UppercasePattern {
                    parameter,
                    indirect,
                    pattern: w,
                }
                | E::LowercaseFirstChar {
                    parameter,
                    indirect,
                    pattern: w,
                }
                | E::LowercasePattern {
                    parameter,
                    indirect,
                    pattern: w,
                } => (Some(parameter), *indirect, w.iter().collect(), vec![]),
                E::Substring {
                    parameter,
                    indirect,
                    offset,
                    length,
                } => (
                    Some(parameter),
                    *indirect,
                    vec![],
                    std::iter::once(&offset.value)
                        .chain(length.iter().map(|l| &l.value))
                        .collect(),
                ),
                E::ReplaceSubstring {
                    parameter,
                    indirect,
                    pattern,
                    replacement,
                    ..
                } => (
                    Some(parameter),
                    *indirect,
                    std::iter::once(pattern).chain(replacement).collect(),
                    vec![],
                ),
                E::VariableNames { .. } | E::MemberKeys { .. } => (None, false, vec![], vec![]),
            };
        if let E::Transform { op, .. } = expr {
            self.add("ParameterTransformOp", op);
        }
        if indirect {
            self.mark(INDIRECT);
        }
        if let Some(p) = parameter {
            self.add("Parameter", p);
            match p {
                Parameter::Special(s) => self.add("SpecialParameter", s),
                // An indexed array's subscript is arithmetic.
                Parameter::NamedWithIndex { index, .. } => self.arithmetic(index),
                _ => {}
            }
        }
        for w in words {
            self.text(w);
        }
        for a in arithmetic {
            self.arithmetic(a);
        }
    }

    /// Arithmetic text: its expansions (which run before it is
    /// evaluated), then its expression when it parses as one.
    fn arithmetic(&mut self, text: &str) {
        if let Ok(pieces) = brush_parser::word::parse(text, &self.options) {
            for p in &pieces {
                // The text between expansions is the expression itself, not
                // a word of the command line.
                if !matches!(p.piece, WordPiece::Text(_)) {
                    self.pieces(std::slice::from_ref(p));
                }
            }
        }
        if let Ok(expr) = brush_parser::arithmetic::parse(text) {
            self.arithmetic_expr(&expr);
        }
    }

    fn arithmetic_expr(&mut self, expr: &ArithmeticExpr) {
        self.add("ArithmeticExpr", expr);
        match expr {
            ArithmeticExpr::Literal(_) => {}
            ArithmeticExpr::Reference(t) | ArithmeticExpr::UnaryAssignment(_, t) => {
                self.arithmetic_target(t)
            }
            ArithmeticExpr::UnaryOp(_, e) => self.arithmetic_expr(e),
            ArithmeticExpr::BinaryOp(_, l, r) => {
                self.arithmetic_expr(l);
                self.arithmetic_expr(r);
            }
            ArithmeticExpr::Conditional(c, t, f) => {
                self.arithmetic_expr(c);
                self.arithmetic_expr(t);
                self.arithmetic_expr(f);
            }
            ArithmeticExpr::Assignment(t, e) | ArithmeticExpr::BinaryAssignment(_, t, e) => {
                self.arithmetic_target(t);
                self.arithmetic_expr(e);
            }
        }
    }

    fn arithmetic_target(&mut self, target: &ArithmeticTarget) {
        self.add("ArithmeticTarget", target);
        if let ArithmeticTarget::ArrayElement(_, index) = target {
            self.arithmetic_expr(index);
        }
    }
}

/// Inside backquotes `\\`, `` \` `` and `\$` lose their backslash before
/// the body is parsed (bash(1), Command Substitution).
fn unescape_backquoted(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&n) = chars.peek() {
                if matches!(n, '\\' | '`' | '$') {
                    out.push(n);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(command: &str, names: &[&str]) {
        let seen = productions(command);
        for name in names {
            assert!(seen.contains(*name), "{name} not in {seen:?} of {command}");
        }
    }

    #[test]
    fn compound_commands_lists_and_pipelines_are_seen() {
        has(
            "f() { ! a | b && c || d & } ; while x; do y; done; coproc w { z; }",
            &[
                "Command::Function",
                "CompoundCommand::BraceGroup",
                "Pipeline::negated",
                "Pipeline::piped",
                "AndOr::And",
                "AndOr::Or",
                "SeparatorOperator::Async",
                "CompoundCommand::WhileClause",
                "CompoundCommand::Coprocess",
                "CoprocessCommand::named",
            ],
        );
    }

    #[test]
    fn expansions_inside_expansions_are_seen() {
        has(
            "echo ${x:-$(id `whoami`)} \"$((a[1] + 1))\" $(($(b))) ~root {1..3} ${!p} ${y@P}",
            &[
                "ParameterExpr::UseDefaultValues",
                "WordPiece::CommandSubstitution",
                "WordPiece::BackquotedCommandSubstitution",
                "WordPiece::DoubleQuotedSequence",
                "WordPiece::ArithmeticExpression",
                "ArithmeticExpr::BinaryOp",
                "ArithmeticTarget::ArrayElement",
                "TildeExpr::UserHome",
                "BraceExpressionMember::NumberSequence",
                "ParameterExpr::indirect",
                "ParameterTransformOp::PromptExpand",
                "Builtin::echo",
            ],
        );
        // The substitution's own commands are walked: `id` is no builtin,
        // `pwd` inside backquotes inside `$(…)` is.
        has(
            "x=$(echo `pwd`)",
            &["Builtin::pwd", "AssignmentValue::Scalar"],
        );
    }

    #[test]
    fn redirections_here_documents_and_tests_are_seen() {
        has(
            "cat <<-'E' >| o 2>&1 <<< s < <(x) &>> l\n\tbody $(not run)\nE\n[[ -v a && $n -eq 1 ]]",
            &[
                "IoHereDocument::remove_tabs",
                "IoHereDocument::literal",
                "IoFileRedirectKind::Clobber",
                "IoFileRedirectKind::DuplicateOutput",
                "IoRedirect::HereString",
                "IoFileRedirectTarget::ProcessSubstitution",
                "IoRedirect::OutputAndError",
                "UnaryPredicate::ShellVariableIsSetAndAssigned",
                "BinaryPredicate::ArithmeticEqualTo",
                "ExtendedTestExpr::And",
            ],
        );
        // A quoted here-document's body does not expand: nothing in it runs.
        let seen = productions("cat <<'E'\n$(pwd)\nE\n");
        assert!(!seen.contains("WordPiece::CommandSubstitution"), "{seen:?}");
        assert!(!seen.contains("Builtin::pwd"), "{seen:?}");
        has(
            "cat <<E\n$(pwd)\nE\n",
            &["IoHereDocument::expanding", "Builtin::pwd"],
        );
    }

    #[test]
    fn a_builtin_is_a_command_name_not_an_argument_and_quotes_do_not_hide_it() {
        let seen = productions("ls eval; 'ev'al x");
        assert!(seen.contains("Builtin::eval"), "{seen:?}");
        let seen = productions("ls eval; $e x");
        assert!(!seen.contains("Builtin::eval"), "{seen:?}");
    }

    #[test]
    fn an_unparseable_payload_exercises_nothing() {
        assert_eq!(productions("echo $("), BTreeSet::new());
        assert_eq!(productions("if then fi"), BTreeSet::new());
    }
}
