//! Reading a cases tree that arrived in a pull request: only regular
//! files, never through a symbolic link, never more than a case file can
//! reasonably be. A link to `/proc/self/environ` must not be read (its
//! content would be echoed by a parse error), a link to `/dev/zero` or a
//! FIFO named `x.yaml` must not hang or exhaust memory, and a link loop
//! must not make the walk endless.

use super::load::LoadError;
use rustix::fs::{fstat, open, FileType, Mode, OFlags};
use std::io::{self, Read};
use std::path::Path;

/// The largest case file rbv reads (the largest in the corpus is ≈ 50 KB).
pub const MAX_FILE: u64 = 4 << 20;

/// The most a whole tree may hold.
pub const MAX_TREE: u64 = 128 << 20;

fn error(path: &Path, message: impl Into<String>) -> LoadError {
    LoadError {
        path: path.display().to_string(),
        line: 0,
        column: 0,
        message: message.into(),
        snippet: String::new(),
    }
}

fn is_yaml(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

/// Reads `path` if it is a regular file (not a link to one) of at most
/// `max` bytes. Opening does not block on a FIFO, and the size is checked
/// on the file opened, not on a name that may have changed since.
pub fn read_regular(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = open(path, flags, Mode::empty()).map_err(|e| {
        if e == rustix::io::Errno::LOOP {
            io::Error::other("a symbolic link: links in a cases tree are not followed")
        } else {
            e.into()
        }
    })?;
    let stat = fstat(&fd)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err(io::Error::other("not a regular file"));
    }
    if stat.st_size as u64 > max {
        return Err(io::Error::other(format!(
            "{} bytes: larger than the {} bytes a case file may have",
            stat.st_size, max
        )));
    }
    let mut bytes = Vec::with_capacity(stat.st_size as usize);
    // The file may grow while it is read: never past the limit.
    std::fs::File::from(fd)
        .take(max + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(io::Error::other(format!("larger than {max} bytes")));
    }
    Ok(bytes)
}

/// Every `*.yaml` / `*.yml` under `root`, as `(path relative to root with
/// `/`, contents)`, sorted; and an error for each entry that cannot be a
/// case file (a link, a device, a FIFO, too large, not UTF-8).
pub fn read_tree(root: &Path) -> (Vec<(String, String)>, Vec<LoadError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let mut total = 0u64;
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) => {
                errors.push(error(&dir, e.to_string()));
                continue;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            // The entry itself, not what a link points to.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                // A loop resolves to nothing, so `is_dir` cannot see it;
                // named all the same, as the link it is.
                let looped = std::fs::metadata(&path).is_err_and(|e| {
                    e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
                });
                if looped {
                    errors.push(error(
                        &path,
                        "a symbolic link loop: links in a cases tree are not followed",
                    ));
                } else if is_yaml(&path) || path.is_dir() {
                    errors.push(error(
                        &path,
                        "a symbolic link: links in a cases tree are not followed",
                    ));
                }
                continue;
            }
            if kind.is_dir() {
                pending.push(path);
                continue;
            }
            if !is_yaml(&path) {
                continue;
            }
            let left = MAX_TREE.saturating_sub(total);
            let read = read_regular(&path, MAX_FILE.min(left)).and_then(|bytes| {
                String::from_utf8(bytes).map_err(|_| io::Error::other("not valid UTF-8"))
            });
            match read {
                Ok(src) => {
                    total += src.len() as u64;
                    let rel = path.strip_prefix(root).unwrap_or(&path);
                    let rel: Vec<_> = rel
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy())
                        .collect();
                    files.push((rel.join("/"), src));
                }
                Err(e) => errors.push(error(&path, e.to_string())),
            }
        }
    }
    files.sort();
    errors.sort_by(|a, b| a.path.cmp(&b.path));
    (files, errors)
}
