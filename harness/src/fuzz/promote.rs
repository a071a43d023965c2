//! From a fuzz artifact to a regression case: rerun the target on the bytes
//! against the subject that failed, write the case under
//! `cases/regressions/<area>/` and keep the bytes under
//! `corpora/<target>/regressions/`.

use super::finding::{artifact_hash, Finding};
use super::subject::Subject;
use super::targets::Target;
use arbitrary::Unstructured;
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
    let yaml = finding.to_yaml(artifact, found);
    let case_path = root
        .join("cases")
        .join(format!("{}.yaml", finding.case_id(artifact)));
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
    fs::write(&case_path, &yaml).map_err(|e| format!("{}: {e}", case_path.display()))?;
    fs::write(&artifact_path, artifact).map_err(|e| format!("{}: {e}", artifact_path.display()))?;
    Ok(Promoted {
        finding,
        case_path,
        artifact_path,
        yaml,
    })
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
    #[test]
    fn today_is_a_date() {
        let d = super::today();
        assert_eq!((d.len(), &d[4..5], &d[7..8]), (10, "-", "-"), "{d}");
        assert!(d.starts_with("20"), "{d}");
    }
}
