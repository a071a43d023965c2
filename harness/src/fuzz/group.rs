//! One finding per bug: the distinct findings of a run (`Outcome::found`,
//! each a shrunk case) grouped by what the implementation got wrong
//! (`Finding::bug`: the rule the property judged broken, which way, and the
//! answer's difference from the expected one; the generator families its
//! findings came from are listed, not keyed on). `rbv fuzz`
//! shows one representative per group with its size ("24 findings, 1
//! bug"), and `--max-findings`, the summary and `--json` count groups; a
//! campaign that drives targets (certification) reads the same groups.

use super::driver::{Found, Outcome};
use super::finding::Bug;

/// The findings of one bug.
#[derive(Clone, Debug)]
pub struct Group<'a> {
    pub bug: Bug,
    /// The smallest shrunk input of the group (the earliest found on a
    /// tie): the one to read, promote and fix.
    pub representative: &'a Found,
    /// Execs that found the bug, over all its distinct cases.
    pub findings: u64,
    /// Its distinct shrunk cases (`Outcome::found` entries).
    pub cases: usize,
    /// The generator families of those cases, in the order found.
    pub families: Vec<String>,
}

/// The groups of `found`, in the order their first finding was found.
pub fn groups(found: &[Found]) -> Vec<Group<'_>> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    for f in found {
        let bug = f.finding.bug();
        match groups.iter_mut().find(|g| g.bug == bug) {
            Some(g) => {
                g.findings += f.count;
                g.cases += 1;
                if !g.families.contains(&f.finding.family) {
                    g.families.push(f.finding.family.clone());
                }
                if f.artifact.len() < g.representative.artifact.len() {
                    g.representative = f;
                }
            }
            None => groups.push(Group {
                bug,
                representative: f,
                findings: f.count,
                cases: 1,
                families: vec![f.finding.family.clone()],
            }),
        }
    }
    groups
}

impl Outcome {
    /// [`groups`] of this run's findings.
    pub fn groups(&self) -> Vec<Group<'_>> {
        groups(&self.found)
    }

    /// Execs that found something, over every group.
    pub fn findings(&self) -> u64 {
        self.found.iter().map(|f| f.count).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::finding::{CaseDraft, Finding};
    use crate::verdict::FailKind;
    use std::time::Duration;

    fn found(family: &str, difference: &str, len: usize, count: u64) -> Found {
        let finding = Finding {
            target: "protocol_decoder",
            requirement: "RBV-PRO-001",
            kind: FailKind::Mismatch,
            summary: String::new(),
            family: family.to_owned(),
            payload: None,
            difference: difference.to_owned(),
            case: CaseDraft {
                area: "protocol",
                title: String::new(),
                tags: Vec::new(),
                steps: format!("  - send_raw: \"{len}\"\n"),
            },
        };
        Found {
            signature: crate::fuzz::minimize::signature(&finding),
            finding,
            artifact: vec![0; len],
            after_execs: 0,
            after: Duration::ZERO,
            count,
            found_len: len,
        }
    }

    #[test]
    fn findings_of_one_bug_are_one_group_with_its_smallest_input() {
        // The wrapper family differs, the wrong answer does not: one bug.
        let found = [
            found("whitespace", "no answer", 9, 3),
            found("truncated", "no answer", 4, 1),
            found("whitespace", "no answer", 2, 5),
            found("whitespace", "`ack` for `error`", 7, 1),
        ];
        let groups = groups(&found);
        let seen: Vec<(Vec<&str>, &str, u64, usize, usize)> = groups
            .iter()
            .map(|g| {
                (
                    g.families.iter().map(String::as_str).collect(),
                    g.bug.difference.as_str(),
                    g.findings,
                    g.cases,
                    g.representative.artifact.len(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (vec!["whitespace", "truncated"], "no answer", 9, 3, 2),
                (vec!["whitespace"], "`ack` for `error`", 1, 1, 7),
            ]
        );
    }
}
