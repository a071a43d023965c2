//! Interpreters, development tools, package managers and deployment tools.
//! The subcommand decides: building and testing the project is a local
//! write; adding third-party code is untrusted; publishing, deploying and
//! changing cloud resources escalate; unknown subcommands fail safe.

use super::argv::{has_flag, operands};
use super::walk::{Stdin, Walker};
use super::word::Arg;
use super::{
    build, deploy, external, fetched, net, place, programs, read, sensitive, unknown, write,
};
use crate::classify::Inspection;
use crate::mutant::Mutant;

#[rustfmt::skip]
const INTERPRETERS: &[&str] = &[
    "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "ruby", "perl", "php",
    "lua", "luajit", "Rscript", "julia", "tclsh", "osascript", "pwsh", "powershell", "groovy",
    "irb", "java", "ts-node", "tsx", "jshell", "scala", "kotlin", "elixir", "erl", "ghci",
    "runghc", "swift-run",
];

/// Project scripts and make targets taken as the development loop.
#[rustfmt::skip]
const DEV_TARGETS: &[&str] = &[
    "", "all", "build", "test", "tests", "check", "lint", "fmt", "format", "typecheck",
    "type-check", "tsc", "dev", "start", "serve", "preview", "compile", "watch", "e2e",
    "coverage", "clean", "docs", "doc", "bench", "vet", "tidy", "ci", "help", "debug", "run",
    "storybook", "verify", "assemble", "package", "install-deps",
];

/// Tools whose work stays in the workspace (formatters, linters, compilers, test runners).
#[rustfmt::skip]
const DEV_TOOLS: &[&str] = &[
    "tsc", "eslint", "prettier", "biome", "stylelint", "jest", "vitest", "mocha", "ava",
    "playwright", "cypress", "pytest", "py.test", "tox", "nox", "mypy", "pyright", "ruff",
    "black", "isort", "flake8", "pylint", "coverage", "rustfmt", "rustc", "clippy-driver",
    "gofmt", "goimports", "golangci-lint", "staticcheck", "cmake", "ctest", "ninja", "meson",
    "gcc", "g++", "cc", "c++", "clang", "clang++", "clang-format", "clang-tidy", "ld", "as",
    "javac", "kotlinc", "scalac", "dotnet", "swiftc", "swift", "xcodebuild", "bazel",
    "bazelisk", "buck2", "pre-commit", "shellcheck", "shfmt", "hadolint", "yamllint",
    "markdownlint", "actionlint", "taplo", "protoc", "buf", "sqlfluff", "ktlint", "detekt",
    "webpack", "vite", "esbuild", "rollup", "parcel", "turbo", "nx", "lerna", "next", "nuxt",
    "astro", "svelte-kit", "ng", "tailwindcss", "postcss", "sass", "lessc", "babel", "swc",
    "jupyter-nbconvert", "sphinx-build", "mkdocs", "hugo", "jekyll", "zola", "mdbook", "typst",
    "pandoc", "latexmk", "pdflatex", "xelatex", "doxygen", "godoc", "rustdoc", "cargo-nextest",
    "nextest", "bun-test", "deno-test", "phpunit", "rspec", "rubocop", "rake-test", "gotestsum",
    "make-test", "cabal", "stack", "mix", "rebar3", "dune", "opam-build", "zig", "nim",
    "crystal", "sccache", "ccache",
];

