//! Database clients on the shell (`sqlite3`, `psql`, `mysql`/`mariadb`):
//! the statements they send are SQL, judged by the SQL inspector in the
//! client's dialect (`classify::sql`, the one `kind: sql` operations use);
//! the rest of the command is judged as any program's: the files its
//! options write or run, the server it contacts. Meta-commands are the
//! client's own code (sqlite3's `.shell`, psql's `\!`, mysql's `system`):
//! a short list of read-only ones passes, any other escalates. Whatever
//! the inspector cannot read (a script file, statements on a pipe, an
//! option it does not know, text an expansion decides) fails safe.
//!
//! `duckdb` is not read: the SQL inspector has no DuckDB dialect, and
//! reading its statements as another dialect's would misjudge its
//! comments, strings and functions (`read_csv`, `COPY … TO`, `INSTALL`).
//!
//! The client's own startup file (`~/.sqliterc`, `~/.psqlrc`, `~/.my.cnf`)
//! is the user's configuration, vouched for as `source ~/.bashrc` is
//! (`programs::SETUP`); a configuration file named on the command line is
//! not (`--defaults-file`, `-init`).

use super::place;
use super::syntax::Parser;
use super::walk::{Stdin, Walker};
use super::word::Arg;
use super::{external, read, unknown};
use crate::classify::{sql, Inspection};
use rbv_protocol::SqlDialect;

/// What an option's value is to the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Takes {
    /// No value.
    Flag,
    /// A value that changes only formatting or the connection's details.
    Value,
    /// A password, only in the same word (`-psecret`): `-p` alone prompts.
    AttachedOnly,
    /// Statements or a meta-command.
    Sql,
    /// A script file the client runs (`psql -f`; `-` is stdin).
    Script,
    /// The server's host name, or a list of them.
    Host,
    /// psql's database name, which may be a connection string or URI.
    Database,
    /// A file the client truncates and writes (`psql -o`; `|cmd` pipes).
    Output,
    /// A file the client appends to (`psql -L`, `mysql --tee`).
    Log,
    /// A psql variable (`-v NAME=VALUE`).
    Variable,
    /// Something the inspector cannot judge from the command line: a
    /// configuration or init file, a pager program.
    Opaque(&'static str),
    /// An option that ends the client before it reads statements.
    Exits,
}

use Takes::*;

