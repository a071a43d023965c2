//! The manifest property: a plugin that the base specification accepts must
//! load; every entry that breaks the closed vocabulary is ignored (its
//! operation undeclared, never auto); every valid entry declares its floor;
//! several entries → the highest; answers are deterministic; `default`
//! never lowers an unlisted operation.
//!
//! The expected floor is computed here from DESIGN.md §2 independently of
//! the reference: band-only entries declare their band; entries with axes
//! project them (a missing axis at its most dangerous value) and take the
//! higher of that and the band. Assumes the rbv reading of
//! `hard_to_reverse_local: escalate` and `permissions_placement: both`.

use super::finding::{yaml_json, CaseDraft, Finding};
use super::gen::manifest::{input, ManifestInput, OPERATION_IDS};
use super::req;
use super::subject::Subject;
use crate::verdict::FailKind;
use arbitrary::{Result, Unstructured};
use rbv_protocol::*;
use serde_json::Value;
use std::collections::BTreeMap;

/// DESIGN.md §2's projection, written out again as the property's own copy.
pub fn project(r: Reversibility, s: Scope, t: Trust) -> Band {
    match (r, s, t) {
        (Reversibility::Irreversible, _, _) | (_, Scope::External, _) => Band::Escalate,
        (Reversibility::HardToReverse, _, _) => Band::Escalate,
        (Reversibility::Reversible, Scope::Local, Trust::Trusted) => Band::Auto,
        (Reversibility::Reversible, _, _) => Band::SoftAck,
    }
}

fn floor(entry: &Value) -> Option<Band> {
    let field = |k: &str| entry.get(k).and_then(Value::as_str);
    let band = field("band").and_then(|b| b.parse::<Band>().ok());
    let has_axes = ["reversibility", "scope", "trust"]
        .iter()
        .any(|k| entry.get(*k).is_some());
    let projected = has_axes.then(|| {
        project(
            field("reversibility")
                .and_then(|v| v.parse().ok())
                .unwrap_or(Reversibility::Irreversible),
            field("scope")
                .and_then(|v| v.parse().ok())
                .unwrap_or(Scope::External),
            field("trust")
                .and_then(|v| v.parse().ok())
                .unwrap_or(Trust::Untrusted),
        )
    });
    band.into_iter().chain(projected).max()
}

pub fn expected(input: &ManifestInput) -> BTreeMap<&'static str, Option<Band>> {
    let mut out: BTreeMap<&'static str, Option<Band>> =
        OPERATION_IDS.iter().map(|id| (*id, None)).collect();
    let written = if input.permissions {
        &input.entries[..]
    } else {
        &[]
    };
    for e in written.iter().filter(|e| e.invalid.is_none()) {
        let slot = out.entry(e.operation).or_default();
        *slot = (*slot).max(floor(&e.value));
    }
    out
}

/// Validates the bundle twice in one batch: the answers must agree.
fn validate_twice(
    subject: &mut dyn Subject,
    bundle: &PluginBundle,
) -> (Option<PluginReport>, Option<PluginReport>) {
    let session = subject.fresh_session();
    let request = || {
        RequestBody::ValidateManifest(ValidateManifestRequest {
            plugin: bundle.clone(),
        })
    };
    let mut reports = subject
        .call_batch(&session, vec![request(), request()])
        .into_iter()
        .map(|answer| match answer {
            Ok(ResponseBody::Validation(v)) => Some(v.plugin),
            _ => None,
        });
    (reports.next().flatten(), reports.next().flatten())
}

fn unlisted_band(subject: &mut dyn Subject, bundle: PluginBundle) -> Option<Band> {
    let session = subject.fresh_session();
    let operation = Operation {
        plugin: Some("fuzzed-plugin".into()),
        id: "skill:never-listed".into(),
        kind: None,
        arguments: Default::default(),
        trust: Some(Trust::Trusted),
        actor: None,
        dialect: None,
        workspace: None,
    };
    let load = RequestBody::LoadPlugins(LoadPluginsRequest {
        plugins: vec![bundle],
    });
    let evaluate = RequestBody::Evaluate(EvaluateRequest { operation });
    match subject.call_batch(&session, vec![load, evaluate]).pop()? {
        Ok(ResponseBody::Evaluation(e)) => Some(e.band),
        _ => None,
    }
}

