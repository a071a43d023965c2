//! The reach map: every target run from a seed against the reference with
//! the recorder on, what fired joined with the generators' tags and the
//! requirement catalogue (see `reach` for the checks), and what the
//! inputs sent reached of the grammar table (`reach_grammar`), in the same
//! run.

use super::driver::artifact;
use super::reach::{record, Production, Tagged};
use super::reach_grammar::{self, Counts, GrammarReach, Reading};
use super::subject::{InProcess, Subject};
use super::targets::{Target, TARGETS};
use crate::case::requirements::Catalogue;
use arbitrary::Unstructured;
use rbv_protocol::Capability;
use std::collections::{BTreeMap, BTreeSet};

/// Every generator's tagged productions, by generator name.
pub fn declared() -> Vec<(&'static str, Vec<Tagged>)> {
    use super::gen;
    vec![
        ("token", gen::token::productions()),
        ("rule_of_two", gen::rule_of_two::productions()),
        ("sql", gen::tags::SQL.to_vec()),
        ("shell", gen::tags::SHELL.to_vec()),
        ("fetch", gen::tags::FETCH.to_vec()),
        ("manifest", gen::manifest::productions()),
        ("projection", super::target_projection::productions()),
        ("critical_floor", super::target_critical::productions()),
        ("versioning", super::target_versioning::productions()),
        ("audit", super::target_audit::productions()),
    ]
}

/// The capabilities of the requirements that `fired` productions exercise
/// (by the generators' tags).
pub fn reached(fired: &BTreeMap<Production, u64>, catalogue: &Catalogue) -> BTreeSet<Capability> {
    let declared = declared();
    let mut out = BTreeSet::new();
    for (generator, production) in fired.keys() {
        let ids = declared
            .iter()
            .filter(|(g, _)| g == generator)
            .flat_map(|(_, tags)| tags.iter())
            .filter(|(p, _)| p == production)
            .flat_map(|(_, ids)| ids.iter());
        for id in ids {
            if let Some(c) = catalogue.requirement(id).and_then(|r| r.capability) {
                out.insert(c);
            }
        }
    }
    out
}

/// Which targets reach one capability: the group `base` (the protocol
/// itself, which no generator tags) by the targets that need nothing, any
/// other by the targets whose productions exercise one of its
/// requirements.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CapabilityReach {
    pub capability: String,
    /// Empty: no target reaches it, and `rbv run --fuzz` says so.
    pub targets: Vec<String>,
}

/// One requirement's row of the map.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    pub id: String,
    pub level: String,
    pub title: String,
    /// `generator/production` that fired and carries the requirement's tag.
    pub productions: Vec<String>,
}

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Map {
    pub rows: Vec<Row>,
    /// `base`, then every capability, with the targets that reach it.
    pub capabilities: Vec<CapabilityReach>,
    /// Tagged productions that never fired in the measuring run.
    pub stale: Vec<String>,
    /// Productions that fired without a tag.
    pub unmapped: Vec<String>,
    /// Tags naming an id the catalogue does not have.
    pub unknown_ids: Vec<String>,
    pub execs_per_target: u64,
    /// What the inputs reached of the productions the cases cover.
    pub grammar: GrammarReach,
}

impl Map {
    /// MUST requirements of a capability that no production reaches.
    pub fn holes(&self) -> Vec<&Row> {
        self.rows
            .iter()
            .filter(|r| r.level == "MUST" && r.productions.is_empty())
            .collect()
    }

    pub fn ok(&self) -> bool {
        self.holes().is_empty()
            && self.stale.is_empty()
            && self.unmapped.is_empty()
            && self.unknown_ids.is_empty()
            && self.grammar.ok()
    }
}

/// What fired in one target's run, and what its inputs reached of the grammars.
pub type Run = (BTreeMap<Production, u64>, Counts);

/// What fired in `execs` seeded execs of each target against the
/// reference, and what the requests they sent reached of the grammars.
pub fn fired(targets: &[Target], execs: u64, seed: u64) -> Run {
    let (counts, fired) = record(|| {
        let mut counts = Counts::new();
        for target in targets {
            let mut subject = Reading::new(InProcess::new(None));
            for i in 0..execs {
                let bytes = artifact(seed, i);
                let _ = (target.check)(&mut Unstructured::new(&bytes), &mut subject);
                subject.end_exec();
            }
            for (key, n) in subject.counts {
                *counts.entry(key).or_default() += n;
            }
        }
        counts
    });
    (fired, counts)
}

