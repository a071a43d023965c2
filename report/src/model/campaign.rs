//! The differential fuzz campaign a run made after its cases (`rbv run
//! --fuzz`): part of the certificate, because a fixed list of cases can be
//! learned and a generator cannot. Recorded by the harness; its findings
//! are judged with the cases by [`crate::certify`].

use super::CaseResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The id prefix of a finding's result: `fuzz/<target>/<first 8 hex digits
/// of the artifact's sha256>` (the case `rbv promote` writes has the same
/// digits in its id).
pub const FINDING_PREFIX: &str = "fuzz/";

/// One campaign: its budget, what ran, and what it found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Campaign {
    /// Seed of every target's input stream (`--seed`).
    pub seed: u64,
    /// The time budget of the whole campaign (`--fuzz`), split equally
    /// across the targets.
    pub budget_ms: u64,
    /// The exec budget (`--fuzz-execs`), split equally across the targets,
    /// each share capped by its time share; absent when only time bounds
    /// the campaign (which is then not reproducible exec for exec).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_execs: Option<u64>,
    /// The second judges that confirmed findings (`postgres`, `url-parsers`,
    /// `bash`), sorted; empty when only rbv's own oracles judged.
    pub oracles: Vec<String>,
    /// The targets that ran, in the order they ran.
    pub targets: Vec<CampaignTarget>,
    /// Claimed capabilities that no target of the campaign reaches: their
    /// level rests on the cases alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_fuzzed: Vec<String>,
    /// One entry per bug (findings grouped by the rule broken, which way,
    /// and how the answer differed), each a failing result of its
    /// capability, its smallest shrunk case standing for the others.
    pub findings: Vec<FuzzFinding>,
}

/// One target's share of the campaign.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CampaignTarget {
    /// The target (`rbv fuzz --target NAME` runs it alone).
    pub name: String,
    /// The capabilities the target needs (sorted); empty for the base
    /// protocol.
    pub needs: Vec<String>,
    /// Execs the implementation answered in full.
    pub execs: u64,
    pub elapsed_ms: f64,
    /// Distinct findings of this target (inputs that shrank to different
    /// cases).
    pub findings: usize,
    /// The bugs behind them: one entry each in `Campaign::findings`.
    #[serde(default)]
    pub bugs: usize,
    /// How often the implementation failed and was started again.
    pub restarts: u32,
    /// The run's deadline (`--deadline`) ended the target before its share
    /// of the budget: fewer execs than asked for, none of them failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut_short: bool,
    /// Why the target stopped before its budget: the implementation kept
    /// failing, and nothing past that point was judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
}

impl CampaignTarget {
    /// Why it ran less than its share, for a table cell: empty when it did not.
    pub fn short_of_budget(&self) -> String {
        match (&self.incomplete, self.cut_short) {
            (Some(why), _) => format!(" (stopped: {why})"),
            (None, true) => " (cut short by --deadline)".to_owned(),
            (None, false) => String::new(),
        }
    }
}

/// A finding: the failing result it counts as, and the case that
/// reproduces it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FuzzFinding {
    pub target: String,
    /// Its id is `fuzz/<target>/…` and its verdict `fail` of the kind
    /// it found (`under`, `over`, `mismatch`); `requirements` is the rule it
    /// breaks, `needs` that rule's capability, `guards` the side it broke
    /// (unsafe or precision), `message` what the oracle saw.
    pub result: CaseResult,
    /// The shrunk case as YAML, what `rbv promote` writes under
    /// `cases/regressions/`.
    pub reproduction: String,
    /// The artifact's bytes, hex: `rbv promote --target T` reads them from a
    /// file.
    pub artifact_hex: String,
    /// Execs of its target until it was found.
    pub after_execs: u64,
    /// How many execs found the bug, over all its shrunk cases.
    pub count: u64,
    /// The distinct shrunk cases behind the bug (this one among them).
    #[serde(default = "one")]
    pub cases: usize,
    /// What the second oracles said about it, one line each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub oracle_words: Vec<String>,
}

fn one() -> usize {
    1
}

impl Campaign {
    pub fn execs(&self) -> u64 {
        self.targets.iter().map(|t| t.execs).sum()
    }

    pub fn elapsed_ms(&self) -> f64 {
        self.targets.iter().map(|t| t.elapsed_ms).sum()
    }

    /// The results the certificate judges beside the cases.
    pub fn results(&self) -> impl Iterator<Item = &CaseResult> {
        self.findings.iter().map(|f| &f.result)
    }

    /// Whether a target stopped before its budget, or the deadline cut one
    /// short: the campaign did not spend what its clause says.
    pub fn incomplete(&self) -> bool {
        self.targets
            .iter()
            .any(|t| t.incomplete.is_some() || t.cut_short)
    }

