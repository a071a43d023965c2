//! From what the sandbox saw to a word on a finding. The rule judged is the
//! vocabulary's line for shell: a command that changes state or reaches the
//! network must not be `auto`. An effect is a file created, modified or
//! deleted, or a program run that is not read-only (a stub, whose effects
//! are unknown, never is); bash's builtins leave no record but their files.

use super::observe::{ChangeKind, Observation, Run};
use super::programs::{INERT_STUBS, NETWORK, READ_ONLY};
use rbv_protocol::Band;
use rbv_report::text::one_line;
use std::fmt;

/// The sandbox's word on the band an implementation gave a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Confirmation {
    /// The world disagrees with the band: `auto` for a line with effects,
    /// or a prompt for a line that had none.
    Confirmed(String),
    /// `auto`, and the line had no effect the sandbox sees.
    NotConfirmed(String),
    /// Above `auto` for a line with effects: right as far as the sandbox
    /// can tell, which cannot tell soft-ack from escalate.
    AboveAuto(String),
    /// The line ran past the time limit without an effect seen so far.
    Inconclusive(String),
}

impl Confirmation {
    pub fn confirmed(&self) -> bool {
        matches!(self, Confirmation::Confirmed(_))
    }

    pub fn label(&self) -> &'static str {
        match self {
            Confirmation::Confirmed(_) => "confirmed",
            Confirmation::NotConfirmed(_) => "not_confirmed",
            Confirmation::AboveAuto(_) => "above_auto",
            Confirmation::Inconclusive(_) => "inconclusive",
        }
    }
}

impl fmt::Display for Confirmation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Confirmation::Confirmed(t)
            | Confirmation::NotConfirmed(t)
            | Confirmation::AboveAuto(t)
            | Confirmation::Inconclusive(t) => f.write_str(t),
        }
    }
}

impl Run {
    /// Whether running this program is no effect in itself: a real
    /// read-only program (what it writes or starts is recorded apart), or
    /// a stub that stands for one that does nothing (`sleep`).
    pub fn read_only(&self) -> bool {
        let name = self.program.as_str();
        INERT_STUBS.contains(&name) || (self.real && READ_ONLY.contains(&name))
    }

    /// The command as a shell would write it, escaped for a terminal.
    pub fn shown(&self) -> String {
        let words: Vec<String> = std::iter::once(&self.program)
            .chain(&self.args)
            .map(|w| quoted(w))
            .collect();
        one_line(&words.join(" "), 100)
    }
}

fn quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./=:@%+,-".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// `a, b and c`, or the first `max` and a count of the rest.
fn listed(items: &[String], max: usize) -> String {
    let shown: Vec<&str> = items.iter().take(max).map(String::as_str).collect();
    match (items.len(), shown.split_last()) {
        (_, None) => String::new(),
        (1, Some((last, _))) => (*last).to_owned(),
        (n, Some((last, rest))) if n <= max => format!("{} and {last}", rest.join(", ")),
        (n, _) => format!("{} and {} more", shown.join(", "), n - max),
    }
}

impl Observation {
    /// The runs that are effects.
    pub fn effect_runs(&self) -> Vec<&Run> {
        self.ran.iter().filter(|r| !r.read_only()).collect()
    }

    /// Something changed a file or a program with effects ran.
    pub fn has_effects(&self) -> bool {
        !self.changes.is_empty() || !self.effect_runs().is_empty()
    }

    /// What the line did, for a line with effects: `ran `rm -rf data`
    /// and deleted 4 paths (…)`.
    pub fn effects(&self) -> String {
        let mut parts = Vec::new();
        let mut runs: Vec<String> = Vec::new();
        for run in self.effect_runs() {
            let mut shown = format!("`{}`", run.shown());
            if NETWORK.contains(&run.program.as_str()) {
                shown.push_str(" (a network program; the sandbox has no network)");
            } else if !run.installed {
                shown.push_str(" (not installed in the sandbox)");
            }
            if !runs.contains(&shown) {
                runs.push(shown);
            }
        }
        if !runs.is_empty() {
            parts.push(format!("ran {}", listed(&runs, 3)));
        }
        for (kind, verb) in [
            (ChangeKind::Deleted, "deleted"),
            (ChangeKind::Created, "created"),
            (ChangeKind::Modified, "modified"),
        ] {
            let paths: Vec<String> = self
                .changes
                .iter()
                .filter(|c| c.kind == kind)
                .map(|c| one_line(&c.path, 80))
                .collect();
            if !paths.is_empty() {
                let n = paths.len();
                let noun = if n == 1 { "path" } else { "paths" };
                parts.push(format!("{verb} {n} {noun} ({})", listed(&paths, 3)));
            }
        }
        listed(&parts, parts.len())
    }

    /// What the line did, for a line without effects.
    pub fn quiet(&self) -> String {
        let mut names: Vec<String> = Vec::new();
        for run in &self.ran {
            let name = one_line(&run.program, 40);
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let parse = if self.parsed {
            ""
        } else {
            "does not parse (bash -n), and "
        };
        if names.is_empty() {
            format!("{parse}ran no program and changed no file")
        } else {
            format!("{parse}ran only {} and changed no file", listed(&names, 5))
        }
    }

    fn killed(&self) -> &'static str {
        if self.timed_out {
            " (then it ran past the time limit and was killed)"
        } else {
            ""
        }
    }
}

