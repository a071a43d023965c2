//! The walk over a parsed program: every command that runs, with the code
//! its words, redirections and here-documents run on the way.

use std::collections::HashMap;

use brush_parser::ast::{
    AndOr, AndOrList, BinaryPredicate, Command, CommandPrefixOrSuffixItem, CompoundCommand,
    CompoundList, ExtendedTestExpr, FunctionBody, IoFileRedirectKind, IoFileRedirectTarget,
    IoRedirect, Pipeline, Program, SimpleCommand, UnaryPredicate, Word,
};
use brush_parser::ParserOptions;

use super::arith;
use super::place::{self, Place};
use super::positional;
use super::word::{self, Arg, Embedded, Evaluation};
use super::{
    destroy, external, guard, join_all, programs, read, secrets, sensitive, unknown, write,
};
use crate::classify::Inspection;
use crate::mutant::Mutant;
use rbv_protocol::Reversibility;

/// Where a command's standard input comes from; it matters when the
/// command is an interpreter that reads its program from stdin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stdin {
    /// The session's own input (a terminal, or nothing).
    Inherited,
    /// The output of the previous command of a pipeline.
    Pipe,
    /// A here-document or here-string; `None` when expansion makes its text unknowable.
    Text(Option<String>),
    /// A file (`< script`).
    File,
}

/// Walks programs; keeps what code-inside-code needs.
pub struct Walker {
    pub options: ParserOptions,
    depth: usize,
    /// Functions defined so far: a call runs the body with the call's words.
    functions: HashMap<String, FunctionBody>,
    /// The positional parameters of the function whose body is walked for
    /// a call (`None`: not in a call, or unknown after a `shift` by a count
    /// known only at run time; a reference then reads as unknown).
    positional: Option<Vec<Arg>>,
    /// The functions whose calls are being walked, innermost last.
    calling: Vec<String>,
    /// Calls walked so far: each walks a body again, so a chain of
    /// functions that call each other twice would double per link.
    calls: usize,
    /// The planted defect the inspection reproduces, if any.
    pub mutant: Option<Mutant>,
    /// Inside a command that `find -exec`, `xargs` or `fd -x` run once per
    /// file found: a per-file change there covers a whole tree.
    pub many_files: bool,
    /// Where `cd`/`pushd` moved the shell, when that is outside the
    /// workspace as far as the default rule can tell (`None`: the
    /// workspace, or an absolute directory that may be it).
    pub cwd: Option<Place>,
    /// The directory stack and `OLDPWD` by the default rule, as `cwd`
    /// reads them.
    pub dirs: place::Dirs<Option<Place>>,
    /// The workspace the client declared, if any: paths resolve against
    /// it instead of the default rule (`cwd` then says only whether the
    /// shell is outside its root).
    pub declared: Option<place::Declared>,
    /// Variables this command line set: their value when it is literal,
    /// `None` when an expansion decides it.
    vars: std::collections::HashMap<String, Option<String>>,
    /// Remotes this command line added (`git remote add NAME ADDRESS`):
    /// a later fetch or push of NAME contacts ADDRESS.
    remotes: std::collections::HashMap<String, Arg>,
    /// The string `find -exec` (`{}`) or `xargs -I R` replaces with names
    /// read at run time in the arguments of the command it runs.
    replaced: Option<String>,
}

impl Walker {
    /// A walker for a command run in a declared workspace (`None`: the
    /// default rule).
    pub fn in_workspace(declared: Option<place::Declared>, mutant: Option<Mutant>) -> Self {
        let mut w = Walker {
            options: ParserOptions::default(),
            depth: 0,
            functions: HashMap::new(),
            positional: None,
            calling: Vec::new(),
            calls: 0,
            mutant,
            many_files: false,
            cwd: None,
            dirs: place::Dirs::default(),
            declared,
            vars: std::collections::HashMap::new(),
            remotes: std::collections::HashMap::new(),
            replaced: None,
        };
        w.moved();
        w
    }

    /// Keeps `cwd` in step with the declared workspace after the shell
    /// moved: outside the root, project tools run code nobody vouches for.
    pub fn moved(&mut self) {
        if let Some(d) = &self.declared {
            self.cwd = Some(d.here()).filter(|p| *p != Place::Workspace);
        }
    }