pub fn classify(w: &mut Walker, name: &str, args: &[Arg], stdin: &Stdin) -> Option<Inspection> {
    if let Some(found) = net::classify(name, args, w.mutant) {
        let saved = net::saved_files(name, args);
        let places = saved
            .iter()
            .filter(|_| !w.planted(Mutant::WorkspaceBlind))
            .filter_map(|file| place::write(file, w.place(file), "writes", w.mutant));
        return Some(places.fold(found, Inspection::join));
    }
    if let Some(found) = build::classify(w, name, args, stdin) {
        return Some(found);
    }
    let found = match name {
        "cargo" => cargo(w, args),
        "npm" | "pnpm" | "yarn" | "bun" => node_pm(w, name, args, stdin),
        "npx" | "bunx" | "uvx" | "pipx" => runner(w, name, args, stdin),
        "pip" | "pip3" | "uv" | "poetry" | "pdm" | "conda" | "mamba" => {
            python_pm(w, name, args, stdin)
        }
        "go" => go(args),
        "make" | "gmake" | "just" | "task" | "rake" | "invoke" => make(name, args),
        "gradle" | "mvn" | "sbt" | "ant" => jvm_build(name, args),
        "deno" => deno(args),
        "docker" | "podman" | "nerdctl" => deploy::docker(name, args),
        "kubectl" | "oc" | "k9s" => deploy::kubectl(name, args),
        "helm" => deploy::helm(args),
        "terraform" | "tofu" | "terragrunt" | "pulumi" | "cdk" | "serverless" | "sls" => {
            deploy::iac(name, args)
        }
        "aws" => deploy::aws(args),
        "gcloud" | "az" | "doctl" | "flyctl" | "fly" | "heroku" | "vercel" | "netlify"
        | "firebase" => deploy::cloud(name, args),
        "twine" | "gem" if matches!(first(args), "push" | "upload" | "yank" | "owner") => {
            external(format!("`{name}` publishes a package"))
        }
        "gem" | "bundle" | "brew" | "apt" | "apt-get" | "dnf" | "yum" | "pacman" | "apk"
        | "port" | "snap" | "flatpak" | "nix-env" | "rustup" | "opam" | "cpan" | "cpanm" => {
            system_pm(name, args)
        }
        _ if is_dev_tool(name) => write(format!("`{name}` builds or checks the workspace")),
        _ if INTERPRETERS.contains(&name) || name.starts_with("python3.") => {
            interpreter(w, name, args, stdin)
        }
        _ => return None,
    };
    Some(found)
}

fn first(args: &[Arg]) -> &str {
    operands(args).first().map_or("", |a| a.text.as_str())
}

pub(super) fn is_version(args: &[Arg]) -> bool {
    !args.is_empty()
        && args.iter().all(|a| {
            matches!(
                a.text.as_str(),
                "-V" | "--version" | "-v" | "version" | "-h" | "--help" | "help" | "-version"
            )
        })
}

fn interpreter(w: &mut Walker, name: &str, args: &[Arg], stdin: &Stdin) -> Inspection {
    if is_version(args) {
        return read(format!("`{name}` prints its version"));
    }
    if name.starts_with("python") || name.starts_with("pypy") {
        // `-m json.tool`, `-mjson.tool`, `-Im json.tool`; a `-c` before it
        // runs its code and leaves `-m` to that code's arguments.
        let code_at = super::argv::option_positions(name, args, &["-c"])
            .first()
            .map(|c| c.0);
        let module = super::argv::option_positions(name, args, &["-m"])
            .first()
            .copied()
            .filter(|(at, _)| code_at.is_none_or(|c| c > *at));
        if let Some((pos, inline)) = module {
            let (module, rest) = match inline {
                Some(module) => (Some(module), pos + 1),
                None => (args.get(pos + 1).map(|m| m.text.as_str()), pos + 2),
            };
            if let Some(module) = module {
                return python_module(w, module, args.get(rest..).unwrap_or(&[]), stdin);
            }
        }
    }
    if name == "perl" {
        if let Some(found) = super::perl::substitution(w, args) {
            return found;
        }
    }
    let how = if args.iter().any(|a| {
        matches!(
            a.text.as_str(),
            "-c" | "-e" | "-E" | "--eval" | "-p" | "--print" | "-r"
        )
    }) {
        "inline code"
    } else if operands(args).is_empty() || args.iter().any(|a| a.text == "-") {
        match stdin {
            Stdin::Text(_) => "code from a here-document",
            Stdin::Pipe => "code read from a pipe",
            _ => "code from stdin (an interactive session)",
        }
    } else {
        "a script"
    };
    unknown(format!("`{name}` runs {how}, which is not inspected"))
}

