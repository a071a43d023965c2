//! From a fuzz artifact to a regression case: rerun the target on the bytes
//! against the subject that failed, write the case under
//! `cases/regressions/<area>/` and keep the bytes under
//! `corpora/<target>/regressions/`.

use super::finding::{artifact_hash, Finding};
use super::subject::Subject;
use super::targets::Target;
use crate::adapter::InProcess;
use crate::case::{execute, load_files, CATALOGUE, FIXTURES};
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
    let profile = profile_conditions(&root.join("cases"), &rel, &draft)?;
    let yaml = finding.to_yaml_with_profile(artifact, found, &profile);
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

/// The profile conditions a promoted case depends on. The finding's
/// expectation comes from rbv's reading under its default profile; a
/// client answering an open question differently, and correctly, may
/// answer otherwise. So the case runs against the reference under every
/// value of every key (one key varied at a time), and a key whose values
/// do not all pass becomes a condition on the values that do.
pub fn profile_conditions(
    cases_root: &Path,
    rel: &str,
    yaml: &str,
) -> Result<BTreeMap<String, Value>, String> {
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
    files.push((rel.to_owned(), yaml.to_owned()));
    let suite = load_files(&files).map_err(|errors| {
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        format!("the promoted case does not load:\n{}", shown.join("\n"))
    })?;
    let case = suite
        .cases
        .first()
        .ok_or("the promoted case did not load")?;
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
/// must pass it: a case the reference fails is a bug of the oracle or of
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
    let mut reference = crate::adapter::InProcess::new(None);
    let run = crate::case::execute(case, &mut reference, "promote");
    if !run.verdict.is_pass() {
        return Err(format!(
            "the reference does not pass the recorded case ({}): a bug in the reference or the oracle",
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
            profile_conditions(&cases, &rel, &yaml).unwrap(),
            BTreeMap::from([(
                "permissions_placement".to_owned(),
                serde_json::json!(["top-level", "both"])
            )])
        );
        let (rel, yaml) = unconditioned("fuzz-manifest-2016655e");
        assert_eq!(
            profile_conditions(&cases, &rel, &yaml).unwrap(),
            BTreeMap::from([(
                "undeclared_opaque_band".to_owned(),
                serde_json::json!("escalate")
            )])
        );
        // A case that holds under every value gets no condition.
        let (rel, yaml) = unconditioned("fuzz-manifest-2016655e");
        let yaml = yaml.replace("{band: {at_least: escalate}}", "{band: {at_least: auto}}");
        assert_eq!(
            profile_conditions(&cases, &rel, &yaml).unwrap(),
            BTreeMap::new()
        );
    }

    #[test]
    fn today_is_a_date() {
        let d = super::today();
        assert_eq!((d.len(), &d[4..5], &d[7..8]), (10, "-", "-"), "{d}");
        assert!(d.starts_with("20"), "{d}");
    }
}
