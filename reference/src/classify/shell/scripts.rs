//! Programs whose arguments are little programs: `find` expressions (which
//! may run commands or delete), `sed` scripts (`e`, `w`) and `awk` programs
//! (`system`, pipes, `print >`).

use super::argv::{after_options, has_flag, option_arg, option_positions, option_values};
use super::programs;
use super::walk::{Stdin, Walker};
use super::word::Arg;
use super::{destroy, read, unknown, write};
use crate::classify::Inspection;
use rbv_protocol::Reversibility::Irreversible;

/// Primaries of `find` that take one value.
#[rustfmt::skip]
const FIND_VALUE: &[&str] = &[
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
    "-type", "-xtype", "-maxdepth", "-mindepth", "-newer", "-anewer", "-cnewer", "-mtime",
    "-atime", "-ctime", "-mmin", "-amin", "-cmin", "-size", "-user", "-group", "-uid", "-gid",
    "-perm", "-printf", "-samefile", "-links", "-inum", "-used", "-fstype", "-lname", "-ilname",
    "-context", "-regextype", "-D", "-files0-from",
];

pub fn find(w: &mut Walker, args: &[Arg]) -> Inspection {
    let mut found = vec![read("`find` lists files")];
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if !a.resolved {
            // Any word of find may turn out to be `-delete` or `-exec`.
            found.push(unknown(format!(
                "`find` gets `{}`, known only at run time",
                a.text
            )));
            i += 1;
            continue;
        }
        match a.text.as_str() {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let start = i + 1;
                let end = args[start..]
                    .iter()
                    .position(|t| t.resolved && (t.text == ";" || t.text == "+"))
                    .map_or(args.len(), |p| start + p);
                let mut inner = w.replacing(Some("{}".to_owned()), |w| {
                    w.per_file(|w| programs::classify(w, &args[start..end], &Stdin::Inherited))
                });
                inner.reasons.push(format!("(run by `find {}`)", a.text));
                found.push(inner);
                i = end + 1;
            }
            "-delete" => {
                found.push(destroy(
                    Irreversible,
                    "`find -delete` deletes what it matches",
                ));
                i += 1;
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                found.push(destroy(
                    Irreversible,
                    format!("`find {}` truncates its output file", a.text),
                ));
                i += if a.text == "-fprintf" { 3 } else { 2 };
            }
            t if FIND_VALUE.contains(&t) || t.starts_with("-newer") => i += 2,
            _ => i += 1,
        }
    }
    super::join_all(found).unwrap_or_else(|| read("`find`"))
}

pub fn sed(w: &Walker, args: &[Arg]) -> Inspection {
    // An option whose letters are known only at run time may be any option
    // (`-f`, `-e`, `-i`). A word known only at run time that is not spelled
    // as an option is an operand, as for every program: in the script's
    // place the script is unknown (below), after it a file to judge by
    // where it may lie, the same with `-e` as without.
    if args
        .iter()
        .take_while(|a| a.text != "--")
        .any(|a| !a.resolved && a.text.starts_with('-'))
    {
        return unknown("a `sed` option is only known at run time");
    }
    let in_place = has_flag("sed", args, Some('i'), &["in-place"]);
    if option_arg("sed", args, Some("-f"), Some("--file")).is_some() {
        return unknown("`sed -f` runs a script file");
    }
    // `-e s`, `-es`, `--expression=s`, `--expr s`: the script; a script
    // in the next word is not a file to edit.
    let given = option_positions("sed", args, &["-e", "--expression"]);
    let mut scripts: Vec<Arg> = given
        .iter()
        .filter_map(|&(at, inline)| match inline {
            Some(v) => Some(Arg {
                text: v.to_owned(),
                ..args[at].clone()
            }),
            None => args.get(at + 1).cloned(),
        })
        .collect();
    let script_words: Vec<usize> = given
        .iter()
        .filter(|(_, inline)| inline.is_none())
        .map(|(at, _)| at + 1)
        .collect();
    let mut first_operand = None;
    if given.is_empty() {
        let rest = after_options("sed", args, &["-l", "--line-length"]);
        if let Some(first) = rest.first() {
            scripts.push(first.clone());
            first_operand = Some(args.len() - rest.len());
        }
    }
    // The files `-i` edits: the operands that are not the script.
    let skip: Vec<&Arg> = script_words
        .iter()
        .chain(&first_operand)
        .filter_map(|&i| args.get(i))
        .collect();
    let files: Vec<&Arg> = super::argv::operands(args)
        .into_iter()
        .filter(|f| !skip.iter().any(|s| std::ptr::eq(*s, *f)))
        .collect();
    for s in &scripts {
        if !s.resolved {
            return unknown("the `sed` script is only known at run time");
        }
        if sed_runs_or_writes(&s.text) {
            return unknown("the `sed` script runs commands (`e`) or writes files (`w`)");
        }
    }
    if in_place {
        let found = write("`sed -i` edits files in place (taken as tracked workspace files)");
        files
            .iter()
            .filter_map(|f| super::place::write(f, w.place(f), "`sed -i` edits", None))
            .fold(found, Inspection::join)
    } else {
        read("`sed` prints its result")
    }
}