    /// Where `path` lies: resolved in the declared workspace, or by the
    /// default rule from the directory `cd` entered.
    pub fn place(&self, path: &Arg) -> Place {
        // A brace pattern names every word it expands to: the path lies
        // where the worst of them does (`tee -a {notes.txt,/etc/hosts}`).
        if path.pattern {
            if let Some(words) = word::brace_words(&path.text, &self.options) {
                return words
                    .into_iter()
                    .map(|text| {
                        self.place_of(&Arg {
                            text,
                            resolved: path.resolved,
                            pattern: true,
                        })
                    })
                    .max_by_key(|p| caution(*p))
                    .unwrap_or(Place::Unknown);
            }
        }
        self.place_of(path)
    }

    fn place_of(&self, path: &Arg) -> Place {
        // `${out:-/etc/hosts}`: the value may be the default word.
        if let Some(text) = word::default_word(&path.text) {
            let default = Arg {
                text,
                resolved: false,
                pattern: path.pattern,
            };
            return [Place::Unknown, self.place(&default)]
                .into_iter()
                .max_by_key(|p| caution(*p))
                .unwrap_or(Place::Unknown);
        }
        match &self.declared {
            Some(d) => d.place(path),
            None => place::from(path, self.cwd),
        }
    }

    /// Whether the planted defect `m` is active.
    pub fn planted(&self, m: Mutant) -> bool {
        self.mutant == Some(m)
    }

    /// Inspects shell source text at the current depth, on a stack with
    /// room for its nesting: the current one when enough is left, else a
    /// fresh segment (nested code checks again at its own level).
    pub fn source(&mut self, text: &str) -> Inspection {
        let openers = match guard::check(text) {
            Ok(openers) => openers,
            Err(refusal) => return unknown(format!("not inspected: {refusal}")),
        };
        let needed = guard::stack_needed(openers);
        stacker::maybe_grow(needed, needed, || self.parse_and_walk(text))
    }

    fn parse_and_walk(&mut self, text: &str) -> Inspection {
        let mut parser =
            brush_parser::Parser::new(std::io::Cursor::new(text.as_bytes()), &self.options);
        match parser.parse_program() {
            Err(e) => unknown(format!("unparseable shell (fails safe): {e}")),
            Ok(program) => {
                let mut out = Vec::new();
                self.program(&program, &mut out);
                join_all(out).unwrap_or_else(|| read("no command"))
            }
        }
    }

    /// Inspects code that runs inside the command (`bash -c`, `$(…)`,
    /// `eval`, …), in its own shell: functions defined there stay there.
    pub fn nested(&mut self, text: &str) -> Inspection {
        if self.depth >= guard::MAX_DEPTH {
            return unknown(format!("not inspected: {}", guard::Refusal::Deep));
        }
        // findutils' manual: `-exec` replaces `{}` "everywhere it occurs
        // in the arguments"; xargs' `-I R` replaces R "in the initial
        // arguments". In an argument that runs as code, a file name or
        // input line becomes code (`find -exec sh -c 'cat {}'`, a file
        // named `$(rm -rf ~)`): what runs is known only at run time.
        if let Some(r) = self.replaced.as_deref() {
            if text.contains(r) && !self.planted(Mutant::ReplacementAsData) {
                return unknown(format!(
                    "`{r}` in code is replaced by names read at run time: they run as code"
                ));
            }
        }
        let replaced = self.replaced.take();
        let saved = self.functions.clone();
        let cwd = self.cwd;
        let dirs = self.dirs.clone();
        let declared = self.declared.clone();
        self.depth += 1;
        let found = self.source(text);
        self.depth -= 1;
        self.functions = saved;
        self.cwd = cwd;
        self.dirs = dirs;
        self.declared = declared;
        self.replaced = replaced;
        found
    }