    /// The campaign as the certificate states it: `fuzzed 3 min (1.1M
    /// execs, seed 7, PostgreSQL oracle), 0 findings`, and the claimed
    /// capabilities no target reaches.
    pub fn clause(&self) -> String {
        let mut inside = vec![
            format!("{} execs", short_count(self.execs())),
            format!("seed {}", self.seed),
        ];
        if !self.oracles.is_empty() {
            let names: Vec<&str> = self.oracles.iter().map(|o| oracle_name(o)).collect();
            inside.push(format!(
                "{} oracle{}",
                names.join(", "),
                if names.len() > 1 { "s" } else { "" }
            ));
        }
        let mut s = format!(
            "fuzzed {} ({}), {}",
            short_duration(self.budget_ms),
            inside.join(", "),
            self.found()
        );
        if self.targets.iter().any(|t| t.incomplete.is_some()) {
            s.push_str(" (incomplete: the implementation stopped answering)");
        }
        if self.targets.iter().any(|t| t.cut_short) {
            s.push_str(" (cut short by --deadline)");
        }
        if !self.not_fuzzed.is_empty() {
            s.push_str(&format!(
                "; not fuzzed: no target reaches {}",
                self.not_fuzzed.join(", ")
            ));
        }
        s
    }
}

impl Campaign {
    /// What it found, bugs first: `0 findings`, `5 bugs (32 findings)`.
    pub fn found(&self) -> String {
        let findings: usize = self.findings.iter().map(|f| f.cases).sum();
        let bugs = self.findings.len();
        match bugs {
            0 => "0 findings".to_owned(),
            _ => format!(
                "{bugs} bug{} ({findings} finding{})",
                super::plural(bugs),
                super::plural(findings)
            ),
        }
    }
}

impl FuzzFinding {
    /// Whether `result` is a finding's: its id is in the campaign's area,
    /// which no case may take (the case loader refuses it).
    pub fn is_finding(result: &CaseResult) -> bool {
        result.id.starts_with(FINDING_PREFIX)
    }
}

/// How an oracle's id reads in a sentence.
pub fn oracle_name(id: &str) -> &str {
    match id {
        "postgres" => "PostgreSQL",
        "url-parsers" => "URL-parser",
        "bash" => "bash",
        other => other,
    }
}

/// `950`, `12.3k`, `1.1M`.
pub fn short_count(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

/// `500 ms`, `45 s`, `3 min`, `1 h 30 min`.
pub fn short_duration(ms: u64) -> String {
    match ms {
        0..=999 => format!("{ms} ms"),
        1_000..=119_999 if ms.is_multiple_of(1000) => format!("{} s", ms / 1000),
        1_000..=119_999 => format!("{:.1} s", ms as f64 / 1000.0),
        _ => {
            let min = ms / 60_000;
            match (min / 60, min % 60) {
                (0, m) => format!("{m} min"),
                (h, 0) => format!("{h} h"),
                (h, m) => format!("{h} h {m} min"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn campaign() -> Campaign {
        Campaign {
            seed: 7,
            budget_ms: 180_000,
            max_execs: None,
            oracles: vec!["postgres".into()],
            targets: vec![CampaignTarget {
                name: "sql_bypass".into(),
                needs: vec!["manifest".into(), "sql".into()],
                execs: 1_100_000,
                elapsed_ms: 180_000.0,
                findings: 0,
                bugs: 0,
                restarts: 0,
                cut_short: false,
                incomplete: None,
            }],
            not_fuzzed: Vec::new(),
            findings: Vec::new(),
        }
    }

    #[test]
    fn the_clause_reads_like_the_certificate() {
        let mut c = campaign();
        assert_eq!(
            c.clause(),
            "fuzzed 3 min (1.1M execs, seed 7, PostgreSQL oracle), 0 findings"
        );
        c.oracles.clear();
        c.budget_ms = 2_500;
        c.targets[0].execs = 420;
        c.not_fuzzed = vec!["audit".into()];
        assert_eq!(
            c.clause(),
            "fuzzed 2.5 s (420 execs, seed 7), 0 findings; not fuzzed: no target reaches audit"
        );
        c.targets[0].cut_short = true;
        assert!(c.incomplete());
        assert!(
            c.clause().contains("0 findings (cut short by --deadline);"),
            "{}",
            c.clause()
        );
    }

    #[test]
    fn counts_and_durations_are_short() {
        assert_eq!(short_count(12_345), "12.3k");
        assert_eq!(short_duration(90_000), "90 s");
        assert_eq!(short_duration(5_400_000), "1 h 30 min");
    }
}
