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

#[cfg(test)]
mod tests {
    #[test]
    fn today_is_a_date() {
        let d = super::today();
        assert_eq!((d.len(), &d[4..5], &d[7..8]), (10, "-", "-"), "{d}");
        assert!(d.starts_with("20"), "{d}");
    }
}
