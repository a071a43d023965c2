//! What the sandbox saw of one line, read from its first process's output
//! (`sandbox.sh`): NUL-terminated fields, with the stub log and the line's
//! output as length-prefixed bytes, since they may hold anything.

use serde::Serialize;
use std::collections::BTreeMap;

/// One program the line ran: its name (the stub's, or the word bash could
/// not find), the arguments it got, and whether the sandbox had it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Run {
    pub program: String,
    pub args: Vec<String>,
    /// False for a name bash found nowhere (recorded by its
    /// `command_not_found_handle`): it runs wherever it is installed.
    pub installed: bool,
    /// The real program ran after its stub logged it (see `programs::REAL`).
    pub real: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Created,
    Modified,
    Deleted,
}

/// A path whose entry differs between the snapshots before and after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The path inside the sandbox (`/home/user/notes.txt`).
    pub path: String,
    pub kind: ChangeKind,
}

/// What one line did in the sandbox.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Observation {
    /// `bash -n` accepted the line. Bash runs a line command by command,
    /// so a line that does not parse may still run its first commands.
    pub parsed: bool,
    /// The exit status of `bash -c` (128 + the signal when killed).
    pub exit: i32,
    /// The line (or something it left running) outlived the time limit,
    /// and everything in the sandbox was killed.
    pub timed_out: bool,
    pub elapsed_ms: f64,
    /// The programs that ran, in order.
    pub ran: Vec<Run>,
    /// Runs past the ones kept (a loop that runs a program many times).
    pub runs_not_kept: usize,
    pub changes: Vec<Change>,
    /// The start of what the line printed (stdout and stderr together).
    pub output: String,
}

/// One `find -printf` record: the fields that change when a file does.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    kind: String,
    size: String,
    mtime: String,
    mode: String,
    owner: String,
    link: String,
}

impl Entry {
    /// A directory's size and mtime change with its entries, which are
    /// compared on their own: only its mode and owner count for it.
    fn differs(&self, other: &Entry) -> bool {
        if self.kind == "d" && other.kind == "d" {
            return (&self.mode, &self.owner) != (&other.mode, &other.owner);
        }
        self != other
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn field(&mut self) -> Result<&'a [u8], String> {
        let rest = &self.bytes[self.at..];
        let end = memchr::memchr(0, rest)
            .ok_or_else(|| format!("the sandbox's output ends early (at byte {})", self.at))?;
        self.at += end + 1;
        Ok(&rest[..end])
    }

    fn text(&mut self) -> Result<String, String> {
        self.field()
            .map(|f| String::from_utf8_lossy(f).into_owned())
    }

    fn number<T: std::str::FromStr>(&mut self) -> Result<T, String> {
        let f = self.text()?;
        f.parse()
            .map_err(|_| format!("the sandbox sent `{f}` where a number belongs"))
    }