/// One option of a client: its short letter and long name.
struct Opt(Option<char>, &'static str, Takes);

/// psql(1), PostgreSQL 17: "Options".
#[rustfmt::skip]
const PSQL: &[Opt] = &[
    Opt(Some('c'), "command", Sql), Opt(Some('d'), "dbname", Database),
    Opt(Some('f'), "file", Script), Opt(Some('F'), "field-separator", Value),
    Opt(Some('h'), "host", Host), Opt(Some('L'), "log-file", Log),
    Opt(Some('o'), "output", Output), Opt(Some('p'), "port", Value),
    Opt(Some('P'), "pset", Value), Opt(Some('R'), "record-separator", Value),
    Opt(Some('T'), "table-attr", Value), Opt(Some('U'), "username", Value),
    Opt(Some('v'), "set", Variable), Opt(None, "variable", Variable),
    Opt(Some('a'), "echo-all", Flag), Opt(Some('A'), "no-align", Flag),
    Opt(Some('b'), "echo-errors", Flag), Opt(Some('e'), "echo-queries", Flag),
    Opt(Some('E'), "echo-hidden", Flag), Opt(Some('H'), "html", Flag),
    Opt(Some('l'), "list", Exits), Opt(Some('n'), "no-readline", Flag),
    Opt(Some('q'), "quiet", Flag), Opt(Some('s'), "single-step", Flag),
    Opt(Some('S'), "single-line", Flag), Opt(Some('t'), "tuples-only", Flag),
    Opt(Some('w'), "no-password", Flag), Opt(Some('W'), "password", Flag),
    Opt(Some('x'), "expanded", Flag), Opt(Some('X'), "no-psqlrc", Flag),
    Opt(Some('z'), "field-separator-zero", Flag), Opt(Some('0'), "record-separator-zero", Flag),
    Opt(Some('1'), "single-transaction", Flag), Opt(None, "csv", Flag),
    Opt(Some('V'), "version", Exits), Opt(Some('?'), "help", Exits),
];

/// mysql(1), MySQL 8.4 (MariaDB's client shares these): "mysql Client Options".
#[rustfmt::skip]
const MYSQL: &[Opt] = &[
    Opt(Some('e'), "execute", Sql), Opt(None, "init-command", Sql),
    Opt(Some('D'), "database", Value), Opt(Some('h'), "host", Host),
    Opt(Some('P'), "port", Value), Opt(Some('u'), "user", Value),
    Opt(Some('S'), "socket", Value), Opt(Some('p'), "password", AttachedOnly),
    Opt(None, "protocol", Value), Opt(None, "default-character-set", Value),
    Opt(None, "connect-timeout", Value), Opt(None, "ssl-mode", Value),
    Opt(None, "tee", Log),
    Opt(None, "pager", Opaque("`--pager` pipes the output through a program")),
    Opt(None, "defaults-file", Opaque("reads a configuration file that may name programs and statements")),
    Opt(None, "defaults-extra-file", Opaque("reads a configuration file that may name programs and statements")),
    Opt(None, "login-path", Opaque("reads a login path's options, which may name programs and statements")),
    Opt(Some('B'), "batch", Flag), Opt(Some('N'), "skip-column-names", Flag),
    Opt(None, "column-names", Flag), Opt(Some('s'), "silent", Flag),
    Opt(Some('t'), "table", Flag), Opt(Some('v'), "verbose", Flag),
    Opt(Some('E'), "vertical", Flag), Opt(Some('r'), "raw", Flag),
    Opt(Some('H'), "html", Flag), Opt(Some('X'), "xml", Flag),
    Opt(Some('f'), "force", Flag), Opt(Some('n'), "unbuffered", Flag),
    Opt(Some('q'), "quick", Flag), Opt(Some('A'), "no-auto-rehash", Flag),
    Opt(Some('U'), "safe-updates", Flag), Opt(None, "no-defaults", Flag),
    Opt(None, "skip-pager", Flag), Opt(None, "no-beep", Flag),
    Opt(Some('V'), "version", Exits), Opt(Some('?'), "help", Exits),
];

/// sqlite3's shell.c `usage()` (3.46): one dash or two, whole names.
#[rustfmt::skip]
const SQLITE3: &[Opt] = &[
    Opt(None, "cmd", Sql),
    Opt(None, "init", Opaque("`-init` runs a file of statements and dot-commands")),
    Opt(None, "separator", Value), Opt(None, "newline", Value), Opt(None, "nullvalue", Value),
    Opt(None, "ascii", Flag), Opt(None, "bail", Flag), Opt(None, "batch", Flag),
    Opt(None, "box", Flag), Opt(None, "column", Flag), Opt(None, "csv", Flag),
    Opt(None, "echo", Flag), Opt(None, "header", Flag), Opt(None, "noheader", Flag),
    Opt(None, "html", Flag), Opt(None, "json", Flag), Opt(None, "line", Flag),
    Opt(None, "list", Flag), Opt(None, "markdown", Flag), Opt(None, "quote", Flag),
    Opt(None, "readonly", Flag), Opt(None, "safe", Flag), Opt(None, "table", Flag),
    Opt(None, "tabs", Flag), Opt(None, "stats", Flag), Opt(None, "nofollow", Flag),
    Opt(None, "version", Exits), Opt(None, "help", Exits),
];

/// A database client's command, or `None` for any other program.
pub fn classify(w: &mut Walker, name: &str, args: &[Arg], stdin: &Stdin) -> Option<Inspection> {
    let (table, dialect) = match name {
        "sqlite3" => (SQLITE3, SqlDialect::Sqlite),
        "psql" => (PSQL, SqlDialect::Postgresql),
        "mysql" | "mariadb" => (MYSQL, SqlDialect::Mysql),
        "duckdb" => {
            return Some(unknown(
                "`duckdb`: the SQL inspector has no DuckDB dialect (fails safe)",
            ))
        }
        _ => return None,
    };
    let client = Client { name, dialect, w };
    Some(match scan(name, args, table) {
        Ok(words) => client.judge(&words, stdin),
        Err(found) => found,
    })
}

/// One word of the command line as the client reads it.
enum Word<'a> {
    Opt(&'static Takes, &'static str, Arg),
    Operand(&'a Arg),
}

/// Reads every option with its value in the spellings the client's
/// parser accepts (`syntax::Parser`); an option the table does not hold
/// is one whose effect the inspector cannot know.
fn scan<'a>(
    name: &str,
    args: &'a [Arg],
    table: &'static [Opt],
) -> Result<Vec<Word<'a>>, Inspection> {
    if let Some(a) = args.iter().find(|a| !a.resolved) {
        return Err(unknown(format!(
            "`{name}`: the word `{}` is known only at run time",
            a.text
        )));
    }
    let p = Parser::of(name);
    let clusters = name != "sqlite3";
    let mut out = Vec::new();
    let mut i = 0;
    let unknown_opt = |t: &str| {
        unknown(format!(
            "`{name} {t}`: an option the inspector does not know"
        ))
    };
    let value = |i: usize, inline: Option<&str>, long: &str| match inline {
        Some(v) => Ok(Arg::literal(v)),
        None => args
            .get(i + 1)
            .cloned()
            .ok_or_else(|| unknown(format!("`{name} {long}` without its value"))),
    };
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if t == "--" {
            out.extend(args[i + 1..].iter().map(Word::Operand));
            break;
        }
        if !p.is_option(t) {
            out.push(Word::Operand(a));
            i += 1;
            continue;
        }
        let longs: Vec<(&'static Opt, Option<&str>)> = table
            .iter()
            .filter_map(|o| p.long(t, o.1).map(|v| (o, v)))
            .collect();
        let exact = longs.iter().find(|(o, v)| {
            let body = t.trim_start_matches('-');
            body == o.1 || v.is_some_and(|v| body == format!("{}={v}", o.1))
        });
        let long = exact.or(if longs.len() == 1 {
            longs.first()
        } else {
            None
        });
        if let Some((o, inline)) = long {
            let takes_value = !matches!(o.2, Flag | Exits | AttachedOnly);
            let v = if takes_value {
                value(i, *inline, t)?
            } else {
                Arg::literal(inline.unwrap_or_default())
            };
            out.push(Word::Opt(&o.2, o.1, v));
            i += if takes_value && inline.is_none() {
                2
            } else {
                1
            };
            continue;
        }
        if !longs.is_empty() || !clusters || t.starts_with("--") {
            return Err(unknown_opt(t));
        }
        // A cluster of short options; a letter that takes a value takes
        // the rest of the word, or the next word.
        let mut next = i + 1;
        for (at, c) in t[1..].char_indices() {
            let Some(o) = table.iter().find(|o| o.0 == Some(c)) else {
                return Err(unknown_opt(t));
            };
            let rest = &t[1 + at + c.len_utf8()..];
            match o.2 {
                Flag | Exits => out.push(Word::Opt(&o.2, o.1, Arg::literal(""))),
                AttachedOnly => {
                    out.push(Word::Opt(&o.2, o.1, Arg::literal(rest)));
                    break;
                }
                _ => {
                    let inline = (!rest.is_empty()).then_some(rest);
                    out.push(Word::Opt(&o.2, o.1, value(i, inline, t)?));
                    if inline.is_none() {
                        next = i + 2;
                    }
                    break;
                }
            }
        }
        i = next;
    }
    Ok(out)
}

