//! Build and package tools run code the command line does not show
//! (RBV-SH-013): build scripts, recipes, lifecycle scripts, test fixtures.
//! Whether that is acceptable is the T axis: the workspace is the user's
//! project, trusted while nothing untrusted has entered the session, so
//! the development loop on it is a reversible local write (auto). Once
//! the session has ingested untrusted content (a fetched page, a cloned
//! repository), the same build runs code nobody vouched for: the input
//! is untrusted and Rule-of-Two (untrusted + state change) escalates.
//!
//! What the workspace does not vouch for is unknown code and escalates in
//! any session: a package run by name from a registry (`npx pkg`, `go run
//! mod@version`), a makefile or directory outside the workspace, a
//! command handed to the tool (`bundle exec CMD`, `cmake -E`); publishing
//! reaches third parties.

use super::argv::{after_options, operands, option_positions};
use super::walk::{Stdin, Walker};
use super::word::Arg;
use super::{destroy, external, programs, read, unknown, write};
use crate::classify::Inspection;
use crate::mutant::Mutant;
use rbv_protocol::Reversibility::Irreversible;

/// Tools a prefix allowlist names (the `build-tool-prefix-allow` mutant).
#[rustfmt::skip]
const BUILD_TOOLS: &[&str] = &[
    "npm", "npx", "pnpm", "yarn", "bun", "bunx", "pip", "pip3", "uv", "uvx", "poetry", "cargo",
    "go", "make", "gmake", "bundle", "gradle", "mvn", "pytest", "cmake", "dotnet", "lerna",
    "cabal", "mix", "tox",
];

/// Subcommands that publish what the tool built.
const PUBLISHES: &[&str] = &[
    "publish",
    "upload",
    "deploy",
    "push",
    "yank",
    "unpublish",
    "hex.publish",
];

/// The build-tool reading of `name`, where it differs from the generic
/// development-tool table; `None` leaves the decision to that table.
pub fn classify(w: &mut Walker, name: &str, args: &[Arg], stdin: &Stdin) -> Option<Inspection> {
    if w.planted(Mutant::BuildToolPrefixAllow) && BUILD_TOOLS.contains(&name) {
        return Some(write(format!("`{name}` is an allowed build tool")));
    }
    let ops = operands(args);
    let op = |i: usize| ops.get(i).map_or("", |a| a.text.as_str());
    let found = match name {
        "bundle" if op(0) == "exec" => {
            let at = args
                .iter()
                .position(|a| a.text == "exec")
                .map_or(0, |p| p + 1);
            let rest = after_options(name, &args[at..], &["--gemfile"]);
            if rest.is_empty() {
                unknown("`bundle exec` without a command")
            } else {
                programs::classify(w, rest, stdin)
            }
        }
        "cmake" if args.first().is_some_and(|a| a.text == "-E") => cmake_tool(w, &args[1..], stdin),
        "cmake" if args.iter().any(|a| a.text == "-P") => {
            unknown("`cmake -P` runs a CMake script that is not inspected")
        }
        "dotnet" => match (op(0), op(1)) {
            ("nuget", "push" | "delete") => external("`dotnet nuget` changes a package registry"),
            ("tool" | "workload" | "new", "install" | "update")
            | ("add", "package")
            | ("tool", "run" | "exec") => unknown(format!(
                "`dotnet {} {}` brings in and may run third-party code",
                op(0),
                op(1)
            )),
            _ => write("`dotnet` builds or tests the workspace"),
        },
        "make" | "gmake" => return outside_workspace(w, name, args),
        "go" if op(0) == "run" && ops.iter().any(|a| a.text.contains('@')) => {
            unknown("`go run module@version` fetches a module and runs it")
        }
        "gradle" if super::argv::has_flag(name, args, Some('I'), &["init-script"]) => {
            unknown("`gradle --init-script` runs a script from outside the build")
        }
        _ if super::tools::is_dev_tool(name)
            && ops
                .iter()
                .take(2)
                .any(|a| PUBLISHES.contains(&a.text.as_str())) =>
        {
            external(format!("`{name} {}` publishes", op(0)))
        }
        _ => return None,
    };
    Some(found)
}

/// `make -f FILE`, `make -C DIR`: a makefile outside the workspace (an
/// absolute path, the home directory, a parent, stdin) is not the
/// project's code.
/// With a declared workspace `project_elsewhere` has judged these by the
/// root, and this default rule stands aside.
fn outside_workspace(w: &Walker, name: &str, args: &[Arg]) -> Option<Inspection> {
    if w.declared.is_some() {
        return None;
    }
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        let t = a.text.as_str();
        let value = match t {
            "-f" | "--file" | "--makefile" | "-C" | "--directory" => {
                iter.next().map(|v| (v.text.as_str(), v.resolved))
            }
            _ => ["--file=", "--makefile=", "--directory="]
                .iter()
                .find_map(|p| t.strip_prefix(p))
                .map(|v| (v, a.resolved)),
        };
        if let Some((path, resolved)) = value {
            let outside = !resolved
                || path == "-"
                || path.starts_with(['/', '~'])
                || path.split('/').any(|part| part == "..");
            if outside {
                return Some(unknown(format!(
                    "`{name} {t} {path}` runs a makefile from outside the workspace"
                )));
            }
        }
    }
    None
}

