//! `rbv run --all-mutants`: the selected cases against the in-process
//! reference and every planted mutant, so that a contributor sees which
//! mutants a new case kills and each mutant sees which cases kill it.
//!
//! A case kills a mutant when the reference passes it and the mutant does
//! not (a failure or an error). Each case runs under its own profile, as
//! `rbv run` runs the reference.

use crate::case::Case;
use crate::runner::{profile_groups, RunOptions};
use crate::transport::Target;
use crate::verdict::Verdict;
use crate::worker::run_pool;
use rbv_reference::Mutant;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Who kills whom, over the selected cases.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Kills {
    /// Cases run, by id (sorted).
    pub cases: Vec<String>,
    /// Cases the reference itself does not pass, with the verdict's label:
    /// they cannot count as kills.
    pub reference_fails: Vec<(String, &'static str)>,
    /// Per case, the mutants it kills (every case run is a key).
    pub by_case: BTreeMap<String, Vec<Mutant>>,
    /// Per mutant (all of them, in `Mutant::ALL` order), the cases that
    /// kill it.
    pub by_mutant: Vec<(Mutant, Vec<String>)>,
}

/// How many cases one task runs on one in-process reference: enough that
/// starting a server is nothing beside them, few enough that the tasks of
/// all the mutants spread over many cores.
pub const CHUNK: usize = 128;

/// The verdicts of `cases` (after `options.filters`, each under its own
/// profile) for the reference (`None`) and each mutant, in `subjects` order.
///
/// Every (subject, profile, chunk of cases) is a task for rayon: the
/// reference is in process, so the work is CPU-bound and no worker pool of
/// children is needed. `options.jobs` tasks run at a time when it is set,
/// else one per core (or `RAYON_NUM_THREADS`). Which server instance runs
/// a case is not fixed, as with `rbv run`'s workers: each case is a
/// session of its own.
pub fn verdicts(
    cases: &[Case],
    options: &RunOptions,
    subjects: &[Option<Mutant>],
) -> Vec<BTreeMap<String, Verdict>> {
    let groups = profile_groups(cases, &options.filters);
    let tasks: Vec<_> = subjects
        .iter()
        .enumerate()
        .flat_map(|(s, mutant)| {
            groups.values().flat_map(move |(profile, group)| {
                group
                    .chunks(CHUNK)
                    .map(move |chunk| (s, Target::InProcess(*mutant, *profile), chunk))
            })
        })
        .collect();
    let run = || {
        crate::parallel::map(&tasks, |(s, target, chunk)| {
            let results = run_pool(chunk, target, 1, options.deadline).results;
            // Only the verdicts are kept: not every mutant's requests and answers.
            let verdicts: Vec<_> = results.into_iter().map(|r| (r.id, r.verdict)).collect();
            (*s, verdicts)
        })
    };
    // `-j N`: a pool of N threads. Without one (or when its threads
    // cannot start), rayon's global pool, or this thread alone.
    let pool = (options.jobs > 0)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(options.jobs)
                .build()
                .ok()
        })
        .flatten();
    let done = match pool {
        Some(pool) => pool.install(run),
        None => run(),
    };
    let mut out = vec![BTreeMap::new(); subjects.len()];
    for (s, verdicts) in done {
        out[s].extend(verdicts);
    }
    out
}

/// Runs `cases` (after `options.filters`) under the reference and under
/// every mutant.
pub fn kills(cases: &[Case], options: &RunOptions) -> Kills {
    let subjects: Vec<Option<Mutant>> = std::iter::once(None)
        .chain(Mutant::ALL.iter().copied().map(Some))
        .collect();
    let mut all = verdicts(cases, options, &subjects).into_iter();
    let reference = all.next().expect("the reference is the first subject");
    let mut out = Kills {
        cases: reference.keys().cloned().collect(),
        ..Kills::default()
    };
    for (id, verdict) in &reference {
        if matches!(verdict, Verdict::Fail(_) | Verdict::Error(_)) {
            out.reference_fails.push((id.clone(), verdict.label()));
        }
        out.by_case.insert(id.clone(), Vec::new());
    }
    for (&mutant, verdicts) in Mutant::ALL.iter().zip(all) {
        let mut killers = Vec::new();
        for (id, verdict) in verdicts {
            let failed = matches!(verdict, Verdict::Fail(_) | Verdict::Error(_));
            if failed && reference.get(&id).is_some_and(Verdict::is_pass) {
                out.by_case.entry(id.clone()).or_default().push(mutant);
                killers.push(id);
            }
        }
        out.by_mutant.push((mutant, killers));
    }
    out
}

/// How many of the weakest kills the summary line names.
pub const WEAKEST: usize = 3;

/// The `n` subjects (mutants, bug families) with the fewest killing cases,
/// fewest first (ties by name): where the suite is one lost case away from
/// not seeing a defect at all.
pub fn weakest<'a>(
    counts: impl IntoIterator<Item = (&'a str, usize)>,
    n: usize,
) -> Vec<(&'a str, usize)> {
    let mut all: Vec<(&str, usize)> = counts.into_iter().collect();
    all.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)));
    all.truncate(n);
    all
}