fn python_module(w: &mut Walker, module: &str, rest: &[Arg], stdin: &Stdin) -> Inspection {
    match module {
        "pip" => python_pm(w, "pip", rest, stdin),
        "venv" | "virtualenv" | "compileall" | "py_compile" | "build" => {
            write(format!("`python -m {module}` writes workspace files"))
        }
        "json.tool" | "pydoc" | "site" | "platform" | "sysconfig" | "tabnanny" => {
            read(format!("`python -m {module}` reads"))
        }
        "http.server" => external("`python -m http.server` serves files to the network"),
        m if DEV_TOOLS.contains(&m) || matches!(m, "unittest" | "doctest" | "pytest") => {
            let found = write(format!(
                "`python -m {module}` builds or checks the workspace"
            ));
            // `python -m pytest PATH` is `pytest PATH`: the module is the tool,
            // and runs the project its operands and options name.
            match super::build::project_elsewhere(w, m, rest) {
                Some(elsewhere) => found.join(elsewhere),
                None => found,
            }
        }
        _ => unknown(format!(
            "`python -m {module}` runs a module that is not inspected"
        )),
    }
}

/// A development tool; versioned compiler names (`gcc-13`, `clang++-17`) too.
pub(super) fn is_dev_tool(name: &str) -> bool {
    let unversioned = name
        .rsplit_once('-')
        .filter(|(_, v)| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map_or(name, |(base, _)| base);
    DEV_TOOLS.contains(&name) || DEV_TOOLS.contains(&unversioned)
}

fn cargo(w: &mut Walker, args: &[Arg]) -> Inspection {
    // Global options before the subcommand may take a value.
    let all = skip_toolchain(args);
    let args = super::argv::after_options("cargo", all, &["--config", "-Z", "-C", "--color"]);
    let sub = first(args);
    match sub {
        // Without a subcommand cargo prints its version, its help or its
        // command list (`--list`): nothing runs.
        "" => read("`cargo` without a subcommand prints its help or version"),
        "version" | "tree" | "metadata" | "search" | "locate-project" | "pkgid"
        | "verify-project" | "help" | "read-manifest" | "info" => {
            read(format!("`cargo {sub}` reads"))
        }
        "build" | "b" | "check" | "c" | "test" | "t" | "run" | "r" | "clippy" | "fmt" | "doc"
        | "d" | "bench" | "new" | "init" | "clean" | "add" | "remove" | "rm" | "fix"
        | "generate-lockfile" | "vendor" | "package" | "nextest" | "llvm-cov" | "miri"
        | "expand" | "udeps" | "machete" | "deny" | "audit" | "outdated" | "semver-checks"
        | "hack" | "insta" | "fuzz" | "criterion" | "uninstall" => {
            write(format!("`cargo {sub}` builds or edits the workspace"))
        }
        "install" | "update" | "fetch" | "binstall" => {
            fetched(true, format!("`cargo {sub}` brings in third-party crates"))
        }
        "publish" | "yank" | "owner" => {
            external(format!("`cargo {sub}` changes a public registry"))
        }
        "login" | "logout" => sensitive(
            write(format!("`cargo {sub}` stores a token")),
            "a registry token",
        ),
        "watch" => match super::argv::option_arg("cargo", args, Some("-s"), Some("--shell")) {
            Some(code) => code.value().map_or_else(
                || unknown("`cargo watch -s` runs unknown code"),
                |c| w.nested(c),
            ),
            None => write("`cargo watch` reruns cargo commands"),
        },
        _ => unknown(format!(
            "`cargo {sub}` is a plugin or subcommand that is not inspected"
        )),
    }
}

/// `cargo +nightly …`
fn skip_toolchain(args: &[Arg]) -> &[Arg] {
    match args.first() {
        Some(a) if a.text.starts_with('+') => &args[1..],
        _ => args,
    }
}

fn script_ok(script: &str) -> bool {
    let base = script.split(':').next().unwrap_or(script);
    DEV_TARGETS.contains(&base)
}

/// Options of npm, pnpm, yarn and bun that take a value in the next word
/// (npm's `nopt` parser gives every non-boolean config a value: npm docs,
/// "config"; pnpm's and yarn's `-C`/`--dir`/`--cwd`/`--filter`).
const NODE_PM_VALUED: &[&str] = &[
    "--prefix",
    "-C",
    "--dir",
    "--cwd",
    "--workspace",
    "-w",
    "--filter",
    "-F",
    "--registry",
    "--cache",
    "--userconfig",
    "--globalconfig",
    "--loglevel",
    "--tag",
    "--otp",
    "--access",
    "--scope",
    "--script-shell",
    "--node-options",
    "--shell",
];

/// The operands of a package manager's command line, with the values of
/// its valued options skipped (`npm --prefix web run build`: `web` is the
/// prefix, not the subcommand).
fn node_operands(args: &[Arg]) -> Vec<&Arg> {
    let mut out = Vec::new();
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        if a.text == "--" {
            out.extend(iter.by_ref());
            break;
        }
        if NODE_PM_VALUED.contains(&a.text.as_str()) {
            iter.next();
        } else if !a.text.starts_with('-') || a.text == "-" {
            out.push(a);
        }
    }
    out
}