    fn expect(&mut self, word: &str) -> Result<(), String> {
        let f = self.text()?;
        if f == word {
            Ok(())
        } else {
            Err(format!("the sandbox sent `{f}` where `{word}` belongs"))
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|e| *e <= self.bytes.len())
            .ok_or("the sandbox's output ends inside a record")?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
}

fn snapshot(c: &mut Cursor) -> Result<BTreeMap<String, Entry>, String> {
    let mut files = BTreeMap::new();
    loop {
        let kind = c.text()?;
        if kind == "end" {
            return Ok(files);
        }
        let path = c.text()?;
        // find prints paths from the sandbox's root as `./home/user`.
        let path = match path.strip_prefix('.') {
            Some("") => "/".to_owned(),
            Some(rest) => rest.to_owned(),
            None => path,
        };
        let entry = Entry {
            kind,
            size: c.text()?,
            mtime: c.text()?,
            mode: c.text()?,
            owner: c.text()?,
            link: c.text()?,
        };
        files.insert(path, entry);
    }
}

/// The paths created, modified and deleted between two snapshots, in path
/// order.
fn changes(before: &BTreeMap<String, Entry>, after: &BTreeMap<String, Entry>) -> Vec<Change> {
    let mut out = Vec::new();
    for (path, old) in before {
        let kind = match after.get(path) {
            None => ChangeKind::Deleted,
            Some(new) if old.differs(new) => ChangeKind::Modified,
            Some(_) => continue,
        };
        out.push(Change {
            path: path.clone(),
            kind,
        });
    }
    for path in after.keys().filter(|p| !before.contains_key(*p)) {
        out.push(Change {
            path: path.clone(),
            kind: ChangeKind::Created,
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// A stub's record: the program's name, then each argument.
fn run(name: &str, record: &[u8]) -> Run {
    let mut fields = record
        .split(|b| *b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned());
    let program = fields.next().unwrap_or_default();
    let mut args: Vec<String> = fields.collect();
    // Every field ends with a NUL, so the split leaves one empty last.
    if record.last() == Some(&0) {
        args.pop();
    }
    Run {
        program,
        args,
        installed: !name.ends_with(".missing"),
        // The sandbox knows which stubs run the real program.
        real: false,
    }
}

/// Reads the sandbox's output (see `sandbox.sh` for the order).
pub fn parse(bytes: &[u8]) -> Result<Observation, String> {
    let mut c = Cursor { bytes, at: 0 };
    c.expect("rbv-sandbox 1")?;
    c.expect("before")?;
    let before = snapshot(&mut c)?;
    c.expect("after")?;
    let after = snapshot(&mut c)?;
    c.expect("status")?;
    let exit: i32 = c.number()?;
    let timed_out = c.text()? == "1";
    let parsed = c.text()? == "0";
    let elapsed_us: u64 = c.number()?;
    c.expect("log")?;
    let mut ran = Vec::new();
    loop {
        let name = c.text()?;
        if name == "end" {
            break;
        }
        let size: usize = c.number()?;
        ran.push(run(&name, c.take(size)?));
    }
    let total: usize = c.number()?;
    c.expect("out")?;
    let size: usize = c.number()?;
    let output = String::from_utf8_lossy(c.take(size)?).into_owned();
    Ok(Observation {
        parsed,
        exit,
        timed_out,
        elapsed_ms: elapsed_us as f64 / 1000.0,
        runs_not_kept: total.saturating_sub(ran.len()),
        ran,
        changes: changes(&before, &after),
        output,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(fields: &[&str]) -> Vec<u8> {
        fields
            .iter()
            .flat_map(|f| [f.as_bytes(), b"\0"])
            .flatten()
            .copied()
            .collect()
    }

    fn entry(kind: &str, path: &str, size: &str, mtime: &str, mode: &str) -> Vec<&'static str> {
        let leak = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
        vec![
            leak(kind),
            leak(path),
            leak(size),
            leak(mtime),
            leak(mode),
            "0:0",
            "",
        ]
    }

    #[test]
    fn the_sandbox_output_is_read() {
        let mut fields = vec!["rbv-sandbox 1", "before"];
        fields.extend(entry("d", ".", "40", "1.0", "755"));
        fields.extend(entry("d", "./home/user", "80", "1.0", "755"));
        fields.extend(entry("f", "./home/user/a", "2", "1.0", "644"));
        fields.extend(entry("f", "./home/user/b", "2", "1.0", "644"));
        fields.extend(entry("f", "./home/user/c", "2", "1.0", "644"));
        fields.extend(["end", "after"]);
        fields.extend(entry("d", ".", "40", "1.0", "755"));
        // A directory's size and mtime follow its entries: not a change.
        fields.extend(entry("d", "./home/user", "60", "9.0", "755"));
        fields.extend(entry("f", "./home/user/b", "3", "9.0", "644"));
        fields.extend(entry("f", "./home/user/c", "2", "1.0", "700"));
        fields.extend(entry("f", "./home/user/d", "0", "9.0", "644"));
        fields.extend(["end", "status", "0", "0", "0", "1500", "log"]);
        let mut bytes = record(&fields);
        let rm = record(&["rm", "-f", "a", ""]);
        bytes.extend(record(&["1.2.3", &rm.len().to_string()]));
        bytes.extend(&rm);
        let missing = record(&["frob"]);
        bytes.extend(record(&["1.2.4.missing", &missing.len().to_string()]));
        bytes.extend(&missing);
        bytes.extend(record(&["end", "5", "out", "3"]));
        bytes.extend(b"hi\n");
        let o = parse(&bytes).unwrap();
        assert!(o.parsed && !o.timed_out && o.exit == 0);
        assert_eq!(o.elapsed_ms, 1.5);
        assert_eq!(o.runs_not_kept, 3);
        assert_eq!(o.output, "hi\n");
        assert_eq!(
            o.ran,
            vec![
                Run {
                    program: "rm".into(),
                    args: vec!["-f".into(), "a".into(), "".into()],
                    installed: true,
                    real: false
                },
                Run {
                    program: "frob".into(),
                    args: vec![],
                    installed: false,
                    real: false
                }
            ]
        );
        let seen: Vec<(&str, ChangeKind)> = o
            .changes
            .iter()
            .map(|c| (c.path.as_str(), c.kind))
            .collect();
        assert_eq!(
            seen,
            [
                ("/home/user/a", ChangeKind::Deleted),
                ("/home/user/b", ChangeKind::Modified),
                ("/home/user/c", ChangeKind::Modified),
                ("/home/user/d", ChangeKind::Created),
            ]
        );
    }

    #[test]
    fn a_cut_output_is_an_error() {
        assert!(parse(b"").is_err());
        assert!(parse(b"rbv-sandbox 1\0before\0f\0./a\0").is_err());
        let cut = record(&[
            "rbv-sandbox 1",
            "before",
            "end",
            "after",
            "end",
            "status",
            "0",
            "0",
            "0",
            "1",
            "log",
            "x",
            "99",
        ]);
        assert!(parse(&cut).is_err());
    }
}