    /// Runs `f` for a command whose arguments get `replaced` (the
    /// replacement string of `find -exec` or `xargs -I`) substituted.
    pub fn replacing<T>(&mut self, replaced: Option<String>, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.replaced, replaced);
        let found = f(self);
        self.replaced = saved;
        found
    }

    /// Runs `f` for a command run once per file found.
    pub fn per_file<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.many_files, true);
        let found = f(self);
        self.many_files = saved;
        found
    }

    /// Records a `NAME=value` the shell itself keeps (an assignment
    /// alone, `export`, `declare`, `local`, …).
    pub fn set_var(&mut self, arg: &Arg) {
        if let Some((name, value)) = programs::env_assignment(&arg.text) {
            let value = arg.resolved.then(|| value.to_owned());
            self.vars.insert(name.to_owned(), value);
        }
    }

    /// Records that the remote `name` now stands for `address`; a name
    /// known only at run time may be any remote, so every later use of a
    /// remote is judged by that address (`add` keeps an existing name's
    /// address: git refuses to add it twice).
    pub fn add_remote(&mut self, name: &Arg, address: &Arg, add: bool) {
        let key = if name.resolved {
            name.text.clone()
        } else {
            String::new()
        };
        if add && self.remotes.contains_key(&key) {
            return;
        }
        self.remotes.insert(key, address.clone());
    }

    /// The address a remote this command line added stands for.
    pub fn remote_address(&self, name: &str) -> Option<&Arg> {
        self.remotes.get(name).or_else(|| self.remotes.get(""))
    }

    /// The names of the remotes this command line pointed at an address
    /// (`""` for one whose name is known only at run time).
    pub fn remote_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.remotes.keys().cloned().collect();
        names.sort();
        names
    }

    /// Points `name` at `address` (or forgets it), handing back what it
    /// stood for: for `git -c remote.NAME.url=…`, which holds for one git
    /// command only.
    pub fn swap_remote(&mut self, name: &str, address: Option<Arg>) -> Option<Arg> {
        match address {
            Some(address) => self.remotes.insert(name.to_owned(), address),
            None => self.remotes.remove(name),
        }
    }

    pub fn is_function(&self, name: &str) -> bool {
        self.functions.contains_key(name)
    }

    fn program(&mut self, program: &Program, out: &mut Vec<Inspection>) {
        for list in &program.complete_commands {
            self.list(list, out);
        }
    }

    fn list(&mut self, list: &CompoundList, out: &mut Vec<Inspection>) {
        for item in &list.0 {
            self.and_or(&item.0, out);
        }
    }

    fn and_or(&mut self, list: &AndOrList, out: &mut Vec<Inspection>) {
        self.pipeline(&list.first, out);
        for next in &list.additional {
            let (AndOr::And(p) | AndOr::Or(p)) = next;
            self.pipeline(p, out);
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline, out: &mut Vec<Inspection>) {
        for (i, command) in pipeline.seq.iter().enumerate() {
            self.command(command, i > 0, out);
        }
    }

    fn command(&mut self, command: &Command, piped: bool, out: &mut Vec<Inspection>) {
        let mut stdin = if piped { Stdin::Pipe } else { Stdin::Inherited };
        match command {
            Command::Simple(simple) => self.simple(simple, stdin, out),
            Command::Compound(compound, redirects) => {
                self.compound(compound, out);
                for r in redirects.iter().flat_map(|r| &r.0) {
                    self.redirect(r, &mut stdin, out);
                }
            }
            Command::Function(def) => {
                // A definition runs nothing, but its body may run later:
                // inspect it now, and let calls to it add nothing more.
                let name = self.word(&def.fname, out);
                self.functions.insert(name.text, def.body.clone());
                self.compound(&def.body.0, out);
                for r in def.body.1.iter().flat_map(|r| &r.0) {
                    self.redirect(r, &mut stdin, out);
                }
            }
            Command::ExtendedTest(test, redirects) => {
                self.test(&test.expr, out);
                for r in redirects.iter().flat_map(|r| &r.0) {
                    self.redirect(r, &mut stdin, out);
                }
            }
        }
    }

    fn test(&mut self, expr: &ExtendedTestExpr, out: &mut Vec<Inspection>) {
        match expr {
            ExtendedTestExpr::And(a, b) | ExtendedTestExpr::Or(a, b) => {
                self.test(a, out);
                self.test(b, out);
            }
            ExtendedTestExpr::Not(e) | ExtendedTestExpr::Parenthesized(e) => self.test(e, out),
            ExtendedTestExpr::UnaryTest(p, w) => {
                let arg = self.word(w, out);
                // `-v a[…]`: the subscript of the name tested is arithmetic.
                if matches!(
                    p,
                    UnaryPredicate::ShellVariableIsSetAndAssigned
                        | UnaryPredicate::ShellVariableIsSetAndNameRef
                ) {
                    match arith::subscript(&arg.text) {
                        Some(s) => self.arithmetic(s, out),
                        // A name from an expansion is evaluated as a name.
                        None if !arg.resolved => self.arithmetic(&arg.text, out),
                        None => {}
                    }
                }
            }
            ExtendedTestExpr::BinaryTest(p, a, b) => {
                let a = self.word(a, out);
                let b = self.word(b, out);
                if matches!(
                    p,
                    BinaryPredicate::ArithmeticEqualTo
                        | BinaryPredicate::ArithmeticNotEqualTo
                        | BinaryPredicate::ArithmeticLessThan
                        | BinaryPredicate::ArithmeticLessThanOrEqualTo
                        | BinaryPredicate::ArithmeticGreaterThan
                        | BinaryPredicate::ArithmeticGreaterThanOrEqualTo
                ) {
                    self.arithmetic(&a.text, out);
                    self.arithmetic(&b.text, out);
                }
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand, out: &mut Vec<Inspection>) {
        match compound {
            CompoundCommand::Arithmetic(a) => {
                self.embedded_text(&a.expr.value, out);
                self.embedded(word::arithmetic_names(&a.expr.value), out);
            }
            CompoundCommand::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.embedded_text(&e.value, out);
                    self.embedded(word::arithmetic_names(&e.value), out);
                }
                self.list(&f.body.list, out);
            }
            CompoundCommand::BraceGroup(b) => self.list(&b.list, out),
            CompoundCommand::Subshell(s) => self.list(&s.list, out),
            CompoundCommand::ForClause(f) => {
                for w in f.values.iter().flatten() {
                    self.word(w, out);
                }
                self.list(&f.body.list, out);
            }
            CompoundCommand::CaseClause(c) => {
                self.word(&c.value, out);
                for item in &c.cases {
                    for p in &item.patterns {
                        self.word(p, out);
                    }
                    if let Some(cmd) = &item.cmd {
                        self.list(cmd, out);
                    }
                }
            }
            CompoundCommand::IfClause(i) => {
                self.list(&i.condition, out);
                self.list(&i.then, out);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.list(c, out);
                    }
                    self.list(&e.body, out);
                }
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                self.list(&w.0, out);
                self.list(&w.1.list, out);
            }
            CompoundCommand::Coprocess(c) => self.command(&c.body, false, out),
        }
    }

    fn simple(&mut self, simple: &SimpleCommand, mut stdin: Stdin, out: &mut Vec<Inspection>) {
        let mut argv = Vec::new();
        let mut redirects = Vec::new();
        let prefix = simple.prefix.iter().flat_map(|p| &p.0);
        let suffix = simple.suffix.iter().flat_map(|s| &s.0);
        let mut in_prefix = true;
        let name = simple.word_or_name.iter();
        for item in prefix
            .map(Some)
            .chain(name.map(|_| None))
            .chain(suffix.map(Some))
        {
            let Some(item) = item else {
                if let Some(w) = &simple.word_or_name {
                    argv.extend(self.words(w, out));
                }
                in_prefix = false;
                continue;
            };
            match item {
                // Inline assignments set shell variables; no variable lowers
                // anything (§4.1), but their values still expand.
                CommandPrefixOrSuffixItem::AssignmentWord(_, w) if in_prefix => {
                    let assigned = self.word(w, out);
                    // `a[…]=v`: an indexed array's subscript is arithmetic.
                    if let Some(s) = arith::subscript(&assigned.text) {
                        self.arithmetic(s, out);
                    }
                    out.extend(programs::assignment(self, &assigned));
                    if simple.word_or_name.is_none() {
                        self.set_var(&assigned);
                    }
                }
                CommandPrefixOrSuffixItem::AssignmentWord(_, w)
                | CommandPrefixOrSuffixItem::Word(w) => argv.extend(self.words(w, out)),
                CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(r),
                CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                    self.list(&sub.list, out);
                    argv.push(Arg::literal("/dev/fd/63"));
                }
            }
        }
        for r in redirects {
            self.redirect(r, &mut stdin, out);
        }
        if let Some((first, rest)) = argv.split_first() {
            if first.resolved {
                for operand in arith::operands(&first.text, rest) {
                    let (arith::Reading::Expression(t) | arith::Reading::Subscript(t)) = operand;
                    self.arithmetic(t, out);
                }
            }
        }
        if let Some((first, rest)) = argv.split_first() {
            self.rebind(first, rest);
            if first.resolved && self.is_function(&first.text) {
                let found = self.call(&first.text, rest);
                out.push(found);
            } else {
                let found = programs::classify(self, &argv, &stdin);
                out.push(found);
            }
        } else if out.is_empty() {
            out.push(read("sets shell variables only"));
        }
    }

    /// The words a word of a command becomes: several when it is `"$@"`
    /// or an unquoted positional reference in a function's body.
    fn words(&mut self, w: &Word, out: &mut Vec<Inspection>) -> Vec<Arg> {
        if !self.planted(Mutant::PositionalUnbound) {
            if let Some(args) = &self.positional {
                if let Some(spread) = positional::spread(&w.value, args) {
                    return spread;
                }
            }
        }
        vec![self.word(w, out)]
    }

    /// `shift` and `set --` change the positional parameters later words
    /// of the body read.
    fn rebind(&mut self, first: &Arg, rest: &[Arg]) {
        match first.value() {
            Some("shift") => {
                if let Some(args) = &self.positional {
                    self.positional = positional::shifted(args, rest.first());
                }
            }
            Some("set") => {
                let options = rest.iter().take_while(|a| a.text != "--");
                if options.clone().count() < rest.len()
                    && options
                        .clone()
                        .all(|a| a.resolved && a.text.starts_with(['-', '+']))
                {
                    self.positional = Some(rest[options.count() + 1..].to_vec());
                }
            }
            _ => {}
        }
    }

    /// A call of a function defined earlier: bash runs its body with the
    /// call's words as positional parameters (bash manual §3.3), so the
    /// body is walked again with them bound. A recursive call with words
    /// is judged unknown: what each level receives is computed at run time.
    fn call(&mut self, name: &str, args: &[Arg]) -> Inspection {
        if self.planted(Mutant::PositionalUnbound) {
            return read(format!("calls the function `{name}` (body inspected)"));
        }
        if self.calling.iter().any(|c| c == name) {
            return if args.is_empty() {
                read(format!(
                    "calls the function `{name}` again (body inspected)"
                ))
            } else {
                unknown(format!(
                    "`{name}` calls itself with words computed at run time"
                ))
            };
        }
        if self.calls >= guard::MAX_CALLS {
            return unknown(format!(
                "not inspected: more than {} function calls",
                guard::MAX_CALLS
            ));
        }
        self.calls += 1;
        let Some(body) = self.functions.get(name).cloned() else {
            return unknown(format!("the function `{name}` is not known"));
        };
        let saved = self.positional.replace(args.to_vec());
        self.calling.push(name.to_owned());
        let mut found = Vec::new();
        let mut stdin = Stdin::Inherited;
        self.compound(&body.0, &mut found);
        for r in body.1.iter().flat_map(|r| &r.0) {
            self.redirect(r, &mut stdin, &mut found);
        }
        self.calling.pop();
        self.positional = saved;
        let mut joined =
            join_all(found).unwrap_or_else(|| read(format!("calls the function `{name}`")));
        joined
            .reasons
            .push(format!("(in the function `{name}`, with the call's words)"));
        joined
    }

    /// Reads a word; the code it runs while expanding is inspected into `out`.
    pub fn word(&mut self, w: &Word, out: &mut Vec<Inspection>) -> Arg {
        let bound = match &self.positional {
            Some(args) if !self.planted(Mutant::PositionalUnbound) => {
                positional::bind(&w.value, args)
            }
            _ => None,
        };
        let raw = bound.as_deref().unwrap_or(&w.value);
        match word::read(raw, &self.options) {
            Ok((arg, embedded)) => {
                self.embedded(embedded, out);
                arg
            }
            Err(e) => {
                out.push(unknown(format!("unparseable word `{raw}`: {e}")));
                Arg {
                    text: raw.to_owned(),
                    resolved: false,
                    pattern: false,
                }
            }
        }
    }

    /// Text bash evaluates as arithmetic (`arith`): the code in it runs
    /// before it is evaluated, and the names in it are evaluated in turn.
    fn arithmetic(&mut self, text: &str, out: &mut Vec<Inspection>) {
        // The planted defect reads every arithmetic operand as data.
        if self.planted(Mutant::ExpansionCodeBlind) {
            return;
        }
        self.embedded_text(text, out);
        self.embedded(word::arithmetic_names(text), out);
    }

    /// The code a text runs when bash expands it as a word (a completion
    /// wordlist, a `${…}` body): its substitutions, inspected.
    pub fn expanded_text(&mut self, text: &str) -> Vec<Inspection> {
        let mut out = Vec::new();
        self.embedded_text(text, &mut out);
        out
    }

    fn embedded_text(&mut self, text: &str, out: &mut Vec<Inspection>) {
        let embedded = word::embedded_in(text, &self.options);
        self.embedded(embedded, out);
    }

    fn embedded(&mut self, embedded: Vec<Embedded>, out: &mut Vec<Inspection>) {
        for e in embedded {
            match e {
                Embedded::Substitution(body) => {
                    let mut found = self.nested(&body);
                    found
                        .reasons
                        .push(format!("(in the substitution `$({})`)", excerpt(&body)));
                    out.push(found);
                }
                Embedded::Opaque(text) => {
                    out.push(unknown(format!(
                        "executing text that cannot be inspected: `{text}`"
                    )));
                }
                Embedded::Evaluated(name, how) => self.evaluated(&name, how, out),
            }
        }
    }

    /// A variable's value evaluated as code: a value this command line set
    /// literally is inspected like the text of a here-document (its
    /// substitutions run); a prompt expansion of a value the inspector
    /// does not know fails safe. Arithmetic on a value it does not know
    /// (`n=$(wc -l <f); echo $((n+1))`) is left alone: that is every loop
    /// counter, and the value is the output of commands already inspected.
    fn evaluated(&mut self, name: &str, how: Evaluation, out: &mut Vec<Inspection>) {
        if self.planted(Mutant::ProgramOptionsAsData) || self.planted(Mutant::ExpansionCodeBlind) {
            return;
        }
        match (self.vars.get(name).cloned(), how) {
            (Some(Some(value)), _) => {
                if word::may_execute(&value) {
                    let embedded = word::embedded_in(&value, &self.options);
                    let mut found = Vec::new();
                    self.embedded(embedded, &mut found);
                    for mut f in found {
                        f.reasons
                            .push(format!("(the value of `{name}`, evaluated where it expands)"));
                        out.push(f);
                    }
                }
            }
            (_, Evaluation::Prompt) => out.push(unknown(format!(
                "`${{{name}@P}}` expands a value the inspector does not know as a prompt: its substitutions run"
            ))),
            (_, Evaluation::Expression) => {}
        }
    }

    fn redirect(&mut self, r: &IoRedirect, stdin: &mut Stdin, out: &mut Vec<Inspection>) {
        let on_stdin = |fd: &Option<i32>| fd.is_none_or(|f| f == 0);
        match r {
            IoRedirect::File(fd, kind, target) => match target {
                IoFileRedirectTarget::Filename(w) => {
                    let path = self.word(w, out);
                    if let Some(found) = self.socket(&path) {
                        out.push(found);
                        return;
                    }
                    match kind {
                        IoFileRedirectKind::Read => {
                            if on_stdin(fd) {
                                *stdin = Stdin::File;
                            }
                            if secrets::names_secret(&path) {
                                out.push(sensitive(read("reads a file"), secret(&path)));
                            }
                        }
                        IoFileRedirectKind::Append => self.output(&path, true, out),
                        IoFileRedirectKind::ReadAndWrite => {
                            if !is_null_device(&path) {
                                out.push(destroy(
                                    Reversibility::Irreversible,
                                    format!("`<>` opens `{}` for overwriting in place", path.text),
                                ));
                            }
                        }
                        _ => self.output(&path, false, out),
                    }
                }
                IoFileRedirectTarget::Duplicate(w) => {
                    let target = self.word(w, out);
                    let fd_like = target.resolved
                        && target
                            .text
                            .trim_end_matches('-')
                            .chars()
                            .all(|c| c.is_ascii_digit());
                    if let Some(found) = self.socket(&target) {
                        out.push(found);
                    } else if !fd_like {
                        // `>&file` is `&>file`.
                        self.output(&target, false, out);
                    }
                }
                IoFileRedirectTarget::Fd(_) => {}
                IoFileRedirectTarget::ProcessSubstitution(_, sub) => self.list(&sub.list, out),
            },
            IoRedirect::HereDocument(fd, doc) => {
                let text = if doc.requires_expansion {
                    match word::read_heredoc(&doc.doc.value, &self.options) {
                        Ok((arg, embedded)) => {
                            self.embedded(embedded, out);
                            arg.value().map(str::to_owned)
                        }
                        Err(e) => {
                            out.push(unknown(format!("unparseable here-document: {e}")));
                            None
                        }
                    }
                } else {
                    Some(doc.doc.value.clone())
                };
                if on_stdin(fd) {
                    *stdin = Stdin::Text(text);
                }
            }
            IoRedirect::HereString(fd, w) => {
                let arg = self.word(w, out);
                if on_stdin(fd) {
                    *stdin = Stdin::Text(arg.value().map(|v| format!("{v}\n")));
                }
            }
            IoRedirect::OutputAndError(w, append) => {
                let path = self.word(w, out);
                match self.socket(&path) {
                    Some(found) => out.push(found),
                    None => self.output(&path, *append, out),
                }
            }
        }
    }

    /// [`socket`], unless the planted defect reads the redirection as a file.
    fn socket(&self, path: &Arg) -> Option<Inspection> {
        socket(path).filter(|_| !self.planted(Mutant::SocketRedirectBlind))
    }

    pub(super) fn output(&mut self, path: &Arg, append: bool, out: &mut Vec<Inspection>) {
        if is_null_device(path) {
            return;
        }
        let verb = if append { "appends to" } else { "truncates" };
        if !self.planted(Mutant::WorkspaceBlind) {
            out.extend(place::write(path, self.place(path), verb, self.mutant));
        }
        let mut found = if append {
            write(format!("appends to `{}`", path.text))
        } else {
            destroy(
                Reversibility::Irreversible,
                format!(
                    "truncates `{}`: a `>` redirection replaces the file's content",
                    path.text
                ),
            )
        };
        if secrets::names_secret(path) {
            found = sensitive(found, secret(path));
        }
        out.push(found);
    }
}