/// Whether a sed script has an `e` command or flag, or writes files
/// (`w`, `W`, the `w` flag). Unknown commands count as running code.
pub fn sed_runs_or_writes(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let to_eol = |i: &mut usize| {
        while *i < chars.len() && chars[*i] != '\n' {
            *i += 1;
        }
    };
    let delimited = |i: &mut usize, delim: char| {
        while *i < chars.len() && chars[*i] != delim {
            if chars[*i] == '\\' {
                *i += 1;
            }
            *i += 1;
        }
        *i += 1;
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | ';' | '{' | '}' | '!' | ',' | '~' | '+' | '$' | '0'..='9' => i += 1,
            '/' => {
                i += 1;
                delimited(&mut i, '/');
                if matches!(chars.get(i), Some('I' | 'M')) {
                    i += 1;
                }
            }
            '\\' => {
                let Some(&d) = chars.get(i + 1) else {
                    return true;
                };
                i += 2;
                delimited(&mut i, d);
            }
            's' | 'y' => {
                let Some(&d) = chars.get(i + 1) else {
                    return true;
                };
                i += 2;
                delimited(&mut i, d);
                delimited(&mut i, d);
                if c == 's' {
                    while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}') {
                        if matches!(chars[i], 'e' | 'w' | 'W') {
                            return true;
                        }
                        i += 1;
                    }
                }
            }
            'e' | 'w' | 'W' => return true,
            'a' | 'i' | 'c' | 'r' | 'R' | '#' => to_eol(&mut i),
            'b' | 't' | 'T' | ':' | 'q' | 'Q' | 'l' | 'L' => {
                i += 1;
                while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}') {
                    i += 1;
                }
            }
            'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | '=' | 'F' => {
                i += 1
            }
            _ => return true,
        }
    }
    false
}

/// The gawk manual (§2.2 Command-Line Options, §2.7 Including Other Files,
/// §2.8 Loading Dynamic Extensions) names every way a program's code comes
/// from elsewhere: a program file (`-f`, `-E`/`--exec`), a source library
/// (`-i`/`--include`, `@include`), a shared library (`-l`/`--load`,
/// `@load`). `-i inplace` is gawk's own in-place extension.
fn awk_loads_code(args: &[Arg]) -> bool {
    let program_file =
        has_flag("awk", args, Some('E'), &["exec"]) || has_flag("awk", args, Some('l'), &["load"]);
    let included = option_values("awk", args, Some("-i"), Some("--include"))
        .iter()
        .any(|v| v.text != "inplace" && v.text != "inplace.awk");
    let directive = args
        .iter()
        .any(|a| a.text.contains("@include") || a.text.contains("@load"));
    program_file || included || directive
}

/// `sources_blind`: the planted `awk-sources-blind` defect, which keeps
/// only the `-f` check that predates the gawk manual's list.
pub fn awk(sources_blind: bool, args: &[Arg]) -> Inspection {
    if has_flag("awk", args, Some('f'), &["file"]) {
        return unknown("`awk -f` runs a program file");
    }
    if !sources_blind && awk_loads_code(args) {
        return unknown("the `awk` program loads code from a file or a library");
    }
    // `-e TEXT`/`--source=TEXT` is program text too.
    let sources = if sources_blind {
        Vec::new()
    } else {
        option_values("awk", args, Some("-e"), Some("--source"))
    };
    for v in sources {
        let runs = v.text.contains("system") || v.text.contains('|');
        if runs || !v.resolved {
            return unknown("the `awk` program text runs commands or is known only at run time");
        }
    }
    let in_place = args
        .windows(2)
        .any(|p| p[0].text == "-i" && p[1].text == "inplace");
    let Some(program) = after_options(
        "awk",
        args,
        &[
            "-F",
            "-v",
            "-i",
            "--field-separator",
            "--assign",
            "--include",
        ],
    )
    .first() else {
        return unknown("`awk` without a program");
    };
    let Some(text) = program.value() else {
        return unknown("the `awk` program is only known at run time");
    };
    if text.contains("system") || text.contains('|') {
        return unknown("the `awk` program runs commands (`system`, pipes)");
    }
    if awk_print_redirects(text) {
        return destroy(
            Irreversible,
            "the `awk` program writes files with `print >`",
        );
    }
    if in_place {
        write("`awk -i inplace` edits files")
    } else {
        read("`awk` prints its result")
    }
}

/// `print … > "file"` inside an awk action (a `>` after `print` and before
/// the statement ends, outside strings).
fn awk_print_redirects(text: &str) -> bool {
    let mut rest = text;
    while let Some(pos) = rest.find("print") {
        let after = &rest[pos + 5..];
        let end = after.find([';', '}', '\n']).unwrap_or(after.len());
        let mut in_string = false;
        for c in after[..end].chars() {
            match c {
                '"' => in_string = !in_string,
                '>' if !in_string => return true,
                _ => {}
            }
        }
        rest = after;
    }
    false
}
