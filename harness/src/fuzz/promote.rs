//! From a fuzz artifact to a regression case: rerun the target on the bytes
//! against the subject that failed, write the case under
//! `cases/regressions/<area>/` and keep the bytes under
//! `corpora/<target>/regressions/`.

use super::finding::{artifact_hash, Finding};
use super::subject::Subject;
use super::targets::Target;
use crate::case::{execute, load_files, Case, CATALOGUE, FIXTURES};
use crate::transport::InProcess;
use crate::verdict::Verdict;
use arbitrary::Unstructured;
use rbv_reference::profile::{Profile, KEYS};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub struct Promoted {
    pub finding: Finding,
    pub case_path: PathBuf,
    pub artifact_path: PathBuf,
    pub yaml: String,
}

/// Today as `YYYY-MM-DD` (UTC): the date part of the reference's audit
/// timestamp.
pub fn today() -> String {
    rbv_reference::audit::now_rfc3339()[..10].to_owned()
}

/// Reruns `target` on `artifact` against `subject`; on a finding writes the
/// case and the bytes below `root` (the repository root).
pub fn promote(
    target: &Target,
    artifact: &[u8],
    subject: &mut dyn Subject,
    root: &Path,
    found: &str,
) -> Result<Promoted, String> {
    let finding = match (target.check)(&mut Unstructured::new(artifact), subject) {
        Ok(Some(f)) => f,
        Ok(None) => {
            return Err(format!(
            "the artifact reproduces no finding against {} (promote against the implementation or \
                 mutant that failed: --impl CMD or RBV_MUTANT=NAME)",
            subject.name()
        ))
        }
        Err(e) => {
            return Err(format!(
                "the artifact is too short for target {}: {e}",
                target.name
            ))
        }
    };
    let (short, _) = artifact_hash(artifact);
    let rel = format!("{}.yaml", finding.case_id(artifact));
    let draft = finding.to_yaml(artifact, found);
    let context = case_context(&root.join("cases"))?;
    let profile = profile_conditions(&context, &rel, &draft)?;
    let yaml = finding.to_yaml_with_profile(artifact, found, &profile);
    reproduce(&load_one(&context, &rel, &yaml)?, subject)?;
    let case_path = root.join("cases").join(&rel);
    let artifact_path = root
        .join("corpora")
        .join(target.name)
        .join("regressions")
        .join(&short);
    // A checkout may hold planted links (`cases/regressions -> /etc`):
    // nothing is written through one.
    for path in [&case_path, &artifact_path] {
        rbv_report::files::refuse_links(root, path).map_err(|e| e.to_string())?;
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        rbv_report::files::refuse_links(root, path).map_err(|e| e.to_string())?;
    }
    rbv_report::files::replace_file(&case_path, yaml.as_bytes())
        .map_err(|e| format!("{}: {e}", case_path.display()))?;
    rbv_report::files::replace_file(&artifact_path, artifact)
        .map_err(|e| format!("{}: {e}", artifact_path.display()))?;
    Ok(Promoted {
        finding,
        case_path,
        artifact_path,
        yaml,
    })
}

/// The files a case may refer to: the catalogue and the plugin fixtures
/// under `cases_root`.
fn case_context(cases_root: &Path) -> Result<Vec<(String, String)>, String> {
    let mut files = Vec::new();
    let catalogue = cases_root.join(CATALOGUE);
    if let Ok(text) = fs::read_to_string(&catalogue) {
        files.push((CATALOGUE.to_owned(), text));
    }
    if let Ok(entries) = fs::read_dir(cases_root.join(FIXTURES)) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "yaml") {
                let name = format!("{FIXTURES}{}", entry.file_name().to_string_lossy());
                let text =
                    fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                files.push((name, text));
            }
        }
    }
    Ok(files)
}

/// The one case of `yaml` (at `rel`), loaded with `context`.
fn load_one(context: &[(String, String)], rel: &str, yaml: &str) -> Result<Case, String> {
    let mut files = context.to_vec();
    files.push((rel.to_owned(), yaml.to_owned()));
    let suite = load_files(&files).map_err(|errors| {
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        format!("the promoted case does not load:\n{}", shown.join("\n"))
    })?;
    suite
        .cases
        .into_iter()
        .next()
        .ok_or_else(|| "the promoted case did not load".to_owned())
}