struct Client<'w, 'n> {
    name: &'n str,
    dialect: SqlDialect,
    w: &'w mut Walker,
}

impl Client<'_, '_> {
    fn judge(mut self, words: &[Word], stdin: &Stdin) -> Inspection {
        let mut found = Vec::new();
        let mut reads_statements = false;
        let mut exits = false;
        let mut operands = Vec::new();
        for word in words {
            match word {
                Word::Operand(a) => operands.push(*a),
                Word::Opt(takes, long, v) => {
                    reads_statements |= matches!(takes, Sql | Script);
                    exits |= **takes == Exits;
                    found.extend(self.option(takes, long, v, stdin));
                }
            }
        }
        let name = self.name;
        match name {
            "sqlite3" => {
                // `sqlite3 [OPTIONS] FILENAME [SQL…]`: each word after the
                // file is a dot-command or SQL.
                let (db, sql) = operands
                    .split_first()
                    .map_or((None, &[][..]), |(d, s)| (Some(*d), s));
                for s in sql {
                    found.push(self.text(&s.text));
                }
                reads_statements |= !sql.is_empty();
                if !reads_statements && !exits {
                    found.push(self.stdin(stdin));
                }
                if let Some(db) = db {
                    found.push(self.database_file(db, &found));
                }
            }
            "psql" => {
                // `psql [OPTION]… [DBNAME [USERNAME]]`.
                if let Some(db) = operands.first() {
                    found.push(connection(name, &db.text));
                }
                if operands.len() > 2 {
                    found.push(unknown(format!("`{name}`: more operands than it reads")));
                }
                if !reads_statements && !exits {
                    found.push(self.stdin(stdin));
                }
            }
            _ => {
                // `mysql [OPTIONS] [DATABASE]`.
                if operands.len() > 1 {
                    found.push(unknown(format!("`{name}`: more operands than it reads")));
                }
                if !reads_statements && !exits {
                    found.push(self.stdin(stdin));
                }
            }
        }
        super::join_all(found).unwrap_or_else(|| read(format!("`{name}` prints and exits")))
    }