/// The reach map of the generators over `catalogue` and the grammar
/// table `grammar` (the cases' coverage, `grammar::coverage`).
pub fn measure(catalogue: &Catalogue, grammar: &[crate::grammar::Row], execs: u64) -> Map {
    let runs: Vec<(&Target, Run)> = TARGETS
        .iter()
        .map(|t| (t, fired(std::slice::from_ref(t), execs, 0x7eac)))
        .collect();
    let per_target: Vec<(&Target, BTreeMap<Production, u64>)> =
        runs.iter().map(|(t, (f, _))| (*t, f.clone())).collect();
    let sent: Vec<(&str, Counts)> = runs
        .into_iter()
        .map(|(t, (_, counts))| (t.name, counts))
        .collect();
    let mut fired: BTreeMap<Production, u64> = BTreeMap::new();
    for (_, f) in &per_target {
        for (k, n) in f {
            *fired.entry(*k).or_default() += n;
        }
    }
    let runs_the_implementation = |t: &Target| t.name != super::targets::CASE_LOADER.name;
    let base = CapabilityReach {
        capability: rbv_report::model::BASE.to_owned(),
        targets: per_target
            .iter()
            .filter(|(t, _)| t.needs.is_empty() && runs_the_implementation(t))
            .map(|(t, _)| t.name.to_owned())
            .collect(),
    };
    let reaches: Vec<(&str, BTreeSet<Capability>)> = per_target
        .iter()
        .map(|(t, f)| (t.name, reached(f, catalogue)))
        .collect();
    let capabilities = std::iter::once(base)
        .chain(Capability::ALL.iter().map(|c| {
            CapabilityReach {
                capability: c.as_str().to_owned(),
                targets: reaches
                    .iter()
                    .filter(|(_, caps)| caps.contains(c))
                    .map(|(name, _)| (*name).to_owned())
                    .collect(),
            }
        }))
        .collect();
    let declared = declared();
    let mut map = Map {
        execs_per_target: execs,
        capabilities,
        grammar: reach_grammar::join(grammar, &sent, &reach_grammar::Gaps::shipped()),
        ..Map::default()
    };
    let mut by_req: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let known: BTreeSet<&str> = catalogue
        .requirements
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    for (generator, tags) in &declared {
        for (production, ids) in tags {
            let name = format!("{generator}/{production}");
            if !fired.contains_key(&(generator, production)) {
                map.stale.push(name.clone());
                continue;
            }
            for id in *ids {
                if !known.contains(id) {
                    map.unknown_ids.push(format!("{name}: {id}"));
                }
                by_req.entry(id).or_default().push(name.clone());
            }
        }
    }
    for (generator, production) in fired.keys() {
        let tagged = declared
            .iter()
            .any(|(g, tags)| g == generator && tags.iter().any(|(p, _)| p == production));
        if !tagged {
            map.unmapped.push(format!("{generator}/{production}"));
        }
    }
    for r in &catalogue.requirements {
        // Every capability has a target; the protocol's own rules (no
        // capability) are reached by `base`'s targets, which no tag names.
        if r.capability.is_none() {
            continue;
        }
        map.rows.push(Row {
            id: r.id.clone(),
            level: r.level.to_string(),
            title: r.title.clone(),
            productions: by_req.remove(r.id.as_str()).unwrap_or_default(),
        });
    }
    map
}