/// bash itself opens a network connection for a redirection to
/// `/dev/tcp/HOST/PORT` or `/dev/udp/HOST/PORT` (no such files exist): the
/// socket is a two-way channel to another host whatever the direction of
/// the redirection, like a `ws:` URL, and loopback is no exception (raw
/// bytes to a local service are gopher's SSRF). A target whose text could
/// become such a path once expanded fails safe the same way.
fn socket(path: &Arg) -> Option<Inspection> {
    let text = path.text.as_str();
    let named = ["/dev/tcp/", "/dev/udp/"]
        .iter()
        .any(|p| text.starts_with(p));
    let maybe = !path.resolved && text.starts_with("/dev/$");
    (named || maybe).then(|| {
        external(format!(
            "`{text}`: bash opens a network connection and the data crosses it"
        ))
    })
}

/// How much a write at a place adds (`place::write`): what later
/// commands run, then a path known only at run time, then elsewhere.
fn caution(place: Place) -> u8 {
    match place {
        Place::Workspace => 0,
        Place::Home | Place::Temp | Place::Elsewhere => 1,
        Place::Unknown => 2,
        Place::System | Place::HomeConfig | Place::RepoConfig => 3,
    }
}

pub fn is_null_device(path: &Arg) -> bool {
    path.resolved
        && (matches!(
            path.text.as_str(),
            "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/stdin" | "/dev/tty"
        ) || path
            .text
            .strip_prefix("/dev/fd/")
            .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())))
}

pub fn secret(path: &Arg) -> String {
    format!("`{}` holds secrets", path.text)
}

/// The first line of a body, shortened, for reasons.
fn excerpt(body: &str) -> String {
    let body = body.trim();
    let short: String = body
        .lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(60)
        .collect();
    if short.len() < body.len() {
        format!("{short} …")
    } else {
        short
    }
}