    /// What one option with its value adds.
    fn option(&mut self, takes: &Takes, long: &str, v: &Arg, stdin: &Stdin) -> Option<Inspection> {
        let name = self.name;
        Some(match takes {
            Flag | Exits | Value | AttachedOnly => return None,
            Sql => self.text(&v.text),
            Script if v.text == "-" => self.stdin(stdin),
            Script => unknown(format!(
                "`{name} --{long} {}` runs a script file the inspector cannot read",
                v.text
            )),
            Host => host(name, &v.text),
            Database => connection(name, &v.text),
            Output if v.text.starts_with('|') => self.w.nested(&v.text[1..]),
            Output | Log => {
                let mut out = Vec::new();
                self.w.output(v, *takes == Log, &mut out);
                return super::join_all(out);
            }
            Variable => variable(name, &v.text),
            Opaque(why) => unknown(format!("`{name} --{long}`: {why}")),
        })
    }

    /// Statements from stdin: a literal here-document or here-string is
    /// read as a script; a pipe, a file or the terminal cannot be.
    fn stdin(&mut self, stdin: &Stdin) -> Inspection {
        let name = self.name;
        match stdin {
            Stdin::Text(Some(text)) => self.script(text),
            Stdin::Text(None) => unknown(format!(
                "`{name}` reads statements from a here-document known only at run time"
            )),
            Stdin::Pipe => unknown(format!("`{name}` runs statements read from a pipe")),
            Stdin::File => unknown(format!("`{name}` runs statements read from a file")),
            Stdin::Inherited => unknown(format!(
                "`{name}` reads statements from the session's input"
            )),
        }
    }

    /// One word of statements as the client reads it (an argument of
    /// `-c`, `-e`, `-cmd`, or a sqlite3 operand).
    fn text(&mut self, text: &str) -> Inspection {
        match self.name {
            // shell.c: a word starting with `.` is one dot-command.
            "sqlite3" if text.starts_with('.') => sqlite_dot(text),
            // startup.c: a `-c` starting with a backslash is one
            // meta-command; any other is sent to the server as it is.
            "psql" if text.starts_with('\\') => psql_meta(text),
            "psql" | "sqlite3" => self.sql(text),
            _ => self.mysql(text),
        }
    }

    /// A script read from stdin: meta-command lines and SQL.
    fn script(&mut self, text: &str) -> Inspection {
        let name = self.name;
        let mut found = Vec::new();
        let mut sql = String::new();
        for line in text.lines() {
            let meta = match name {
                // A dot-command is a line of its own between statements;
                // inside an unfinished statement the line is SQL.
                "sqlite3" => {
                    line.trim_start().starts_with('.')
                        && (sql.trim().is_empty() || sql.trim_end().ends_with(';'))
                }
                // psql's lexer ends the statement at any backslash outside
                // a literal: a line that holds one is read as a meta-command
                // line, which passes only when it is a whole allowed one.
                "psql" => line.contains('\\'),
                _ => false,
            };
            if meta {
                found.push(match name {
                    "sqlite3" => sqlite_dot(line.trim()),
                    _ => psql_meta(line.trim()),
                });
            } else {
                sql.push_str(line);
                sql.push('\n');
            }
        }
        if !sql.trim().is_empty() {
            found.push(match name {
                "mysql" | "mariadb" => self.mysql(&sql),
                _ => self.sql(&sql),
            });
        }
        super::join_all(found).unwrap_or_else(|| read(format!("`{name}` reads an empty script")))
    }

    /// mysql's client reads its own commands in the text before it sends
    /// statements (`system`, `source`, `tee`, `pager`, `\!`, `\.`, `delimiter`).
    fn mysql(&mut self, text: &str) -> Inspection {
        let name = self.name;
        if text.contains('\\') {
            return unknown(format!(
                "`{name}`: a backslash in the statements may be a client command (`\\!`, `\\.`)"
            ));
        }
        let command = text.split(['\n', ';']).find_map(|part| {
            let first = part.split_whitespace().next()?.to_ascii_lowercase();
            MYSQL_COMMANDS.contains(&first.as_str()).then_some(first)
        });
        match command {
            Some(c) => unknown(format!(
                "`{name}`: `{c}` is a client command, not SQL (it can run programs, read or write files)"
            )),
            None => self.sql(text),
        }
    }