/// Configuration keys of a package manager whose value is a program it
/// runs, code it loads, or where the code it installs comes from; setting
/// one changes what every later run of the tool executes (item
/// 2). npm docs "config": `script-shell`, `shell`, `editor`, `browser`,
/// `viewer`, `git`, `node-options`, `init-module`, `onload-script`,
/// `prefix` (where global binaries go), `registry` and `@scope:registry`,
/// `userconfig`/`globalconfig`; yarn's `yarnPath`, `plugins`,
/// `npmRegistryServer`; pip's configuration (pip docs "Configuration":
/// any option as `section.option`): `index-url`, `extra-index-url`,
/// `find-links`, `trusted-host`.
pub fn package_config_names_code(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    let option = key.rsplit(['.', ':']).next().unwrap_or(&key);
    const NAMES_CODE: &[&str] = &[
        "script-shell",
        "shell",
        "editor",
        "browser",
        "viewer",
        "git",
        "node-options",
        "init-module",
        "onload-script",
        "prefix",
        "registry",
        "userconfig",
        "globalconfig",
        "yarnpath",
        "plugins",
        "npmregistryserver",
        "index-url",
        "extra-index-url",
        "find-links",
        "trusted-host",
        "index",
        "extra-index",
        "npm-registry-server",
        "yarn-path",
    ];
    NAMES_CODE.contains(&option)
}

/// `npm config set KEY VALUE`, `npm config set KEY=VALUE`, `npm set …`,
/// `pip config set SECTION.KEY VALUE`, `… delete`/`unset`/`edit`: a write
/// to the tool's configuration; a key that names code escalates.
fn package_config(name: &str, ops: &[&Arg]) -> Inspection {
    let (action, rest) = match ops.first().map(|a| a.text.as_str()) {
        Some("set") => ("set", &ops[1..]),
        Some("config") => (
            ops.get(1).map_or("", |a| a.text.as_str()),
            ops.get(2..).unwrap_or(&[]),
        ),
        _ => ("", &ops[..0]),
    };
    match action {
        "set" | "delete" | "unset" | "edit" | "add" | "rm" | "remove" => {}
        _ => return read(format!("`{name} config` reads")),
    }
    if matches!(action, "delete" | "unset" | "rm" | "remove") {
        // Removing a key returns it to the tool's default: it names nothing.
        return write(format!("`{name} config {action}` resets settings"));
    }
    if action == "edit" {
        return unknown(format!(
            "`{name} config edit` opens the configuration in an editor"
        ));
    }
    let names_code = rest.iter().any(|a| {
        let key = a.text.split('=').next().unwrap_or("");
        !a.resolved || package_config_names_code(key)
    });
    if names_code {
        unknown(format!(
            "`{name} config {action}` sets what the tool runs or installs from: every later run"
        ))
    } else {
        write(format!("`{name} config {action}` edits settings"))
    }
}