/// `cmake -E TOOL …`: CMake's portable shell commands.
fn cmake_tool(w: &mut Walker, args: &[Arg], stdin: &Stdin) -> Inspection {
    let tool = args.first().map_or("", |a| a.text.as_str());
    let rest = args.get(1..).unwrap_or(&[]);
    match tool {
        "echo" | "echo_append" | "capabilities" | "compare_files" | "environment" | "cat"
        | "md5sum" | "sha1sum" | "sha224sum" | "sha256sum" | "sha384sum" | "sha512sum" | "true"
        | "false" | "sleep" => read(format!("`cmake -E {tool}` reads")),
        "copy" | "copy_directory" | "copy_if_different" | "make_directory" | "touch"
        | "touch_nocreate" | "create_symlink" | "create_hardlink" | "rename" | "tar" => {
            write(format!("`cmake -E {tool}` writes workspace files"))
        }
        "rm" | "remove" | "remove_directory" => destroy(
            Irreversible,
            format!("`cmake -E {tool}` deletes files; nothing keeps a copy"),
        ),
        "env" => {
            let at = rest
                .iter()
                .position(|a| !(a.text.starts_with('-') || a.text.contains('=')))
                .unwrap_or(rest.len());
            programs::classify(w, &rest[at..], stdin)
        }
        "chdir" => programs::classify(w, rest.get(1..).unwrap_or(&[]), stdin),
        "time" => programs::classify(w, rest, stdin),
        _ => unknown(format!("`cmake -E {tool}` is not inspected")),
    }
}

/// Options that name the project a tool runs the code of (its directory,
/// manifest or build file), per tool, in every spelling `split` reads:
/// `--opt value`, `--opt=value`, `-Cdir`.
fn project_options(name: &str) -> &'static [&'static str] {
    match name {
        // `cargo install --path DIR` builds the crate there (build.rs).
        "cargo" => &["--manifest-path", "-C", "--path"],
        "git" => &["-C", "--git-dir", "--work-tree"],
        "make" | "gmake" => &["-C", "--directory", "-f", "--file", "--makefile"],
        "npm" => &["--prefix", "-C"],
        "pnpm" => &["-C", "--dir"],
        "yarn" | "bun" => &["--cwd"],
        "go" => &["-C", "-modfile"],
        // The POM, and the settings and toolchains files that name the
        // repositories, mirrors and tools the build's plugins come from.
        "mvn" => &[
            "-f",
            "--file",
            "-s",
            "--settings",
            "--global-settings",
            "-t",
            "--toolchains",
        ],
        // An init script (`-I`) runs before the build, an included build's
        // scripts with it, and the user home's `init.d` scripts at start.
        "gradle" => &[
            "-p",
            "--project-dir",
            "-b",
            "--build-file",
            "-c",
            "--settings-file",
            "-I",
            "--init-script",
            "--include-build",
            "-g",
            "--gradle-user-home",
        ],
        "poetry" => &["-C", "--directory", "-P", "--project"],
        "uv" => &["--directory", "--project"],
        "pip" | "pip3" => &["-e", "--editable"],
        "just" => &["-f", "--justfile", "-d", "--working-directory"],
        // go-task's pflag options: `-d, --dir` (the directory it runs
        // from, whose Taskfile it reads) and `-t, --taskfile`.
        "task" | "go-task" => &["-d", "--dir", "-t", "--taskfile"],
        "bundle" => &["--gemfile"],
        // rake(1): `-f, --rakefile FILE`, `-C, --directory DIR` (change to
        // DIR first), `-I, --libdir DIR` and `-R, --rakelibdir DIR` (where
        // required code and rakelib tasks are loaded from).
        "rake" => &[
            "-f",
            "--rakefile",
            "-C",
            "--directory",
            "-I",
            "--libdir",
            "-R",
            "--rakelibdir",
        ],
        "tox" => &["-c", "--conf"],
        "pytest" => &["--rootdir", "-c", "--config-file"],
        "cmake" => &["-S", "--build"],
        "ninja" | "meson" => &["-C"],
        _ => &[],
    }
}