    /// The SQL inspector's answer, in the client's dialect.
    fn sql(&mut self, text: &str) -> Inspection {
        let mut found = sql::inspect_in(text, self.dialect, self.w.mutant);
        let name = self.name;
        for r in &mut found.reasons {
            *r = format!("`{name}` sends SQL: {r}");
        }
        found
    }

    /// sqlite3's database file: a statement that changes state writes it,
    /// so where it lies is judged as any write's place.
    fn database_file(&self, db: &Arg, found: &[Inspection]) -> Inspection {
        let name = self.name;
        if db.text.starts_with("file:") {
            return unknown(format!(
                "`{name} {}`: a URI filename whose parameters choose how it is opened",
                db.text
            ));
        }
        let writes = found.iter().any(|f| f.changes_state);
        let place = (writes && db.text != ":memory:")
            .then(|| place::write(db, self.w.place(db), "writes the database", self.w.mutant))
            .flatten();
        place.unwrap_or_else(|| read(format!("`{name}` opens the database `{}`", db.text)))
    }
}

/// mysql's client commands (mysql(1), "mysql Client Commands"), by their
/// long names; any of them leads a statement as the client reads it.
#[rustfmt::skip]
const MYSQL_COMMANDS: &[&str] = &[
    "system", "source", "tee", "notee", "pager", "nopager", "edit", "connect", "charset",
    "delimiter", "prompt", "rehash", "status", "warnings", "nowarning", "print", "go", "ego",
    "exit", "quit", "help", "clear", "resetconnection", "query_attributes",
    "ssl_session_data_print", "?",
];

/// sqlite3's dot-commands that only print the schema or the data to the
/// output; every other one writes, runs, loads or opens something.
const SQLITE_READS: &[&str] = &[
    "tables",
    "schema",
    "indexes",
    "indices",
    "databases",
    "dump",
    "fullschema",
    "dbinfo",
    "show",
    "help",
    "headers",
    "mode",
    "width",
    "nullvalue",
    "separator",
    "timer",
    "echo",
    "bail",
    "changes",
    "print",
];

/// psql's meta-commands that only describe the database or the connection
/// (`\d` and its listings, `\l`, `\conninfo`).
const PSQL_READS: &[&str] = &[
    "d", "dt", "di", "dv", "dm", "ds", "dn", "du", "dg", "df", "dT", "dx", "l", "list", "conninfo",
];

/// Arguments of an allowed meta-command: names and patterns, nothing the
/// client would expand (psql's backquotes and `:var`, a redirection, a
/// second command after `\\` or a newline).
fn plain_arguments<'a>(mut words: impl Iterator<Item = &'a str>) -> bool {
    words.all(|a| {
        a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.*%?-\"".contains(c))
    })
}

fn sqlite_dot(text: &str) -> Inspection {
    let mut words = text.split([' ', '\t']).filter(|w| !w.is_empty());
    let command = words.next().unwrap_or_default();
    let allowed = SQLITE_READS.contains(&command.trim_start_matches('.'))
        && !text.contains(['\n', '\r', ';'])
        && plain_arguments(words);
    if allowed {
        read(format!("`sqlite3 {command}` prints"))
    } else {
        unknown(format!(
            "`sqlite3 {command}`: a dot-command that may write, run, load or open files (only printing ones pass)"
        ))
    }
}

fn psql_meta(text: &str) -> Inspection {
    let mut words = text.split([' ', '\t']).filter(|w| !w.is_empty());
    let command = words.next().unwrap_or_default();
    let bare = command
        .trim_start_matches('\\')
        .trim_end_matches('+')
        .trim_end_matches('S');
    let allowed = text.starts_with('\\')
        && PSQL_READS.contains(&bare)
        && !text[1..].contains(['\\', '\n', '\r', '`', ':', '|', '>'])
        && plain_arguments(words);
    if allowed {
        read(format!("`psql {command}` describes the database"))
    } else {
        unknown(format!(
            "`psql {command}`: a meta-command that may run a shell, write or read files (only describing ones pass)"
        ))
    }
}

/// psql variables that change only how errors and output are reported.
const PSQL_VARIABLES: &[&str] = &[
    "ON_ERROR_STOP",
    "ON_ERROR_ROLLBACK",
    "ECHO",
    "ECHO_HIDDEN",
    "QUIET",
    "VERBOSITY",
    "SHOW_CONTEXT",
    "FETCH_COUNT",
];