fn node_pm(w: &mut Walker, name: &str, args: &[Arg], stdin: &Stdin) -> Inspection {
    let ops = node_operands(args);
    let sub = ops.first().map_or("", |a| a.text.as_str());
    let packages = ops.len() > 1;
    match sub {
        "config" | "c" | "set" if !w.planted(Mutant::PersistenceBlind) => {
            package_config(name, &ops)
        }
        "" if is_version(args) => read(format!("`{name} --version`")),
        "" | "install" | "i" | "ci" | "add" if !packages && sub != "add" => write(format!(
            "`{name}` installs the project's declared dependencies"
        )),
        "install" | "i" | "add" | "update" | "up" | "upgrade" => fetched(
            true,
            format!("`{name} {sub}` brings in third-party packages"),
        ),
        "ls" | "list" | "ll" | "la" | "outdated" | "view" | "info" | "show" | "search" | "help"
        | "root" | "prefix" | "bin" | "explain" | "why" | "doctor" | "fund" | "config" | "get"
        | "whoami" | "licenses" => read(format!("`{name} {sub}` reads")),
        "audit"
            if !has_flag(name, args, None, &["fix"]) && !ops.iter().any(|a| a.text == "fix") =>
        {
            read(format!("`{name} audit` reads"))
        }
        "test" | "t" | "tst" | "start" | "build" | "audit" | "uninstall" | "remove" | "rm"
        | "un" | "unlink" | "link" | "rebuild" | "dedupe" | "prune" | "pack" | "version"
        | "init"
            if sub != "init" || !packages =>
        {
            write(format!("`{name} {sub}` works on the workspace"))
        }
        "publish" | "unpublish" | "deprecate" | "dist-tag" | "owner" | "access" | "team"
        | "org" | "npm" => external(format!("`{name} {sub}` changes a public registry")),
        "login" | "adduser" | "logout" | "token" => sensitive(
            write(format!("`{name} {sub}` manages a registry token")),
            "a registry token",
        ),
        "create" | "init" => unknown(format!(
            "`{name} {sub}` runs an initializer package from the registry"
        )),
        "exec" | "x" | "dlx" => runner(w, name, &args_after(args, sub), stdin),
        "run" | "run-script" => {
            let script = ops.get(1).map_or("", |a| a.text.as_str());
            project_script(name, script)
        }
        // `yarn build`, `bun test`, `pnpm lint`: a project script by name.
        _ if name != "npm" => project_script(name, sub),
        _ => unknown(format!("`{name} {sub}` is not inspected")),
    }
}

fn args_after(args: &[Arg], sub: &str) -> Vec<Arg> {
    let pos = args.iter().position(|a| a.text == sub).map_or(0, |p| p + 1);
    args[pos..].to_vec()
}

fn project_script(name: &str, script: &str) -> Inspection {
    if script_ok(script) {
        write(format!("`{name}` runs the project script `{script}`"))
    } else {
        unknown(format!(
            "`{name}` runs the project script `{script}`, which is not inspected"
        ))
    }
}

/// `npx pkg …`, `uvx tool …`: runs a package fetched by name.
fn runner(w: &mut Walker, name: &str, args: &[Arg], stdin: &Stdin) -> Inspection {
    let ops = super::argv::after_options(
        name,
        args,
        &["-p", "--package", "--from", "--python", "-c", "--call"],
    );
    let Some(tool) = ops.first() else {
        return unknown(format!("`{name}` without a package"));
    };
    let base = tool.text.trim_start_matches('@');
    let base = base.split('@').next().unwrap_or(base);
    let base = base.rsplit('/').next().unwrap_or(base);
    if name == "pipx" && base != "run" {
        return python_pm(w, "pipx", args, stdin);
    }
    if DEV_TOOLS.contains(&base) || base == "typescript" {
        return write(format!("`{name} {base}` runs a development tool"));
    }
    if base == "rimraf" {
        return super::destroy(
            rbv_protocol::Reversibility::Irreversible,
            "`rimraf` deletes files",
        );
    }
    unknown(format!(
        "`{name}` runs the package `{}` from the registry",
        tool.text
    ))
}