impl std::fmt::Display for Map {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "# generator reach ({} seeded execs per target, against the reference)",
            self.execs_per_target
        )?;
        for r in &self.rows {
            let reach = if r.productions.is_empty() {
                "-- none --".to_owned()
            } else {
                r.productions.join(", ")
            };
            writeln!(f, "{} {:<14} {}: {reach}", r.id, r.level, r.title)?;
        }
        writeln!(
            f,
            "# reach per capability (the targets `rbv run --fuzz` runs for it)"
        )?;
        for c in &self.capabilities {
            let targets = if c.targets.is_empty() {
                "-- no target: not fuzzed --".to_owned()
            } else {
                c.targets.join(", ")
            };
            writeln!(f, "{:<15} {targets}", c.capability)?;
        }
        let lists = [
            (
                "MUST requirements with no production",
                self.holes()
                    .iter()
                    .map(|r| r.id.clone())
                    .collect::<Vec<_>>(),
            ),
            (
                "tagged productions that never fired (stale tags)",
                self.stale.clone(),
            ),
            (
                "productions that fired without a tag",
                self.unmapped.clone(),
            ),
            ("tags naming no requirement", self.unknown_ids.clone()),
        ];
        for (what, items) in lists {
            if !items.is_empty() {
                writeln!(f, "!! {what}: {}", items.join(", "))?;
            }
        }
        write!(f, "{}", self.grammar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalogue() -> Catalogue {
        // The embedded catalogue: the same file, and the test runs from the
        // packaged crate too.
        serde_saphyr::from_str(rbv_cases::get(rbv_cases::CATALOGUE).unwrap()).unwrap()
    }

    #[test]
    fn every_tag_fires_names_a_requirement_and_every_production_is_tagged() {
        // The budget `rbv fuzz --reach` uses by default: the rarest dialect
        // productions fire first between 1,500 and 3,000 execs.
        let table = super::reach_grammar::table(&crate::embedded::files()).unwrap();
        let map = measure(&catalogue(), &table, 3000);
        // Every production the cases cover is reached by a generated input
        // or listed, with its reason, in harness/fuzz-reach-gaps.yaml; and
        // nothing listed there is reached.
        assert!(
            map.grammar.gaps.is_empty(),
            "covered productions no generator reaches (write a generator, or list them \
             in harness/fuzz-reach-gaps.yaml with a reason): {:#?}",
            map.grammar.gaps
        );
        assert!(
            map.grammar.stale.is_empty(),
            "stale entries of harness/fuzz-reach-gaps.yaml: {:#?}",
            map.grammar.stale
        );
        // Each payload grammar is read: a classifier the recorder does not
        // reach would leave every row at zero, all of them listed.
        for grammar in ["bash", "sql", "fetch", "schema"] {
            assert!(
                map.grammar
                    .productions
                    .iter()
                    .any(|p| p.grammar == grammar && p.inputs > 0),
                "no input reached {grammar}"
            );
        }
        assert!(map.stale.is_empty(), "stale tags: {:?}", map.stale);
        assert!(
            map.unmapped.is_empty(),
            "untagged productions: {:?}",
            map.unmapped
        );
        assert!(
            map.unknown_ids.is_empty(),
            "unknown ids: {:?}",
            map.unknown_ids
        );
        // Every capability a generator tags is reached by its own target;
        // the ones about answers are listed as reached by none.
        let reach = |name: &str| -> Vec<String> {
            map.capabilities
                .iter()
                .find(|c| c.capability == name)
                .unwrap_or_else(|| panic!("{name} listed"))
                .targets
                .clone()
        };
        for (capability, target) in [
            ("shell", "shell_bypass"),
            ("sql", "sql_bypass"),
            ("fetch", "url_loopback"),
            ("tokens", "token_binding"),
            ("rule-of-two", "rule_of_two"),
            ("projection", "projection"),
            ("manifest", "manifest"),
            ("base", "protocol_decoder"),
            ("audit", "audit"),
            ("critical-floor", "critical_floor"),
            ("versioning", "versioning"),
        ] {
            assert!(
                reach(capability).iter().any(|t| t == target),
                "{capability}: {:?}",
                reach(capability)
            );
        }
        let unreached: Vec<&str> = map
            .capabilities
            .iter()
            .filter(|c| c.targets.is_empty())
            .map(|c| c.capability.as_str())
            .collect();
        assert!(unreached.is_empty(), "no target reaches {unreached:?}");
        // The token and Rule-of-Two generators reach every MUST of theirs.
        let holes: Vec<&str> = map.holes().iter().map(|r| r.id.as_str()).collect();
        assert!(
            !holes
                .iter()
                .any(|id| id.starts_with("RBV-TOK") || id.starts_with("RBV-R2")),
            "{holes:?}"
        );
    }

    #[test]
    fn a_production_without_a_tag_is_reported() {
        let ((), fired) = record(|| crate::fuzz::reach::fire("token", "made-up"));
        assert_eq!(fired.get(&("token", "made-up")), Some(&1));
        // Recording is off outside `record`: nothing accumulates.
        crate::fuzz::reach::fire("token", "made-up");
        assert_eq!(crate::fuzz::reach::fired_count(), 0);
    }
}
