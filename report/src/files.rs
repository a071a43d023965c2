//! Writing reports into directories that others can plant things in (a
//! repository checked out in CI): never through a symbolic link planted
//! there (the directory the user names may be one), and a
//! report directory is always one run's, never a new `report.json` beside
//! the last run's `summary.md`.

use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` by a rename from a new file in the same
/// directory: a symbolic link planted at `path` is replaced, not followed,
/// and a reader never sees half a file.
pub fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut file = tempfile::Builder::new()
        .prefix(".rbv-")
        .tempfile_in(parent)?;
    file.write_all(bytes)?;
    file.as_file().sync_data()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// An error unless every directory between `root` and `path` (when it
/// exists) is a real directory, not a link that may lead out of the tree.
pub fn refuse_links(root: &Path, path: &Path) -> io::Result<()> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut at = root.to_path_buf();
    for part in rel.parent().into_iter().flat_map(Path::components) {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(io::Error::other(format!(
                    "{} is a symbolic link: rbv does not write through links",
                    at.display()
                )))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Writes `files` into `dir` (created if missing) as one unit: each is
/// written into a fresh private directory inside `dir` first; only when
/// all are written are the previous run's files of these names removed
/// and the new ones renamed into place. An interrupted write leaves the
/// previous report whole, or files of the new one only.
///
/// `dir` is the directory the user named: if it is a link, the report
/// goes where it leads (a link to nothing is an error). What is planted
/// inside it is never followed.
pub fn write_unit(dir: &Path, files: &[(&str, Vec<u8>)]) -> io::Result<()> {
    let names: Vec<&str> = files.iter().map(|(name, _)| *name).collect();
    let mut bytes = files.iter().map(|(_, b)| b);
    write_unit_with(dir, &names, |_, out| {
        out.write_all(bytes.next().expect("one per name"))
    })
}

/// [`write_unit`] of the files `names`, each written by `make` into its
/// file as it is made: a report's documents (tens of megabytes with huge
/// failure messages) need never be held in memory whole.
pub fn write_unit_with(
    dir: &Path,
    names: &[&str],
    mut make: impl FnMut(&str, &mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let resolved;
    let dir = match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => {
            resolved = std::fs::canonicalize(dir).map_err(|e| {
                io::Error::other(format!(
                    "{} is a link to nothing usable: {e}",
                    dir.display()
                ))
            })?;
            resolved.as_path()
        }
        _ => dir,
    };
    if let Ok(m) = std::fs::symlink_metadata(dir) {
        if !m.is_dir() {
            return Err(io::Error::other(format!(
                "{} is in the way: not a directory",
                dir.display()
            )));
        }
    }
    std::fs::create_dir_all(dir)?;
    let staging = tempfile::Builder::new()
        .prefix(".rbv-report-")
        .tempdir_in(dir)?;
    for name in names {
        let file = std::fs::File::create_new(staging.path().join(name))?;
        let mut out = io::BufWriter::with_capacity(64 * 1024, file);
        make(name, &mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_data()?;
    }
    // Whatever would stop a rename (a directory of that name) stops the
    // write before the previous report is touched.
    for name in names {
        if std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_dir()) {
            return Err(io::Error::other(format!(
                "{} is in the way: a directory",
                dir.join(name).display()
            )));
        }
    }
    for name in names {
        // A link or a stale file of that name goes first: rename would
        // replace it anyway, but a failure midway must not leave it.
        match std::fs::remove_file(dir.join(name)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    for name in names {
        std::fs::rename(staging.path().join(name), dir.join(name))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_link_is_replaced_not_followed() {
        let root = tempfile::tempdir().unwrap();
        let victim = root.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let out = root.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::os::unix::fs::symlink(&victim, out.join("a.txt")).unwrap();
        write_unit(&out, &[("a.txt", b"new".to_vec())]).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(out.join("a.txt")).unwrap(), "new");
        replace_file(&out.join("b.txt"), b"b").unwrap();
        std::os::unix::fs::symlink(&victim, out.join("c.txt")).unwrap();
        replace_file(&out.join("c.txt"), b"c").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        // Only the report's files are there: the staging directory is gone.
        let mut names: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["a.txt", "b.txt", "c.txt"]);
    }

    #[test]
    fn a_directory_link_below_the_root_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("cases")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), root.path().join("cases/regressions"))
            .unwrap();
        let target = root.path().join("cases/regressions/x.yaml");
        assert!(refuse_links(root.path(), &target).is_err());
        assert!(refuse_links(root.path(), &root.path().join("cases/x.yaml")).is_ok());
    }
}