/// Whether `case` fails on `subject`, the implementation its finding was
/// found in: a case that passes there captures nothing, and is not written.
pub fn reproduce(case: &Case, subject: &mut dyn Subject) -> Result<(), String> {
    let verdict = subject.run_case(case)?;
    match verdict {
        Verdict::Fail(_) | Verdict::Error(_) => Ok(()),
        Verdict::Pass => Err(format!(
            "the finding's case {} passes on {}: it does not reproduce the finding, and no case is written",
            case.id,
            subject.name()
        )),
        Verdict::Skip { reason } => Err(format!(
            "the finding's case {} does not run on {} ({reason}): it does not reproduce the finding, and no case is written",
            case.id,
            subject.name()
        )),
    }
}

/// [`reproduce`] for the case `finding` becomes in `rbv fuzz`'s output,
/// loaded with the corpus built into rbv (no checkout needed).
pub fn reproduce_recorded(
    finding: &Finding,
    artifact: &[u8],
    found: &str,
    subject: &mut dyn Subject,
) -> Result<(), String> {
    let context: Vec<(String, String)> = crate::embedded::files()
        .into_iter()
        .filter(|(name, _)| name == CATALOGUE || name.starts_with(FIXTURES))
        .collect();
    let rel = format!("{}.yaml", finding.case_id(artifact));
    let case = load_one(&context, &rel, &finding.to_yaml(artifact, found))?;
    reproduce(&case, subject)
}

/// The profile conditions a promoted case depends on. The finding's
/// expectation comes from rbv's reading under its default profile; a
/// client answering an open question differently, and correctly, may
/// answer otherwise. So the case runs against the reference under every
/// value of every key (one key varied at a time), and a key whose values
/// do not all pass becomes a condition on the values that do.
pub fn profile_conditions(
    context: &[(String, String)],
    rel: &str,
    yaml: &str,
) -> Result<BTreeMap<String, Value>, String> {
    let case = &load_one(context, rel, yaml)?;
    let passes = |profile: Profile| {
        let mut reference = InProcess::with_profile(None, profile);
        execute(case, &mut reference, "promote-1").verdict.is_pass()
    };
    if !passes(Profile::default()) {
        return Err(format!(
            "{}: the promoted case fails the reference under its default profile",
            case.id
        ));
    }
    let defaults = Profile::default().to_handshake_map();
    let mut conditions = BTreeMap::new();
    for (key, values) in KEYS {
        let mut holding = Vec::new();
        for value in values {
            let mut profile = Profile::default();
            profile.set(key, value)?;
            let wire = profile.to_handshake_map()[key].clone();
            if wire == defaults[key] || passes(profile) {
                holding.push(wire);
            }
        }
        if holding.len() < values.len() {
            let condition = match holding.as_slice() {
                [one] => one.clone(),
                _ => Value::Array(holding),
            };
            conditions.insert(key.to_owned(), condition);
        }
    }
    Ok(conditions)
}

/// A case promoted from its recorded text (`rbv promote --no-reproduce`).
#[derive(Debug)]
pub struct PromotedRecord {
    pub case_id: String,
    pub case_path: PathBuf,
    pub artifact_path: PathBuf,
}