fn python_pm(w: &mut Walker, name: &str, args: &[Arg], stdin: &Stdin) -> Inspection {
    let ops = operands(args);
    let sub = ops.first().map_or("", |a| a.text.as_str());
    match sub {
        "config" if !w.planted(Mutant::PersistenceBlind) && matches!(name, "pip" | "pip3") => {
            package_config(name, &ops)
        }
        "" if is_version(args) => read(format!("`{name} --version`")),
        "pip" if name == "uv" => python_pm(w, "pip", &args_after(args, "pip"), stdin),
        "run" if matches!(name, "uv" | "poetry" | "pdm" | "conda" | "mamba") => {
            let rest = args_after(args, "run");
            let rest = super::argv::after_options(
                name,
                &rest,
                &[
                    "--with",
                    "--python",
                    "-p",
                    "-n",
                    "--name",
                    "--env",
                    "--directory",
                    "--project",
                    "--group",
                    "--extra",
                ],
            );
            if rest.is_empty() {
                unknown(format!("`{name} run` without a command"))
            } else {
                programs::classify(w, rest, stdin)
            }
        }
        "list" | "show" | "freeze" | "check" | "search" | "help" | "config" | "inspect"
        | "index" | "env" | "info" | "tree" | "debug" | "cache" => {
            read(format!("`{name} {sub}` reads"))
        }
        "install" | "download" | "wheel" if matches!(name, "pip" | "pip3") => {
            pip_sources(w, name, args).unwrap_or_else(|| {
                fetched(
                    true,
                    format!("`{name} {sub}` brings in third-party packages"),
                )
            })
        }
        "install" | "add" | "download" | "wheel" | "upgrade" | "inject" | "self" | "tool"
        | "update" | "create" => fetched(
            true,
            format!("`{name} {sub}` brings in third-party packages"),
        ),
        "sync" | "lock" | "venv" | "init" | "build" | "uninstall" | "remove" | "export"
        | "compile" => write(format!("`{name} {sub}` works on the workspace")),
        "publish" | "upload" => external(format!("`{name} {sub}` publishes a package")),
        _ => unknown(format!("`{name} {sub}` is not inspected")),
    }
}

/// pip's options that say where the packages come from (`pip install
/// --help`, "Package Index Options": `-i, --index-url`,
/// `--extra-index-url`, `-f, --find-links`; general options:
/// `--trusted-host`, which turns TLS verification off for a host): the
/// packages installed from there run their build code now and their own
/// code later. Judged as the same keys are in `pip config set` and
/// `PIP_INDEX_URL`: only the default index, loopback and the workspace's
/// own directories are vouched for.
fn pip_sources(w: &Walker, name: &str, args: &[Arg]) -> Option<Inspection> {
    let options = [
        (Some("-i"), "--index-url"),
        (None, "--extra-index-url"),
        (Some("-f"), "--find-links"),
        (None, "--trusted-host"),
    ];
    options.into_iter().find_map(|(short, long)| {
        super::argv::option_values(name, args, short, Some(long))
            .into_iter()
            .find(|v| !v.resolved || !programs::vouched_source(w, &v.text))
            .map(|v| {
                unknown(format!(
                    "`{name} {long}` installs code from `{}`, a source nobody vouches for",
                    v.text
                ))
            })
    })
}

fn go(args: &[Arg]) -> Inspection {
    let sub = first(args);
    match sub {
        "version" | "env" | "list" | "doc" | "help" => read(format!("`go {sub}` reads")),
        "build" | "test" | "vet" | "fmt" | "run" | "generate" | "mod" | "work" | "clean"
        | "tool" | "fix" => write(format!("`go {sub}` builds or edits the workspace")),
        "install" | "get" => fetched(true, format!("`go {sub}` brings in third-party modules")),
        _ => unknown(format!("`go {sub}` is not inspected")),
    }
}

fn make(name: &str, args: &[Arg]) -> Inspection {
    let mut targets = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if matches!(
            t,
            "-C" | "-f"
                | "-I"
                | "-o"
                | "-W"
                | "--directory"
                | "--file"
                | "--makefile"
                | "-d"
                | "--dotenv"
        ) {
            i += 2;
            continue;
        }
        if !t.starts_with('-') && !t.contains('=') && !t.chars().all(|c| c.is_ascii_digit()) {
            targets.push(a);
        }
        i += 1;
    }
    match targets.iter().find(|t| !t.resolved || !script_ok(&t.text)) {
        None => write(format!("`{name}` runs development targets")),
        Some(t) => unknown(format!(
            "`{name} {}` runs a recipe that is not inspected",
            t.text
        )),
    }
}