/// One line naming the weakest kill and the [`WEAKEST`] weakest, e.g.
/// `weakest kill: replayable-token, 3 case(s); the 3 weakest: …`; `what`
/// names the subjects (`mutant`, `family`). Empty when there are none.
pub fn weakest_line<'a>(what: &str, counts: impl IntoIterator<Item = (&'a str, usize)>) -> String {
    let low = weakest(counts, WEAKEST);
    let Some((name, n)) = low.first() else {
        return String::new();
    };
    let list: Vec<String> = low.iter().map(|(m, k)| format!("{m} ({k})")).collect();
    format!(
        "weakest kill: {what} {name}, {n} case(s); the {} weakest: {}",
        low.len(),
        list.join(", ")
    )
}

/// Above this many cases, the per-case lines list only cases that kill
/// nothing (the rest is in the per-mutant counts).
pub const PER_CASE_LINES: usize = 60;

impl Kills {
    /// The text `rbv run --all-mutants` prints.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if self.cases.is_empty() {
            return "rbv: no case matches the filter\n".into();
        }
        let width = self
            .by_mutant
            .iter()
            .map(|(m, _)| m.name().len())
            .max()
            .unwrap_or(0);
        let _ = writeln!(out, "mutants ({} cases run):", self.cases.len());
        for (mutant, killers) in &self.by_mutant {
            let example = killers
                .first()
                .map_or(String::new(), |k| format!(" (e.g. {k})"));
            let _ = writeln!(
                out,
                "  {:<width$}  killed by {:>4} case(s){example}",
                mutant.name(),
                killers.len()
            );
        }
        let all = self.cases.len() <= PER_CASE_LINES;
        let idle = self.by_case.values().filter(|m| m.is_empty()).count();
        if all {
            let _ = writeln!(out, "cases:");
        } else {
            let _ = writeln!(
                out,
                "{idle} of {} cases kill no mutant (precision cases, or rules no mutant breaks); filter to list each case",
                self.cases.len()
            );
        }
        for (id, mutants) in &self.by_case {
            let failed = self.reference_fails.iter().find(|(f, _)| f == id);
            if let Some((_, label)) = failed {
                let _ = writeln!(out, "  {id}: the reference does not pass it ({label})");
            } else if all && mutants.is_empty() {
                let _ = writeln!(out, "  {id}: kills no mutant");
            } else if all {
                let names: Vec<&str> = mutants.iter().map(|m| m.name()).collect();
                let _ = writeln!(out, "  {id}: kills {}", names.join(", "));
            }
        }
        let counts = self.by_mutant.iter().map(|(m, k)| (m.name(), k.len()));
        let line = weakest_line("mutant", counts);
        if !line.is_empty() {
            let _ = writeln!(out, "{line}");
        }
        let survivors: Vec<&str> = self
            .by_mutant
            .iter()
            .filter(|(_, k)| k.is_empty())
            .map(|(m, _)| m.name())
            .collect();
        let killed = self.by_mutant.len() - survivors.len();
        let _ = write!(
            out,
            "rbv: {killed} of {} mutants killed",
            self.by_mutant.len()
        );
        if !survivors.is_empty() {
            let _ = write!(out, "; not by these cases: {}", survivors.join(", "));
        }
        if !self.reference_fails.is_empty() {
            let _ = write!(
                out,
                "; the reference fails {} case(s)",
                self.reference_fails.len()
            );
        }
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kills(per_mutant: &[(Mutant, &[&str])]) -> Kills {
        let mut k = Kills::default();
        for (m, cases) in per_mutant {
            for c in *cases {
                k.by_case.entry((*c).to_owned()).or_default().push(*m);
            }
            let cases: Vec<String> = cases.iter().map(|c| (*c).to_owned()).collect();
            k.by_mutant.push((*m, cases));
        }
        k.cases = k.by_case.keys().cloned().collect();
        k
    }

    #[test]
    fn the_render_names_the_weakest_kill_and_the_three_weakest() {
        let k = kills(&[
            (Mutant::ALL[0], &["a", "b", "c", "d"]),
            (Mutant::ALL[1], &["a", "b"]),
            (Mutant::ALL[2], &["c"]),
            (Mutant::ALL[3], &["a", "b", "c"]),
            (Mutant::ALL[4], &["a", "b", "c", "d", "e"]),
        ]);
        let text = k.render();
        let (m1, m2, m3) = (
            Mutant::ALL[1].name(),
            Mutant::ALL[2].name(),
            Mutant::ALL[3].name(),
        );
        let expected = format!(
            "weakest kill: mutant {m2}, 1 case(s); the 3 weakest: {m2} (1), {m1} (2), {m3} (3)\n"
        );
        assert!(text.contains(&expected), "{text}");
        assert!(
            !text.contains(&format!("{} (", Mutant::ALL[0].name())),
            "{text}"
        );
    }

    #[test]
    fn ties_are_broken_by_name_and_nothing_renders_no_line() {
        let low = weakest([("b", 2), ("a", 2), ("c", 1), ("d", 9)], 3);
        assert_eq!(low, [("c", 1), ("a", 2), ("b", 2)]);
        assert_eq!(weakest_line("family", std::iter::empty()), "");
        assert_eq!(
            weakest_line("family", [("x", 0)]),
            "weakest kill: family x, 0 case(s); the 1 weakest: x (0)"
        );
    }
}