/// Operands that name the code a tool runs, per tool (from each tool's
/// usage): `go run|test|build|vet|generate|install` build and run the
/// packages or files named by a path (`go help packages`: an import path
/// that is a relative or absolute path names a directory); `pytest` loads
/// the `conftest.py` files of every path it collects (pytest docs, "Writing
/// plugins": conftest files along the paths are imported); `meson
/// setup|compile|test` configures and builds the directories named;
/// `docker build`/`podman build` run the context's Dockerfile. A package
/// import path (`github.com/x/y`) is not a place.
fn project_operands<'a>(name: &str, args: &'a [Arg]) -> Vec<&'a Arg> {
    let ops = operands(args);
    let paths = |from: usize| -> Vec<&'a Arg> {
        ops.iter()
            .skip(from)
            .filter(|a| a.text.starts_with(['/', '.', '~']) || a.text.contains("/."))
            .copied()
            .collect()
    };
    let sub = ops.first().map_or("", |a| a.text.as_str());
    match name {
        "go" if matches!(
            sub,
            "run" | "test" | "build" | "vet" | "generate" | "install"
        ) =>
        {
            paths(1)
        }
        "pytest" | "py.test" => ops,
        "meson" => ops.into_iter().skip(1).collect(),
        "docker" | "podman" | "buildah" if sub == "build" => paths(1),
        // A local project installed by path builds there: pip's `install
        // <path>` runs the project's build backend (pip docs, "pip
        // install": local project path), npm's `install <folder>` its
        // lifecycle scripts (npm docs, "npm install": `npm install
        // <folder>`).
        "pip" | "pip3" if matches!(sub, "install" | "wheel" | "download") => paths(1),
        "npm" | "pnpm" | "yarn" if matches!(sub, "install" | "i" | "add") => paths(1),
        _ => Vec::new(),
    }
}

/// Tools that run code found in the directory they run in: build files,
/// package scripts, the repository's config and hooks.
#[rustfmt::skip]
const RUNS_PROJECT: &[&str] = &[
    "cargo", "git", "make", "gmake", "npm", "pnpm", "yarn", "bun", "go", "mvn", "gradle",
    "poetry", "uv", "pip", "pip3", "just", "task", "rake", "bundle", "tox", "nox", "pytest",
    "cmake", "meson", "ninja", "bazel", "sbt", "ant", "deno", "mix", "dotnet", "direnv",
];

/// Running a project that lives outside the workspace:
/// a project option naming such a directory (`cargo build --manifest-path
/// /tmp/x/Cargo.toml`, `git -C /tmp/x status`), or a project tool run
/// after `cd` into one (`cd /tmp/x && make`). Its build scripts, recipes,
/// hooks and config are code nobody vouches for. `git clone` and `git
/// init` read no project there.
pub fn project_elsewhere(w: &Walker, name: &str, args: &[Arg]) -> Option<Inspection> {
    let names = project_options(name);
    // `-C DIR` moves the tool before it reads what later options name
    // (`git -C a --git-dir b`, `make -C a -f b`): followed in a copy of
    // the declared workspace, so later paths resolve from there. Each
    // option is read in every spelling the tool's parser accepts
    // (`make --direc=DIR`, `pip install --edit DIR`, `tox --con FILE`).
    let mut here = w.declared.clone();
    for (at, inline) in option_positions(name, args, names) {
        let word = &args[at];
        let dir = match inline {
            Some("") => continue,
            Some(v) => Arg {
                text: v.to_owned(),
                resolved: word.resolved,
                pattern: false,
            },
            None => match args.get(at + 1) {
                Some(next) => next.clone(),
                None => continue,
            },
        };
        let moves =
            !option_positions(name, std::slice::from_ref(word), &["-C", "--directory"]).is_empty();
        let outside = match &mut here {
            // `-`: the file is read from stdin, code nobody vouches for.
            Some(_) if dir.text == "-" => true,
            Some(d) => {
                let outside = d.runs_outside(&dir, programs::PROJECT);
                if moves {
                    d.enter(Some(&dir));
                }
                outside
            }
            None => programs::code_outside(w, &dir, programs::PROJECT),
        };
        if outside {
            return Some(unknown(format!(
                "`{name} {}` runs the project at `{}`: code from outside the workspace",
                word.text, dir.text
            )));
        }
    }
    let operand_dirs = if w.planted(Mutant::OutsideCodeBlind) {
        Vec::new()
    } else {
        project_operands(name, args)
    };
    for dir in operand_dirs {
        let outside = match &here {
            Some(d) => d.runs_outside(dir, programs::PROJECT),
            None => programs::code_outside(w, dir, programs::PROJECT),
        };
        if outside {
            return Some(unknown(format!(
                "`{name}` runs the code at `{}`: from outside the workspace",
                dir.text
            )));
        }
    }
    let first = operands(args).first().map_or("", |a| a.text.as_str());
    let reads_none = name == "git" && matches!(first, "clone" | "init" | "--version" | "help");
    let runs_project = RUNS_PROJECT.contains(&name) && !reads_none;
    if let (Some(cwd), true) = (w.cwd, runs_project && !w.planted(Mutant::OutsideCodeBlind)) {
        return Some(unknown(format!(
            "`{name}` runs the project in a directory outside the workspace ({cwd:?})"
        )));
    }
    None
}