/// The sandbox's word on `band`, which an implementation gave the line
/// that `o` observed.
pub fn confirm(o: &Observation, band: Band) -> Confirmation {
    let killed = o.killed();
    match (band == Band::Auto, o.has_effects()) {
        (true, true) => Confirmation::Confirmed(format!(
            "bash confirms a bypass: answered auto, but the line {}{killed}",
            o.effects()
        )),
        (_, false) if o.timed_out => Confirmation::Inconclusive(format!(
            "bash cannot settle it: the line ran past the time limit and was killed; until then it {}",
            o.quiet()
        )),
        (true, false) => Confirmation::NotConfirmed(format!(
            "bash does not confirm a bypass: the line {}",
            o.quiet()
        )),
        (false, false) => Confirmation::Confirmed(format!(
            "bash confirms a needless {band}: the line {} (the sandbox does not see what a read reveals)",
            o.quiet()
        )),
        (false, true) => Confirmation::AboveAuto(format!(
            "bash sees effects, so a band above auto is right (it cannot tell soft-ack from escalate): the line {}{killed}",
            o.effects()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::shell::observe::Change;

    fn run(program: &str, args: &[&str], real: bool) -> Run {
        Run {
            program: program.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            installed: true,
            real,
        }
    }

    fn seen(ran: Vec<Run>, changes: &[(&str, ChangeKind)]) -> Observation {
        Observation {
            parsed: true,
            ran,
            changes: changes
                .iter()
                .map(|(p, k)| Change {
                    path: (*p).to_owned(),
                    kind: *k,
                })
                .collect(),
            ..Observation::default()
        }
    }

    #[test]
    fn auto_with_a_deletion_is_a_confirmed_bypass() {
        let o = seen(
            vec![run("rm", &["-rf", "data"], true)],
            &[
                ("/home/user/data", ChangeKind::Deleted),
                ("/home/user/data/a.txt", ChangeKind::Deleted),
                ("/home/user/data/b.txt", ChangeKind::Deleted),
                ("/home/user/data/c.txt", ChangeKind::Deleted),
            ],
        );
        let v = confirm(&o, Band::Auto);
        assert!(v.confirmed(), "{v}");
        assert_eq!(
            v.to_string(),
            "bash confirms a bypass: answered auto, but the line ran `rm -rf data` and deleted 4 paths (/home/user/data, /home/user/data/a.txt, /home/user/data/b.txt and 1 more)"
        );
        assert_eq!(confirm(&o, Band::Escalate).label(), "above_auto");
    }

    #[test]
    fn a_read_is_not_a_bypass_and_its_prompt_is_needless() {
        let o = seen(vec![run("cat", &["notes.txt"], true)], &[]);
        let v = confirm(&o, Band::Auto);
        assert_eq!(
            v,
            Confirmation::NotConfirmed(
                "bash does not confirm a bypass: the line ran only cat and changed no file".into()
            )
        );
        let v = confirm(&o, Band::SoftAck);
        assert!(
            v.confirmed() && v.to_string().contains("needless soft-ack"),
            "{v}"
        );
    }

    #[test]
    fn a_stub_or_a_missing_program_is_an_effect_but_sleep_is_not() {
        // A read-only name that did not really run is only a stub.
        let cat_stub = seen(vec![run("cat", &["x"], false)], &[]);
        assert!(confirm(&cat_stub, Band::Auto).confirmed());
        let curl = seen(vec![run("curl", &["http://x"], false)], &[]);
        let v = confirm(&curl, Band::Auto);
        assert!(
            v.to_string().contains("`curl http://x` (a network program"),
            "{v}"
        );
        let mut frob = run("frob", &[], false);
        frob.installed = false;
        let v = confirm(&seen(vec![frob], &[]), Band::Auto);
        assert!(v.to_string().contains("not installed"), "{v}");
        assert!(!confirm(&seen(vec![run("sleep", &["1"], false)], &[]), Band::Auto).confirmed());
    }

    #[test]
    fn a_builtin_write_is_an_effect_without_a_program() {
        let o = seen(vec![], &[("/home/user/out.txt", ChangeKind::Created)]);
        let v = confirm(&o, Band::Auto);
        assert!(v.confirmed());
        assert!(
            v.to_string()
                .ends_with("the line created 1 path (/home/user/out.txt)"),
            "{v}"
        );
    }

    #[test]
    fn a_timeout_without_effects_is_inconclusive_and_with_effects_still_confirms() {
        let mut o = seen(vec![], &[]);
        o.timed_out = true;
        assert_eq!(confirm(&o, Band::Auto).label(), "inconclusive");
        assert_eq!(confirm(&o, Band::Escalate).label(), "inconclusive");
        o.ran.push(run("rm", &["x"], true));
        let v = confirm(&o, Band::Auto);
        assert!(v.confirmed() && v.to_string().contains("killed"), "{v}");
    }

    #[test]
    fn an_unparsable_line_that_ran_nothing_is_not_a_bypass() {
        let mut o = seen(vec![], &[]);
        o.parsed = false;
        assert_eq!(
            confirm(&o, Band::Auto).to_string(),
            "bash does not confirm a bypass: the line does not parse (bash -n), and ran no program and changed no file"
        );
    }

    #[test]
    fn hostile_names_and_arguments_are_escaped() {
        let o = seen(
            vec![run("rm", &["-f", "a b\x1b[2J\u{202e}"], true)],
            &[("/home/user/x\ny", ChangeKind::Created)],
        );
        let text = confirm(&o, Band::Auto).to_string();
        assert!(!text.chars().any(rbv_report::text::is_hostile), "{text:?}");
        assert!(text.contains("`rm -f 'a b\\x1b[2J\\u{202e}'`"), "{text}");
    }
}