fn variable(name: &str, text: &str) -> Inspection {
    let var = text.split_once('=').map_or(text, |(n, _)| n);
    if PSQL_VARIABLES.contains(&var) {
        read(format!(
            "`{name} -v {var}` sets how errors or output are reported"
        ))
    } else {
        unknown(format!(
            "`{name} -v {var}`: a variable that statements and prompts interpolate"
        ))
    }
}

/// The environment variables the clients read for the server to contact
/// (libpq "Environment Variables": PGHOST, PGHOSTADDR, PGSERVICE,
/// PGSERVICEFILE, and PGDATABASE, which may be a whole connection string;
/// the mysql client's MYSQL_HOST).
const SERVER_VARS: &[&str] = &[
    "PGHOST",
    "PGHOSTADDR",
    "PGSERVICE",
    "PGSERVICEFILE",
    "PGDATABASE",
    "MYSQL_HOST",
];

/// What setting `var` to `value` does when it names the server later
/// database clients contact: another host is where their statements and
/// credentials go, judged as a `-h` on their command line would be (the
/// way a proxy variable is judged by where it sends later requests).
/// `None` for another variable, a local server, or a plain database name.
pub(super) fn server_variable(var: &str, value: &str, resolved: bool) -> Option<Inspection> {
    if !SERVER_VARS.contains(&var) || value.is_empty() {
        return None;
    }
    if !resolved {
        return Some(unknown(format!(
            "`{var}` sets the database server later clients contact to one known only at run time"
        )));
    }
    let found = match var {
        // A service file's entries name any server and options.
        "PGSERVICE" | "PGSERVICEFILE" => unknown(format!(
            "`{var}` makes later database clients connect as a service file says"
        )),
        "PGDATABASE" if value.contains('=') || value.contains("://") => connection(var, value),
        "PGDATABASE" => return None,
        _ => host(var, value),
    };
    let local = found.scope == rbv_protocol::Scope::Local && !found.changes_state;
    (!local).then_some(found)
}

/// The server a client contacts. A socket directory or a loopback name
/// is this machine's server; any other host is a shared server the
/// statements and the credentials go to (RBV-SH-017's egress): the
/// inspector cannot tell a scratch database from production there.
fn host(name: &str, text: &str) -> Inspection {
    let local = |h: &str| {
        let h = h.trim_start_matches('[').trim_end_matches(']');
        h.is_empty()
            || h.starts_with('/')
            || matches!(
                h.to_ascii_lowercase().as_str(),
                "localhost" | "127.0.0.1" | "::1"
            )
    };
    if text.split(',').all(local) {
        read(format!("`{name}` connects to this machine's server"))
    } else {
        external(format!(
            "`{name}` connects to `{text}`: the statements and the credentials go to another host"
        ))
    }
}

/// psql's database name: a plain name, a URI (`postgresql://…`) or a
/// connection string (`host=… dbname=…`), whose host is judged and whose
/// other parameters may name files or services the inspector cannot read.
fn connection(name: &str, text: &str) -> Inspection {
    let uri = ["postgresql://", "postgres://"]
        .iter()
        .find_map(|s| text.strip_prefix(s));
    if let Some(rest) = uri {
        let authority = rest.split('/').next().unwrap_or_default();
        let password = authority
            .rsplit_once('@')
            .is_some_and(|(user, _)| user.contains(':'));
        if rest.contains('?') || password {
            return unknown(format!(
                "`{name} {text}`: connection parameters or a password in the URI"
            ));
        }
        let hosts = authority.rsplit('@').next().unwrap_or_default();
        let hosts: Vec<&str> = hosts
            .split(',')
            .map(|h| match h.rsplit_once(':') {
                Some((host, port)) if !host.ends_with(':') && !port.contains(']') => host,
                _ => h,
            })
            .collect();
        return host(name, &hosts.join(","));
    }
    if !text.contains('=') {
        return read(format!("`{name}` uses the database `{text}`"));
    }
    let mut found = read(format!("`{name}` connects with `{text}`"));
    for pair in text.split_whitespace() {
        match pair.split_once('=') {
            Some(("host" | "hostaddr", h)) => found = found.join(host(name, h)),
            Some(("dbname" | "user" | "port" | "application_name" | "connect_timeout", _)) => {}
            _ => {
                return unknown(format!(
                    "`{name}`: the connection parameter `{pair}` may name files or services"
                ))
            }
        }
    }
    found
}