/// Promotes the case `rbv fuzz` recorded for `artifact` without rerunning
/// the target (the implementation may be fixed by now). The case must be
/// a fuzz finding of `target` for exactly these bytes, and the reference
/// must pass it: a case the reference fails is a bug of the property or of
/// the reference, never a regression test.
pub fn promote_recorded(
    target: &Target,
    artifact: &[u8],
    yaml: &str,
    root: &Path,
) -> Result<PromotedRecord, String> {
    let (short, sha) = artifact_hash(artifact);
    let catalogue_path = root.join("cases").join(crate::case::CATALOGUE);
    let catalogue = fs::read_to_string(&catalogue_path)
        .map_err(|e| format!("{}: {e}", catalogue_path.display()))?;
    let suite = crate::case::load_files(&[
        (crate::case::CATALOGUE.to_owned(), catalogue),
        ("recorded.yaml".to_owned(), yaml.to_owned()),
    ])
    .map_err(|errors| {
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        format!("the recorded case does not load:\n{}", shown.join("\n"))
    })?;
    let [case] = suite.cases.as_slice() else {
        return Err(format!(
            "the recorded case file holds {} cases, not one",
            suite.cases.len()
        ));
    };
    if case.source.fuzz.as_deref() != Some(target.name)
        || case.source.artifact.as_deref() != Some(sha.as_str())
    {
        return Err(format!(
            "the recorded case is not target {}'s finding for these bytes (source: fuzz {:?}, artifact {:?})",
            target.name, case.source.fuzz, case.source.artifact
        ));
    }
    let mut reference = crate::transport::InProcess::new(None);
    let run = crate::case::execute(case, &mut reference, "promote");
    if !run.verdict.is_pass() {
        return Err(format!(
            "the reference does not pass the recorded case ({}): a bug in the reference or the property",
            run.verdict.label()
        ));
    }
    let case_path = root.join("cases").join(format!("{}.yaml", case.id));
    let artifact_path = root
        .join("corpora")
        .join(target.name)
        .join("regressions")
        .join(&short);
    for path in [&case_path, &artifact_path] {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
    }
    fs::write(&case_path, yaml).map_err(|e| format!("{}: {e}", case_path.display()))?;
    fs::write(&artifact_path, artifact).map_err(|e| format!("{}: {e}", artifact_path.display()))?;
    Ok(PromotedRecord {
        case_id: case.id.clone(),
        case_path,
        artifact_path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two fuzz regressions that once held under the default profile
    /// only: promotion now finds the conditions they depend on.
    #[test]
    fn promotion_finds_the_profile_a_finding_depends_on() {
        let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let unconditioned = |name: &str| {
            let path = cases
                .join("regressions/manifest")
                .join(format!("{name}.yaml"));
            let text = fs::read_to_string(path).unwrap();
            let kept: Vec<&str> = text
                .lines()
                .filter(|l| !l.starts_with("profile:"))
                .collect();
            (
                format!("regressions/manifest/{name}.yaml"),
                kept.join("\n") + "\n",
            )
        };
        let (rel, yaml) = unconditioned("fuzz-manifest-6a3a5f4a");
        assert_eq!(
            profile_conditions(&case_context(&cases).unwrap(), &rel, &yaml).unwrap(),
            BTreeMap::from([(
                "permissions_placement".to_owned(),
                serde_json::json!(["top-level", "both"])
            )])
        );
        let (rel, yaml) = unconditioned("fuzz-manifest-2016655e");
        assert_eq!(
            profile_conditions(&case_context(&cases).unwrap(), &rel, &yaml).unwrap(),
            BTreeMap::from([(
                "undeclared_opaque_band".to_owned(),
                serde_json::json!("escalate")
            )])
        );
        // A case that holds under every value gets no condition.
        let (rel, yaml) = unconditioned("fuzz-manifest-2016655e");
        let yaml = yaml.replace("{band: {at_least: escalate}}", "{band: {at_least: auto}}");
        assert_eq!(
            profile_conditions(&case_context(&cases).unwrap(), &rel, &yaml).unwrap(),
            BTreeMap::new()
        );
    }

    /// A finding's case is written only when it fails where the finding
    /// was found: one that passes there captures nothing.
    #[test]
    fn a_case_that_passes_where_it_was_found_does_not_reproduce() {
        let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let context = case_context(&cases).unwrap();
        let yaml = r#"id: regressions/protocol/x
title: t
requirements: [RBV-PRO-001]
source: {note: t}
reason: r
steps:
  - send_raw: "\u000b"
    expect: {type: error}
  - reset_session: {}
"#;
        let rel = "regressions/protocol/x.yaml";
        let mut reference = super::super::subject::InProcess::new(None);
        let passing = load_one(&context, rel, yaml).unwrap();
        let why = reproduce(&passing, &mut reference).unwrap_err();
        assert!(
            why.contains("passes on rbv-reference") && why.contains("no case is written"),
            "{why}"
        );
        let failing = load_one(&context, rel, &yaml.replace("{type: error}", "{type: ack}"));
        reproduce(&failing.unwrap(), &mut reference).unwrap();
    }

    #[test]
    fn today_is_a_date() {
        let d = super::today();
        assert_eq!((d.len(), &d[4..5], &d[7..8]), (10, "-", "-"), "{d}");
        assert!(d.starts_with("20"), "{d}");
    }
}