/// Maven's and Gradle's options that take the next word as their value
/// (`mvn --help`, Maven 3.9; `gradle --help`, Gradle 8): the value is no
/// goal or task. Attached values (`-Dk=v`, `-T4`, `--file=x`) are one word.
/// The files among them that name the build or the code it runs are judged
/// where they lie (`build::project_options`). Options that write a file
/// (`mvn -l`, `gradle --project-cache-dir`) are not listed: their value is
/// read as a goal, which fails safe.
#[rustfmt::skip]
fn jvm_valued(name: &str) -> &'static [&'static str] {
    match name {
        "mvn" => &[
            "-f", "--file", "-s", "--settings", "-gs", "--global-settings", "-t",
            "--toolchains", "-gt", "--global-toolchains", "-pl", "--projects", "-rf",
            "--resume-from", "-P", "--activate-profiles", "-D", "--define", "-T", "--threads",
            "-b", "--builder", "-emp", "--encrypt-master-password", "-ep", "--encrypt-password",
        ],
        "gradle" => &[
            "-p", "--project-dir", "-b", "--build-file", "-c", "--settings-file", "-x",
            "--exclude-task", "-I", "--init-script", "-g", "--gradle-user-home", "-D",
            "--system-prop", "-P", "--project-prop", "--include-build", "--console",
            "--max-workers", "--priority", "--warning-mode", "-M",
            "--write-verification-metadata", "--dependency-verification",
        ],
        _ => &[],
    }
}

fn jvm_build(name: &str, args: &[Arg]) -> Inspection {
    let valued = jvm_valued(name);
    let mut tasks: Vec<&Arg> = Vec::new();
    let mut words = args.iter();
    while let Some(a) = words.next() {
        if a.text == "--" {
            tasks.extend(words.by_ref());
        } else if valued.contains(&a.text.as_str()) {
            words.next();
        } else if !a.text.starts_with('-') || a.text == "-" {
            tasks.push(a);
        }
    }
    let risky = tasks.iter().find(|t| {
        let base = t.text.rsplit(':').next().unwrap_or(&t.text);
        !(DEV_TARGETS.contains(&base)
            || matches!(
                base,
                "install"
                    | "bootRun"
                    | "dependencies"
                    | "tasks"
                    | "compile"
                    | "testClasses"
                    | "jar"
                    | "spotlessApply"
                    | "spotlessCheck"
                    | "ktlintCheck"
            ))
    });
    match risky {
        None => write(format!("`{name}` builds and tests")),
        Some(t)
            if matches!(
                t.text.as_str(),
                "deploy" | "publish" | "release" | "publishToMavenCentral"
            ) =>
        {
            external(format!("`{name} {}` publishes", t.text))
        }
        Some(t) => unknown(format!("`{name} {}` is not inspected", t.text)),
    }
}

fn deno(args: &[Arg]) -> Inspection {
    match first(args) {
        "" if is_version(args) => read("`deno --version`"),
        "test" | "fmt" | "lint" | "check" | "doc" | "bench" | "compile" | "info" => {
            write("`deno` builds or checks the workspace")
        }
        "install" | "add" | "cache" => fetched(true, "`deno` brings in third-party modules"),
        "publish" => external("`deno publish` publishes a package"),
        _ => unknown("`deno` runs code that is not inspected"),
    }
}

fn system_pm(name: &str, args: &[Arg]) -> Inspection {
    let sub = first(args);
    match sub {
        "" if is_version(args) => read(format!("`{name} --version`")),
        "list" | "info" | "search" | "show" | "outdated" | "policy" | "query" | "doctor"
        | "config" | "env" | "exec"
            if sub != "exec" || name != "bundle" =>
        {
            read(format!("`{name} {sub}` reads"))
        }
        "install" | "add" | "update" | "upgrade" | "-S" | "-Syu" | "fetch" | "tap"
        | "toolchain" | "target" | "component" => fetched(
            true,
            format!("`{name} {sub}` brings in third-party packages"),
        ),
        "remove" | "uninstall" | "purge" | "autoremove" | "erase" | "-R" | "-Rs" | "del"
        | "cleanup" => super::destroy(
            rbv_protocol::Reversibility::Irreversible,
            format!("`{name} {sub}` removes installed software"),
        ),
        _ => unknown(format!("`{name} {sub}` is not inspected")),
    }
}
