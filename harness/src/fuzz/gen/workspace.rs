//! Shell commands judged under a declared workspace (RBV-WS-001): a project
//! tool pointed at a directory, or an append to a file, where the directory
//! is the declared root or another project's. The same text changes its
//! truth with the root, so a classifier that ignores the declaration (or
//! reads a root as a prefix of its text) is caught both ways.

use super::{Labeled, Truth};
use arbitrary::{Result, Unstructured};
use rbv_protocol::{AbsolutePath, Band, Workspace};

/// Roots a client declares: a system-looking path, a plain one, one under
/// the declared home, and one whose name another root extends.
const ROOTS: &[&str] = &[
    "/srv/app",
    "/work/project",
    "/home/me/projects/app",
    "/work/project-old",
];

/// What runs the project at `{dir}`, or writes into it.
const COMMANDS: &[(&str, &str)] = &[
    ("make -C {dir} test", "workspace-project-option"),
    ("cd {dir} && make", "workspace-cd"),
    (
        "cargo build --manifest-path {dir}/Cargo.toml",
        "workspace-project-option",
    ),
    ("git -C {dir} status", "workspace-project-option"),
    ("echo x >> {dir}/notes.txt", "workspace-append"),
];

/// A command, its truth under the workspace, and the workspace.
pub fn input(u: &mut Unstructured) -> Result<(Labeled, Workspace)> {
    let root = *u.choose(ROOTS)?;
    let dir = *u.choose(ROOTS)?;
    let (template, family) = *u.choose(COMMANDS)?;
    let inside = dir == root;
    // An append outside the root is at least noted (it escalates where
    // the place is the system's); running code from there escalates.
    let truth = match (inside, family) {
        (true, _) => Truth::Safe(Band::Auto),
        (false, "workspace-append") => Truth::AtLeast(Band::SoftAck),
        (false, _) => Truth::Dangerous,
    };
    let path = |p: &str| AbsolutePath::new(p).expect("the roots are absolute");
    let workspace = Workspace {
        root: path(root),
        cwd: None,
        home: Some(path("/home/me")),
    };
    let side = if inside {
        "workspace-inside"
    } else {
        "workspace-outside"
    };
    Ok((
        Labeled {
            text: template.replace("{dir}", dir),
            truth,
            families: vec![family, side],
        },
        workspace,
    ))
}