fn declarations_yaml(map: &BTreeMap<&str, Option<Band>>) -> String {
    let parts: Vec<String> = map
        .iter()
        .map(|(id, b)| {
            format!(
                "\"{id}\": {}",
                b.map_or("null".to_owned(), |b| b.to_string())
            )
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

pub fn check(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let input = input(u)?;
    let bundle = input.bundle();
    let (Some(first), Some(second)) = validate_twice(subject, &bundle) else {
        return Ok(None);
    };
    let manifest = yaml_json(&bundle.manifest);
    let want = expected(&input);
    let finding = |kind, requirement, summary: String, steps: String| Finding {
        target: "manifest",
        requirement,
        kind,
        summary,
        family: "manifest".into(),
        payload: None,
        difference: String::new(),
        case: CaseDraft {
            area: "manifest",
            title: "Entry-level invalidation and floors of a fuzzed permissions object".into(),
            tags: vec!["manifest"],
            steps,
        },
    };
    let validate_step = format!(
        "  - validate_manifest: {{manifest: {manifest}}}\n    expect: {{loaded: true, declarations: {}}}\n",
        declarations_yaml(&want)
    );
    if first != second {
        return Ok(Some(finding(
            FailKind::Mismatch,
            req::MANIFEST_ENTRY,
            "two validations of one manifest differ".into(),
            validate_step,
        )));
    }
    if let Some(why) = input.rejected {
        if !first.loaded && first.declarations.is_empty() {
            return Ok(None);
        }
        let kind = if first.declarations.values().any(|b| *b == Band::Auto) {
            FailKind::Under
        } else {
            FailKind::Mismatch
        };
        return Ok(Some(finding(
            kind,
            req::MANIFEST_REJECTED,
            format!("a manifest the base specification rejects ({why}) loaded or declared"),
            format!(
                "  - validate_manifest: {{manifest: {manifest}}}\n    expect: {{loaded: false}}\n"
            ),
        )));
    }
    let mut verdict: Option<(FailKind, String)> = None;
    if !first.loaded {
        verdict = Some((
            FailKind::Mismatch,
            "a manifest the base specification accepts was rejected".into(),
        ));
    }
    for (id, want) in &want {
        if verdict.is_some() {
            break;
        }
        let got = first.declarations.get(*id).copied();
        let kind = match (want, got) {
            (None, Some(Band::Auto)) => Some(FailKind::Under),
            (Some(w), Some(g)) if g < *w => Some(FailKind::Under),
            (Some(w), Some(g)) if g > *w => Some(FailKind::Over),
            (w, g) if *w != g => Some(FailKind::Mismatch),
            _ => None,
        };
        if let Some(kind) = kind {
            verdict = Some((
                kind,
                format!(
                    "{id}: declared {}, the rule says {}",
                    floor_name(got),
                    floor_name(*want)
                ),
            ));
        }
    }
    if let Some((kind, summary)) = verdict {
        return Ok(Some(finding(
            kind,
            if input.permissions {
                req::MANIFEST_ENTRY
            } else {
                req::MANIFEST_OPTIONAL
            },
            summary,
            validate_step,
        )));
    }
    if let Some(default) = input.default.filter(|_| input.permissions) {
        let without = ManifestInput {
            default: None,
            ..input.clone()
        }
        .bundle();
        if let (Some(with), Some(base)) = (
            unlisted_band(subject, bundle.clone()),
            unlisted_band(subject, without),
        ) {
            let floor = base.max(default);
            if with < floor {
                let steps = format!(
                    "  - load_plugins: [{{manifest: {manifest}}}]\n  - evaluate: {{plugin: fuzzed-plugin, id: \"skill:never-listed\", trust: trusted}}\n    expect: {{band: {{at_least: {floor}}}}}\n"
                );
                return Ok(Some(finding(
                    FailKind::Under,
                    req::MANIFEST_DEFAULT,
                    format!(
                        "`default: {default}` lowered an unlisted operation from {base} to {with}"
                    ),
                    steps,
                )));
            }
        }
    }
    Ok(None)
}

/// `escalate`, or `undeclared` for no floor.
fn floor_name(floor: Option<Band>) -> &'static str {
    floor.map_or("undeclared", Band::as_str)
}

#[cfg(test)]
mod rejected_tests {
    use super::*;
    use crate::fuzz::driver::{drive, Options};

    /// A client that loads every manifest, even one the base specification
    /// rejects, and declares nothing.
    struct LoadsAll;

    impl Subject for LoadsAll {
        fn fresh_session(&mut self) -> String {
            "s".into()
        }
        fn call(&mut self, _: &str, _: RequestBody) -> std::result::Result<ResponseBody, String> {
            Ok(ResponseBody::Validation(ValidationResponse {
                plugin: PluginReport {
                    name: None,
                    loaded: true,
                    diagnostics: vec![],
                    declarations: Default::default(),
                    default_floor: None,
                },
            }))
        }
        fn claims(&self, _: Capability) -> bool {
            true
        }
        fn name(&self) -> String {
            "loads-all".into()
        }
    }

    #[test]
    fn a_rejected_manifest_that_loads_is_found() {
        let options = Options {
            max_execs: 3000,
            ..Options::default()
        };
        let outcome = drive(&crate::fuzz::targets::MANIFEST, &mut LoadsAll, &options);
        assert!(outcome
            .found
            .iter()
            .any(|f| f.finding.requirement == req::MANIFEST_REJECTED));
    }
}
