"""Shell inspection (PROTOCOL.md §10.6 "Shell", proposal §4.4): the band of
a bash line is decided by the programs a parse shows will run, each judged
by what its effect is (docs/DESIGN.md §2's table of effects). What cannot
be known before it runs — a program named by a variable, a script file,
code handed to another interpreter — fails safe to escalate.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re

from rbv_adapter.messages import Band

from .fetch import classify_fetch
from .shell_parse import ParseError, Redirect, Simple, Word, is_assignment, parse
from .verdict import Finding

MAX_DEPTH = 8

READ_ONLY = {
    "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "ag", "wc", "cut", "tr",
    "nl", "od", "hexdump", "xxd", "strings", "file", "stat", "du", "df", "ls", "dir", "tree",
    "pwd", "whoami", "id", "groups", "uname", "echo", "printf", "true", "false", "test", "[", "[[",
    "basename", "dirname", "realpath", "readlink", "which", "whereis", "type", "diff", "cmp", "comm",
    "column", "fold", "fmt", "paste", "join", "expand", "unexpand", "rev", "tac", "seq", "sleep", "jq",
    "base64", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "free", "uptime",
    "locale", "cd", "pushd", "popd", "dirs", "unset", "read", "wait", "shift", ":", "local", "hash",
    "zcat", "bzcat", "xzcat", "look", "lsof", "date", "nproc", "tput", "getfacl", "lsattr", "]]",
    "yq", "bat", "fzf", "exit", "return", "break", "continue", "trap", "umask", "ulimit", "alias",
}
# Programs that build or test the workspace: they run the project's own
# code, whose effects are the workspace's (docs/DESIGN.md: reversible local).
BUILDERS = {
    "make", "gmake", "cmake", "ninja", "cargo", "rustc", "rustup", "go", "gradle", "gradlew", "mvn", "mvnw",
    "bundle", "rake", "rspec", "cabal", "stack", "mix", "dotnet", "lerna", "nx", "turbo", "npx", "tox",
    "pytest", "nox", "tsc", "eslint", "prettier", "jest", "vitest", "mypy", "ruff", "black", "flake8",
    "gcc", "g++", "clang", "clang++", "cc", "javac", "swift", "zig", "deno", "bazel", "meson", "sccache",
    "terraform", "tofu", "vim", "vi", "nvim", "nano", "emacs", "code", "zip", "unzip", "tar", "gzip",
    "gunzip", "bzip2", "xz", "zstd", "split", "fd", "fdfind", "rsync", "scp", "gh", "aws", "docker",
    "ssh", "uniq", "dd", "hostname", "mount", "service", "systemctl", "strace", "ltrace", "python",
    "python3", "node", "npm", "pnpm", "yarn", "pip", "pip3", "poetry", "uv", "sort", "env", "printenv",
    "export", "declare", "typeset", "set", "ps", "getent", "chmod", "chown", "chgrp", "chattr", "setfacl",
    "install", "source", ".", "rg", "man", "sed", "gsed", "git",
}
LOCAL_WRITES = {"mkdir", "touch", "cp", "ln", "mv", "patch"}
DESTRUCTIVE = {
    "rm", "rmdir", "shred", "unlink", "truncate", "fdisk", "parted", "wipefs", "mkswap",
    "kill", "killall", "pkill", "shutdown", "reboot", "halt", "poweroff", "umount",
    "crontab", "useradd", "userdel", "usermod", "passwd", "iptables", "ufw", "sysctl", "sudo", "su", "doas",
    "pkexec", "srm", "format",
}
NETWORK = {"sftp", "nc", "ncat", "netcat", "telnet", "ftp", "socat", "mail", "sendmail", "mutt", "mailx",
           "ping", "dig", "nslookup", "host", "whois", "traceroute"}
SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "ash", "fish", "mksh", "busybox"}
WRAPPERS = {"nice", "nohup", "timeout", "stdbuf", "ionice", "command", "builtin", "exec", "time",
            "setsid", "unbuffer", "chronic", "caffeinate", "chrt", "taskset", "xvfb-run", "sudo", "doas",
            "watch", "flock"}
# Variables whose value names a program that runs: a plain name of a
# program we know is fine (`PAGER=less`), a path or a command line is not.
PROGRAM_VARIABLES = {
    "PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
    "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND",
    "BROWSER", "CC", "CXX", "LD", "AR", "AS", "CPP", "FC", "RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER",
    "RUSTDOC", "CARGO_BUILD_RUSTC_WRAPPER", "SHELL", "CONFIG_SHELL", "MAKE", "npm_config_script_shell",
    "NPM_CONFIG_SCRIPT_SHELL", "TERMINAL", "DIFF", "LESS_TERMCAP", "GIT_DIFF_TOOL",
}
# Variables whose value is code or a file of it that something loads: setting one is running it.
LOADER_VARIABLES = {
    "GIT_EXEC_PATH", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT", "RIPGREP_CONFIG_PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES",
    "BASH_ENV", "ENV", "PROMPT_COMMAND", "LESSOPEN", "LESSCLOSE", "PERL5OPT", "PERL5LIB", "PYTHONSTARTUP",
    "NODE_OPTIONS", "IFS", "SHELLOPTS", "BASHOPTS", "PS4", "GIT_TEMPLATE_DIR", "LESSKEY", "RUBYOPT",
    "JAVA_TOOL_OPTIONS", "CARGO_TARGET_DIR_RUNNER", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0",
}
KNOWN_PLAIN_PROGRAMS = {
    "less", "more", "cat", "most", "vim", "vi", "nvim", "nano", "emacs", "code", "ed", "true", "gcc", "g++", "clang",
    "clang++", "cc", "c++", "gcc-12", "gcc-13", "gcc-14", "clang-17", "clang-18", "sccache", "ccache", "ld",
    "lld", "mold", "ar", "bash", "sh", "zsh", "dash", "make", "gmake", "rustc", "diff", "delta", "meld",
    "firefox", "chromium", "xdg-open", "ssh", "tee", "w3m", "lynx",
}
SECRET_PATTERNS = [
    re.compile(p) for p in (
        r"(^|/)\.env(\.(?!example$|sample$|template$|dist$)[^/]*)?$", r"(^|/)\.envrc$",
        r"(^|/)id_(rsa|dsa|ecdsa|ed25519)(?!.*\.pub$)[^/]*$", r"\.pem$", r"\.key$", r"\.p12$", r"\.pfx$", r"\.jks$",
        r"(^|/)\.netrc$", r"(^|/)\.pgpass$", r"(^|/)\.npmrc$", r"(^|/)\.pypirc$", r"(^|/)\.git-credentials$",
        r"(^|/)credentials(\.[a-z]+)?$", r"(^|/)\.ssh(/(?!.*\.pub$|known_hosts$)|$)", r"(^|/)\.aws(/|$)", r"(^|/)\.azure(/|$)",
        r"(^|/)\.gnupg(/|$)", r"(^|/)\.kube(/|$)", r"(^|/)\.docker/config\.json$", r"(^|/)secrets?(\.[a-z]+)?$",
        r"(^|/)\.htpasswd$", r"(^|/)\.config/gh(/|$)", r"(^|/)\.config/gcloud(/|$)", r"(^|/)\.cargo/credentials",
        r"(^|/)\.[a-z]*_history$", r"(^|/)\.history$", r"^/etc/(shadow|gshadow|sudoers|passwd|master\.passwd)",
        r"^/proc/[^/]+/(environ|mem|cmdline)$", r"\.tfstate(\.backup)?$", r"(^|/)\.vault-token$",
        r"(^|/)application_default_credentials\.json$", r"(^|/)accessTokens\.json$", r"(^|/)\.terraformrc$",
        r"(^|/)\.boto$", r"(^|/)\.s3cfg$", r"(^|/)\.my\.cnf$", r"(^|/)wp-config\.php$",
    )
]
# Files a glob or brace expansion may reach: the pattern is matched against them.
SECRET_EXAMPLES = [
    "~/.ssh/id_rsa", "~/.ssh/id_ed25519", "~/.ssh/config", "~/.aws/credentials", "~/.aws/config", ".env",
    ".env.local", ".env.production", "~/.netrc", "~/.kube/config", "~/.docker/config.json", "~/.git-credentials",
    "/etc/shadow", "/etc/passwd", "~/.bash_history", "~/.zsh_history", "~/.gnupg/secring.gpg", "~/.pgpass",
    "secrets.json", "terraform.tfstate", "~/.azure/accessTokens.json",
]
SECRET_VARIABLE = re.compile(r"(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL|AUTH)",
                             re.I)
HARMLESS_SINKS = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"}
PERMISSION_PROGRAMS = {"chmod", "chown", "chgrp", "chattr", "setfacl"}
# Script and target names that build, check or test; anything else (deploy,
# release, seed-prod) may reach beyond the workspace.
SAFE_SCRIPTS = {"build", "test", "tests", "lint", "check", "typecheck", "type-check", "format", "fmt", "dev",
                "compile", "watch", "coverage", "ci", "bench", "docs", "doc", "prepare", "clean", "start", "serve",
                "preview", "e2e", "unit", "all", "verify", "validate", "tsc", "storybook", "generate", "codegen"}
RISKY_TARGETS = {"deploy", "install", "release", "publish", "upload", "push", "uninstall", "dist-upload",
                 "distclean", "prod", "production", "ship", "tag"}
DEV_TOOLS = {"eslint", "tsc", "prettier", "jest", "vitest", "mocha", "ts-node", "tsx", "vite", "webpack", "rollup",
             "esbuild", "stylelint", "playwright", "cypress", "nx", "turbo", "lerna", "biome", "knip", "depcheck"}


def _braces(pattern: str) -> list[str]:
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m or "," not in m.group(1):
        return [pattern]
    out: list[str] = []
    for alt in m.group(1).split(","):
        out.extend(_braces(pattern[:m.start()] + alt + pattern[m.end():]))
    return out


def is_secret(word: Word) -> bool:
    text = re.sub(r"^(\$HOME|\$\{HOME\})(?=/)", "~", word.text)
    if re.search(r"\$\{?[A-Za-z_]*" + SECRET_VARIABLE.pattern + r"[A-Za-z_0-9]*", text, re.I):
        return True
    candidates = [text] + ([text.split(":", 1)[1]] if ":" in text else [])  # `HEAD:.env`
    for c in candidates:
        if any(p.search(c) for p in SECRET_PATTERNS):
            return True
    if word.glob:
        for pattern in _braces(text):
            if any(fnmatch.fnmatchcase(ex, pattern) or fnmatch.fnmatchcase(posixpath.basename(ex), pattern)
                   for ex in SECRET_EXAMPLES):
                return True
            if any(p.search(pattern) for p in SECRET_PATTERNS):
                return True
    return False


VERSION_REF = re.compile(r"^v?\d+(\.\d+)+([-+.][0-9A-Za-z.-]*)?$")
GIT_RUNS = ("pager", "editor", "sshcommand", "askpass", "fsmonitor", "hookspath", "alias.", "helper", "external",
            "command", "program", "textconv", "proxy", "exec", "filter.", "receivepack", "uploadpack", "gpg",
            "sequence", "include", "worktree", "gitdir", "sendmail", "smtp", "browser", "tool")
GIT_READS = {"status", "log", "diff", "show", "blame", "rev-parse", "ls-files", "ls-tree", "cat-file", "grep",
             "describe", "shortlog", "rev-list", "name-rev", "count-objects", "check-ignore", "whatchanged", "var",
             "help", "version", "for-each-ref", "show-ref", "merge-base", "fsck", "check-attr", "diff-tree",
             "diff-files", "diff-index", "show-branch", "cherry", "range-diff", "verify-commit", "verify-tag"}
GIT_LOCAL = {"add", "commit", "switch", "merge", "rebase", "cherry-pick", "revert", "init", "mv", "am", "apply",
             "notes", "worktree", "fetch", "bisect", "prune-packed", "gc", "maintenance", "repack", "sparse-checkout",
             "mergetool", "format-patch", "bundle", "archive", "submodule", "restore", "update-index", "read-tree",
             "write-tree", "commit-tree", "hash-object", "symbolic-ref", "rerere", "pack-refs", "prune"}


def _danger_git_key(key: str) -> bool:
    k = key.lower()
    return any(part in k for part in GIT_RUNS)


def _mode_opens(mode: str) -> bool:
    """A chmod/mkdir mode that lets others write or sets set-id bits."""
    if re.fullmatch(r"[0-7]{3,4}", mode):
        digits = mode.zfill(4)
        return digits[0] in "1234567" and digits[0] != "1" or digits[3] in "2367"
    for clause in mode.split(","):
        m = re.fullmatch(r"([ugoa]*)([-+=])([rwxXst]*|[ugo])", clause)
        if not m:
            return True
        who, op, perms = m.groups()
        if op == "-":
            continue
        others = "o" in who or "a" in who
        if "s" in perms or (others and ("w" in perms or perms in ("u", "g"))):
            return True
    return False


def _short_options(t: str, takes: str) -> list[tuple[str, str | None, bool]]:
    """A cluster such as `-sSLo` or `-XDELETE`: (option, inline value, needs next word)."""
    out: list[tuple[str, str | None, bool]] = []
    for j in range(1, len(t)):
        ch = t[j]
        if ch in takes:
            rest = t[j + 1:]
            out.append(("-" + ch, rest or None, not rest))
            return out
        out.append(("-" + ch, None, False))
    return out


class Inspector:
    def __init__(self, hard_to_reverse_local: Band) -> None:
        self.htr = hard_to_reverse_local

    def line(self, text: str, depth: int = 0) -> Finding:
        if depth > MAX_DEPTH:
            return Finding.write("shell: nesting too deep: fail safe")
        try:
            script = parse(text)
        except ParseError as e:
            return Finding.write(f"shell: unparseable ({e}): fail safe")
        result: Finding | None = None
        for cmd in script.commands:
            f = self.simple(cmd, depth)
            result = f if result is None else result.combine(f)
        for inner in script.nested:
            f = self.line(inner, depth + 1)
            result = f if result is None else result.combine(f)
        return result if result is not None else Finding.read("shell: nothing runs")

    # --- one simple command ----------------------------------------------

    def simple(self, cmd: Simple, depth: int) -> Finding:
        result: Finding | None = None
        for r in cmd.redirects:
            f = self.redirect(r)
            result = f if result is None else result.combine(f)
        words = list(cmd.words)
        while words and is_assignment(words[0].text) and not words[0].quoted:
            f = self.assignment(words.pop(0))
            result = f if result is None else result.combine(f)
        if words:
            f = self.program(words, cmd, depth)
            result = f if result is None else result.combine(f)
        return result if result is not None else Finding.read("shell: no program")

    def assignment(self, w: Word) -> Finding:
        name, _, value = w.text.partition("=")
        name = name.rstrip("+").split("[")[0]
        if name in LOADER_VARIABLES:
            return Finding.write(f"shell: setting {name} loads code that runs")
        if name in PROGRAM_VARIABLES and not (w.fixed() and value in KNOWN_PLAIN_PROGRAMS):
            return Finding.write(f"shell: setting {name} chooses a program that runs")
        if name == "GOFLAGS" and re.search(r"exec|overlay|modfile", value):
            return Finding.write("shell: GOFLAGS runs a program")
        return Finding.read(f"shell: sets {name}", sensitive=is_secret(Word(value, w.dynamic, w.glob)))

    def redirect(self, r: Redirect) -> Finding:
        t = r.target
        if r.op in ("<<", "<<-"):
            return Finding.read("shell: here-document is data")
        if r.op == "<<<":
            return Finding.read("shell: here-string is data", sensitive=is_secret(t))
        if r.op in ("<&", ">&") and re.fullmatch(r"\d+-?|-", t.text) and t.fixed():
            return Finding.read("shell: descriptor duplication")
        if r.op == "<":
            return Finding.read(f"shell: reads {t.text}", sensitive=is_secret(t))
        if not t.fixed():
            return Finding.write("shell: redirection to a path known only at run time")
        if t.text in HARMLESS_SINKS or t.text.startswith("/dev/fd/"):
            return Finding.read(f"shell: output to {t.text}")
        if r.op in (">>", "&>>"):
            return Finding("auto", state_change=True, reasons=[f"shell: appends to {t.text}"])
        if r.op == "<>":
            return Finding("auto", state_change=True, reasons=[f"shell: opens {t.text} read-write"])
        return Finding.write(f"shell: {r.op} truncates {t.text}")

    def program(self, words: list[Word], cmd: Simple, depth: int) -> Finding:
        head = words[0]
        if not head.fixed():
            return Finding.write("shell: program known only at run time: fail safe")
        name = posixpath.basename(head.text) if "/" in head.text else head.text
        args = words[1:]
        texts = [a.text for a in args]
        sensitive = any(is_secret(a) for a in args)
        if "/" in head.text and name not in ("gradlew", "mvnw") and not head.text.startswith(("/usr/", "/bin/", "/sbin/")):
            return Finding.write(f"shell: runs a program file {head.text}: fail safe")
        if name in WRAPPERS:
            return self.wrapper(name, args, cmd, depth)
        handler = getattr(self, "p_" + re.sub(r"[^a-z0-9]", "_", name), None) if name.isascii() else None
        if handler is not None:
            f: Finding = handler(args, texts, cmd, depth)
            return f.combine(Finding("auto", sensitive=True, reasons=["shell: names a secret"])) if sensitive else f
        if name in SHELLS:
            return self.shell(name, args, cmd, depth)
        if name in BUILDERS:
            return Finding("auto", state_change=True, sensitive=sensitive,
                           reasons=[f"shell: {name} builds or inspects the workspace"])
        if name in READ_ONLY:
            return Finding.read(f"shell: {name} reads", sensitive=sensitive)
        if name in LOCAL_WRITES:
            return Finding("auto", state_change=True, sensitive=sensitive,
                           reasons=[f"shell: {name} is a reversible workspace edit"])
        if name in DESTRUCTIVE or name.startswith("mkfs"):
            return Finding.write(f"shell: {name} destroys or needs privilege")
        if name in NETWORK:
            return Finding.write(f"shell: {name} reaches another host")
        return Finding.write(f"shell: unknown program {name!r}: fail safe")

    def command_text(self, text: str, depth: int, why: str) -> Finding:
        f = self.line(text, depth + 1)
        return Finding(f.band, f.state_change, f.sensitive, f.ingests, [why] + f.reasons)

    # --- programs that run other programs ----------------------------------

    def _rest(self, words: list[Word], cmd: Simple, depth: int, why: str) -> Finding:
        if not words:
            return Finding.read(f"shell: {why} with no command")
        return self.program(words, Simple(words=words, redirects=cmd.redirects, piped_in=cmd.piped_in), depth + 1)

    def wrapper(self, name: str, args: list[Word], cmd: Simple, depth: int) -> Finding:
        texts = [a.text for a in args]
        i = 0
        extra: Finding | None = None
        if name in ("sudo", "doas"):
            extra = Finding.write(f"shell: {name} runs with privilege")
            while i < len(args) and texts[i].startswith("-"):
                i += 2 if texts[i] in ("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T") else 1
        elif name == "timeout":
            while i < len(args) and texts[i].startswith("-"):
                i += 2 if texts[i] in ("-s", "-k", "--signal", "--kill-after") else 1
            i += 1  # the duration
        elif name in ("nice", "ionice", "stdbuf", "chrt", "taskset", "flock", "watch", "xvfb-run"):
            while i < len(args) and texts[i].startswith("-"):
                if name == "flock" and texts[i] in ("-c", "--command") and i + 1 < len(args):
                    return self.command_text(texts[i + 1], depth, "shell: flock -c runs")
                i += 2 if texts[i] in ("-n", "-c", "-p", "-i", "-o", "-e", "-w") else 1
            if name in ("chrt", "taskset", "flock") and i < len(args):
                i += 1  # priority, mask or lock file
                if name == "flock" and i < len(args) and texts[i] in ("-c", "--command") and i + 1 < len(args):
                    return self.command_text(texts[i + 1], depth, "shell: flock -c runs")
            if name == "watch":
                if not all(a.fixed() for a in args[i:]):
                    return Finding.write("shell: watch of dynamic text")
                return self.command_text(" ".join(texts[i:]), depth, "shell: watch runs")
        elif name == "command":
            if any(t in ("-v", "-V") for t in texts):
                return Finding.read("shell: command -v looks a name up")
            while i < len(args) and texts[i].startswith("-"):
                i += 1
        elif name == "exec":
            while i < len(args) and texts[i].startswith("-"):
                i += 2 if texts[i] == "-a" else 1
        else:
            while i < len(args) and texts[i].startswith("-") and name in ("time", "nohup", "setsid"):
                i += 1
        inner = self._rest(args[i:], cmd, depth, name)
        return inner.combine(extra) if extra else inner

    def p_env(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        i = 0
        result = Finding.read("shell: env")
        while i < len(args):
            t = texts[i]
            if t in ("-S", "--split-string") and i + 1 < len(args):
                return result.combine(self.command_text(" ".join(texts[i + 1:]), depth, "shell: env -S runs"))
            if t.startswith("--split-string="):
                return result.combine(self.command_text(t.split("=", 1)[1] + " " + " ".join(texts[i + 1:]), depth,
                                                        "shell: env -S runs"))
            if t.startswith("-S") and len(t) > 2:
                return result.combine(self.command_text(t[2:] + " " + " ".join(texts[i + 1:]), depth,
                                                        "shell: env -S runs"))
            if t in ("-u", "-C", "--unset", "--chdir"):
                i += 2
            elif t.startswith("-"):
                i += 1
            elif is_assignment(t):
                result = result.combine(self.assignment(args[i]))
                i += 1
            else:
                break
        if i >= len(args):
            return result.combine(Finding.read("shell: env prints the environment", sensitive=True))
        return result.combine(self._rest(args[i:], cmd, depth, "env"))

    def p_printenv(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        names = [t for t in texts if not t.startswith("-")]
        secret = not names or any(SECRET_VARIABLE.search(n) for n in names)
        return Finding.read("shell: printenv prints the environment", sensitive=secret)

    def p_export(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        result = Finding.read("shell: export")
        if not texts or texts == ["-p"]:
            return Finding.read("shell: export -p prints the environment", sensitive=True)
        for a in args:
            if is_assignment(a.text):
                result = result.combine(self.assignment(a))
        return result

    def p_declare(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if not [t for t in texts if not t.startswith("-")]:
            return Finding.read("shell: declare prints variables", sensitive=True)
        return self.p_export(args, texts, cmd, depth)

    p_typeset = p_declare

    def p_set(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if not texts:
            return Finding.read("shell: set prints every variable", sensitive=True)
        return Finding.read("shell: set changes shell options")

    def p_ps(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        env = any(not t.startswith("-") and "e" in t for t in texts) or "-E" in texts
        return Finding.read("shell: ps lists processes", sensitive=env)

    def p_getent(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        return Finding.read("shell: getent", sensitive=bool(texts) and texts[0] in ("shadow", "gshadow"))

    def p_eval(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if not all(a.fixed() for a in args):
            return Finding.write("shell: eval of text known only at run time")
        return self.command_text(" ".join(texts), depth, "shell: eval runs")

    def p_source(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if not args or not args[0].fixed():
            return Finding.write("shell: source of a file known only at run time")
        return Finding.read(f"shell: source {texts[0]} sets up the shell")

    p__ = p_source

    def shell(self, name: str, args: list[Word], cmd: Simple, depth: int) -> Finding:
        i = 0
        if name == "busybox":
            if not args:
                return Finding.read("shell: busybox lists applets")
            return self.program(args, cmd, depth + 1)
        while i < len(args):
            a = args[i]
            if not a.fixed():
                return Finding.write(f"shell: {name} with options known only at run time")
            t = a.text
            if t == "--":
                i += 1
                break
            if t.startswith("-") and not t.startswith("--") and "c" in t[1:]:
                if i + 1 >= len(args):
                    return Finding.write(f"shell: {name} -c without a command")
                code = args[i + 1]
                if not code.fixed():
                    return Finding.write(f"shell: {name} -c of text known only at run time")
                return self.command_text(code.text, depth, f"shell: {name} -c runs")
            if t in ("--version", "--help"):
                return Finding.read(f"shell: {name} {t}")
            if t.startswith("-") or t.startswith("+"):
                i += 2 if t in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file") else 1
                continue
            break
        if i < len(args):
            return Finding.write(f"shell: {name} runs a script file: fail safe")
        heredocs = [r.heredoc for r in cmd.redirects if r.heredoc is not None]
        herestrings = [r.target for r in cmd.redirects if r.op == "<<<"]
        if cmd.piped_in or any(r.op == "<" for r in cmd.redirects):
            return Finding.write(f"shell: {name} runs commands from its input: fail safe")
        if herestrings and not all(h.fixed() for h in herestrings):
            return Finding.write(f"shell: {name} runs a here-string known only at run time")
        result: Finding | None = None
        for body in heredocs + [h.text for h in herestrings]:
            g = self.command_text(body, depth, f"shell: {name} runs its here-document")
            result = g if result is None else result.combine(g)
        return result if result is not None else Finding.write(f"shell: interactive {name}: fail safe")

    def p_xargs(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        i = 0
        with_arg = {"-n", "-I", "-P", "-d", "-L", "-a", "-E", "-s", "-i", "--max-args", "--delimiter",
                    "--arg-file", "--max-procs", "--replace", "--max-lines"}
        while i < len(args) and texts[i].startswith("-"):
            if texts[i] == "--":
                i += 1
                break
            i += 2 if texts[i] in with_arg else 1
        if i >= len(args):
            return Finding.read("shell: xargs echoes")
        return self._multi(args[i:], depth)

    def p_find(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        result = Finding.read("shell: find lists")
        i = 0
        while i < len(texts):
            t = texts[i]
            if t in ("-exec", "-execdir", "-ok", "-okdir"):
                j = i + 1
                while j < len(texts) and texts[j] not in (";", "+"):
                    j += 1
                sub = args[i + 1:j]
                if not sub:
                    return Finding.write("shell: find -exec without a command")
                result = result.combine(self._multi(sub, depth))
                i = j + 1
                continue
            if t == "-delete":
                result = result.combine(Finding.write("shell: find -delete removes files"))
            elif t in ("-fprint", "-fprintf", "-fprint0", "-fls"):
                result = result.combine(Finding.write(f"shell: find {t} writes a file"))
            i += 1
        return result

    def _rest_words(self, args: list[Word], depth: int, why: str) -> Finding:
        if not args:
            return Finding.write(f"shell: {why} without a command")
        return self.program(args, Simple(words=args), depth + 1)

    def p_fd(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        for i, t in enumerate(texts):
            if t in ("-x", "--exec", "-X", "--exec-batch"):
                rest = args[i + 1:]
                end = next((k for k, a in enumerate(rest) if a.text == ";"), len(rest))
                if not rest[:end]:
                    return Finding.write("shell: fd -x without a command")
                return self._multi(rest[:end], depth)
        return Finding.read("shell: fd lists")

    p_fdfind = p_fd

    def p_strace(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        i = 0
        while i < len(texts) and texts[i].startswith("-"):
            i += 2 if texts[i] in ("-e", "-o", "-p", "-s", "-E", "-u", "-a", "-S", "-P", "-I", "-b", "-O", "-X") else 1
        if i >= len(args):
            return Finding.write("shell: strace attaches to a process")
        return self._rest_words(args[i:], depth, "strace")

    p_ltrace = p_strace

    def _option_values(self, texts: list[str], names: tuple[str, ...]) -> list[str]:
        out: list[str] = []
        for i, t in enumerate(texts):
            for n in names:
                if t == n and i + 1 < len(texts):
                    out.append(texts[i + 1])
                elif n.startswith("--") and t.startswith(n + "="):
                    out.append(t[len(n) + 1:])
                elif not n.startswith("--") and t.startswith(n) and len(t) > len(n) and n != t[:1]:
                    out.append(t[len(n):].lstrip("="))
        return out

    def _commands(self, values: list[str], depth: int, why: str) -> Finding | None:
        result: Finding | None = None
        for v in values:
            f = self.command_text(v, depth, why)
            result = f if result is None else result.combine(f)
        return result

    def p_tar(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        progs = self._option_values(texts, ("-I", "--use-compress-program", "--to-command", "--info-script",
                                            "--new-volume-script", "-F", "--rsh-command", "--rmt-command"))
        for t in texts:
            if t.startswith("--checkpoint-action=exec="):
                progs.append(t.split("=", 2)[2])
        if any(re.match(r"^[^/]+:", t) and not t.startswith("-") for t in texts):
            return Finding.write("shell: tar archive on another host")
        f = self._commands(progs, depth, "shell: tar runs")
        base = Finding.read("shell: tar packs or unpacks in the workspace")
        return base.combine(f) if f else base

    def p_split(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        f = self._commands(self._option_values(texts, ("--filter",)), depth, "shell: split --filter runs")
        base = Finding.read("shell: split writes pieces in the workspace")
        return base.combine(f) if f else base

    def p_zip(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        f = self._commands(self._option_values(texts, ("-TT", "--unzip-command")), depth, "shell: zip -TT runs")
        base = Finding.read("shell: zip packs the workspace")
        return base.combine(f) if f else base

    def p_vim(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        cmds = [t[1:] for t in texts if t.startswith("+")] + self._option_values(texts, ("-c", "--cmd"))
        if any(not re.fullmatch(r"\d*|/[^!]*", c) for c in cmds):
            return Finding.write("shell: editor command may run or write")
        return Finding.read("shell: editor opens a workspace file")

    p_vi = p_nvim = p_vim

    def p_rg(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(t == "--pre" or t.startswith("--pre=") for t in texts):
            return Finding.write("shell: rg --pre runs a program on every file")
        return Finding.read("shell: rg searches")

    def p_man(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(t in ("-P", "--pager", "-H", "--html") or t.startswith(("--pager=", "-P", "--html=")) for t in texts):
            return Finding.write("shell: man runs a chosen pager or browser")
        return Finding.read("shell: man reads")

    def p_sort(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(t.startswith("--compress-program") for t in texts):
            return Finding.write("shell: sort --compress-program runs a program")
        if any(t.startswith("-o") or t.startswith("--output") for t in texts):
            return Finding.write("shell: sort -o writes a file")
        return Finding.read("shell: sort reads")

    def p_uniq(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        files, i = [], 0
        while i < len(texts):
            t = texts[i]
            if t in ("-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"):
                i += 2
                continue
            if not t.startswith("-") or t == "-":
                files.append(t)
            i += 1
        if len(files) >= 2 and files[1] not in HARMLESS_SINKS and files[1] != "-":
            return Finding.write(f"shell: uniq truncates its output file {files[1]}")
        return Finding.read("shell: uniq reads")

    def p_tee(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        files = [t for t in texts if not t.startswith("-")]
        if not files or all(f in HARMLESS_SINKS for f in files):
            return Finding.read("shell: tee to stdout")
        if any(t in ("-a", "--append") for t in texts):
            return Finding("auto", state_change=True, reasons=["shell: tee -a appends"])
        return Finding.write("shell: tee truncates its files")

    def p_date(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(t.startswith("-s") or t.startswith("--set") for t in texts):
            return Finding.write("shell: date -s sets the clock")
        return Finding.read("shell: date prints")

    def p_hostname(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(not t.startswith("-") for t in texts) or any(t in ("-F", "--file", "-b", "--boot") for t in texts):
            return Finding.write("shell: hostname NAME renames the host")
        return Finding.read("shell: hostname prints")

    def p_mount(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if all(t in ("-l", "--show-labels", "-v") for t in texts):
            return Finding.read("shell: mount lists")
        return Finding.write("shell: mount changes the file systems")

    def p_systemctl(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        reads = {"status", "is-active", "is-enabled", "is-failed", "list-units", "list-unit-files", "show", "cat",
                 "list-timers", "list-sockets", "list-dependencies", "--version", "help"}
        if texts and any(t in reads for t in texts) and not any(t in ("start", "stop", "restart", "reload", "enable",
                                                                        "disable", "mask", "kill") for t in texts):
            return Finding.read("shell: service status")
        return Finding.write("shell: changes a system service")

    p_service = p_systemctl

    def p_dd(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        outs = [t[3:] for t in texts if t.startswith("of=")]
        if outs and any(o not in HARMLESS_SINKS for o in outs):
            return Finding.write("shell: dd writes a device or file")
        return Finding.read("shell: dd reads to stdout",
                            sensitive=any(is_secret(Word(t[3:])) for t in texts if t.startswith("if=")))

    def p_chmod(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(t in ("-R", "--recursive") or (re.fullmatch(r"-[a-zA-Z]+", t) and "R" in t) for t in texts):
            return Finding.write("shell: recursive chmod changes a whole tree")
        modes = [t for t in texts if not t.startswith("-") or re.fullmatch(r"-[rwxXst]+", t)]
        if modes and not modes[0].startswith("-") and _mode_opens(modes[0]):
            return Finding.write("shell: chmod opens a file to others or sets set-id")
        return Finding("auto", state_change=True, reasons=["shell: chmod changes workspace permissions"])

    def p_chown(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(t.startswith("-") and t != "-v" for t in texts):
            return Finding.write("shell: chown with options changes more than one file's group")
        owner = next((t for t in texts if not t.startswith("-")), "")
        if not owner.startswith(":"):
            return Finding.write("shell: chown gives a file to another user")
        return Finding("auto", state_change=True, reasons=["shell: chown changes a workspace file's group"])


    def p_install(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        modes = self._option_values(texts, ("-m", "--mode"))
        if any(_mode_opens(m) for m in modes):
            return Finding.write("shell: install with an open mode")
        if self._option_values(texts, ("-o", "--owner", "-g", "--group")):
            return Finding.write("shell: install gives files to another owner")
        return Finding("auto", state_change=True, reasons=["shell: install copies into the workspace"])

    def p_mkdir(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        modes = self._option_values(texts, ("-m", "--mode"))
        if any(_mode_opens(m) for m in modes):
            return Finding.write("shell: mkdir of a world-writable directory")
        return Finding("auto", state_change=True, reasons=["shell: mkdir"])

    def p_cp(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if "/dev/null" in texts or "/dev/zero" in texts:
            return Finding.write("shell: copies or moves through /dev/null: destroys the file")
        return Finding("auto", state_change=True, reasons=["shell: reversible workspace copy"])

    p_mv = p_ln = p_cp

    def p_rsync(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        for t in texts:
            if t in ("-e", "--rsh") or t.startswith(("--rsh=", "--rsync-path")) or (
                    re.fullmatch(r"-[a-zA-Z]+", t) and "e" in t[1:]):
                return Finding.write("shell: rsync or scp runs a chosen remote shell")
            if t == "-o" or (t.startswith("-o") and len(t) > 2):
                return Finding.write("shell: ssh option may run a local command")
            if t.startswith(("-S", "-F")):
                return Finding.write("shell: scp runs a chosen program or config")
        if any(re.match(r"^[^/]+:", t) for t in texts if not t.startswith("-") and not t.startswith(".")):
            return Finding.write("shell: copies to or from another host")
        if any(t.startswith("--delete") or t.startswith("--remove-source") for t in texts):
            return Finding.write("shell: rsync deletes files")
        return Finding("auto", state_change=True, reasons=["shell: local copy"])

    p_scp = p_rsync

    def p_ssh(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if texts and all(t in ("-V", "-h", "--help") for t in texts):
            return Finding.read("shell: ssh prints its version")
        return Finding.write("shell: ssh reaches another host")

    def p_awk(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        prog = next((a for a in args if not a.text.startswith("-")), None)
        if prog is None or not prog.fixed() or re.search(r"system|\||>|getline|-i", prog.text + " ".join(texts)):
            return Finding.write("shell: awk program that may run commands or write files")
        return Finding.read("shell: awk reads")

    p_gawk = p_mawk = p_awk

    def p_sed(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        scripts = self._option_values(texts, ("-e", "--expression"))
        files = self._option_values(texts, ("-f", "--file"))
        if files:
            return Finding.write("shell: sed script from a file")
        i = 0
        positional: list[str] = []
        while i < len(texts):
            t = texts[i]
            if t in ("-e", "--expression", "-f", "--file", "-l", "--line-length"):
                i += 2
                continue
            if not t.startswith("-"):
                positional.append(t)
            i += 1
        if not scripts and positional:
            scripts = [positional[0]]
        if any(_sed_runs_or_writes(sc) for sc in scripts):
            return Finding.write("shell: sed script runs a command or writes a file")
        if any(t.startswith("-i") or t.startswith("--in-place") for t in texts):
            return Finding("auto", state_change=True, reasons=["shell: sed -i edits a workspace file"])
        return Finding.read("shell: sed prints")

    p_gsed = p_sed

    def p_python(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if not texts or texts[0] in ("--version", "-V", "--help", "-h"):
            return Finding.read("shell: python version")
        if texts[0] == "-m" and len(texts) > 1 and texts[1] in (
                "pytest", "venv", "pip", "unittest", "mypy", "black", "ruff", "compileall", "json.tool", "tox",
                "build", "pyflakes", "flake8", "pylint", "coverage", "doctest", "py_compile", "timeit", "pydoc"):
            if texts[1] == "pip" and "uninstall" in texts:
                return Finding.write("shell: pip uninstall")
            return Finding.read(f"shell: python -m {texts[1]} works in the workspace")
        return Finding.write("shell: python runs code we cannot see: fail safe")

    p_python3 = p_python

    def p_node(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if texts and texts[0] in ("--version", "-v", "--help"):
            return Finding.read("shell: node version")
        return Finding.write("shell: node runs code we cannot see: fail safe")

    def p_npm(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(t.startswith("--script-shell") for t in texts):
            return Finding.write("shell: npm --script-shell runs a chosen shell")
        pos = [t for t in texts if not t.startswith("-")]
        sub = pos[0] if pos else "install"
        if sub in ("publish", "unpublish", "deprecate", "owner", "access", "token", "login", "logout", "adduser",
                   "team", "org", "dist-tag", "star", "hook", "exec", "x", "init", "create", "dlx", "link"):
            return Finding.write(f"shell: {sub} publishes or runs a downloaded package")
        if sub in ("run", "run-script", "rum", "urn"):
            script = pos[1] if len(pos) > 1 else ""
            if script.split(":")[0] not in SAFE_SCRIPTS:
                return Finding.write(f"shell: script {script!r} is not a build or a test")
            return Finding("auto", state_change=True, reasons=[f"shell: runs the {script} script"])
        if sub in ("audit", "ls", "list", "outdated", "view", "info", "why", "explain", "help", "version", "search",
                   "doctor", "root", "bin", "prefix", "query", "sbom", "fund"):
            return Finding.read(f"shell: npm {sub} reads")
        if sub in ("install", "i", "ci", "add", "test", "t", "tst", "pack", "prune", "dedupe", "rebuild",
                   "update", "up", "doctor", "config", "cache", "fund", "search", "root", "bin", "prefix",
                   "start", "stop", "restart", "remove", "rm", "uninstall", "un", "query", "pkg", "sbom"):
            return Finding("auto", state_change=True, reasons=[f"shell: npm {sub} works in the workspace"])
        if sub.split(":")[0] in SAFE_SCRIPTS:
            return Finding("auto", state_change=True, reasons=[f"shell: runs the {sub} script"])
        return Finding.write(f"shell: {sub!r} is not a build or a test")


    def p_pip(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if texts[:1] == ["uninstall"]:
            return Finding.write("shell: pip uninstall")
        return Finding.read("shell: pip works in the environment")

    p_pip3 = p_pip

    def p_cargo(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        for v in self._option_values(texts, ("--config",)):
            if re.search(r"runner|linker|rustc|wrapper|\.ar\b|credential|alias", v):
                return Finding.write("shell: cargo --config chooses a program that runs")
        pos = [t for t in texts if not t.startswith(("-", "+"))]
        if pos and pos[0] in ("publish", "login", "owner", "yank", "logout", "install", "uninstall"):
            return Finding.write(f"shell: cargo {pos[0]} publishes or installs beyond the workspace")
        return Finding("auto", state_change=bool(pos), reasons=["shell: cargo builds the workspace"])

    def p_docker(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        reads = {"--version", "version", "ps", "images", "info", "logs", "inspect", "build", "help", "--help"}
        if texts and texts[0] in reads:
            return Finding.read("shell: docker inspects")
        return Finding.write("shell: docker runs or changes containers")

    def p_gh(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if texts[:2] == ["pr", "create"]:
            if any(t in ("--draft", "-d") for t in texts):
                return Finding("soft-ack", state_change=True, reasons=["shell: draft pull request"])
            return Finding.write("shell: gh pr create asks people for review")
        if len(texts) >= 2 and texts[1] in ("list", "view", "status", "diff", "checks") or texts[:2] == ["auth", "status"]:
            return Finding.read("shell: gh reads")
        if texts and texts[0] in ("--version", "version", "help"):
            return Finding.read("shell: gh version")
        return Finding.write("shell: gh changes a shared forge")

    def p_aws(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        pos = [t for t in texts if not t.startswith("-")]
        if len(pos) >= 2 and (pos[1] == "ls" or pos[1].startswith(("describe-", "list-")) or
                              pos[:2] == ["sts", "get-caller-identity"]):
            return Finding.read("shell: aws lists")
        return Finding.write("shell: aws changes or reads cloud resources")

    def p_terraform(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        pos = [t for t in texts if not t.startswith("-")]
        if not pos or pos[0] in ("plan", "validate", "fmt", "show", "version", "init", "graph", "providers"):
            return Finding.read("shell: terraform inspects")
        return Finding.write("shell: terraform changes infrastructure")

    p_tofu = p_terraform

    # --- git ---------------------------------------------------------------

    def p_git(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        i = 0
        while i < len(texts) and texts[i].startswith("-"):
            t = texts[i]
            if t.startswith("--exec-path"):
                return Finding.write("shell: git --exec-path chooses programs that run")
            if t.startswith("--config-env"):
                key = t.split("=", 1)[1] if "=" in t else (texts[i + 1] if i + 1 < len(texts) else "")
                if _danger_git_key(key.split("=", 1)[0]):
                    return Finding.write("shell: git --config-env sets a program that runs")
                i += 1 if "=" in t else 2
                continue
            if t == "-c" and i + 1 < len(texts):
                if _danger_git_key(texts[i + 1].split("=", 1)[0]):
                    return Finding.write("shell: git -c sets a program that runs")
            if t in ("--version", "--help", "-h"):
                return Finding.read("shell: git version")
            i += 2 if t in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
        if i >= len(texts):
            return Finding.read("shell: git prints help")
        if not all(a.fixed() for a in args[:i + 1]):
            return Finding.write("shell: git subcommand known only at run time")
        sub, rest = texts[i], texts[i + 1:]
        for t in rest:
            if t.startswith(("--upload-pack", "--receive-pack", "--exec", "--config", "--template")) or t in (
                    "-u", "-x") and sub in ("clone", "fetch", "pull", "ls-remote", "rebase", "push", "archive"):
                if not (sub == "push" and t == "-u"):
                    return Finding.write(f"shell: git {sub} {t} runs a program")
        if sub in GIT_READS or sub == "ls-remote":
            return Finding.read(f"shell: git {sub} reads")
        if sub == "bisect" and rest[:1] == ["run"]:
            return self._rest_words(args[i + 2:], depth, "git bisect run")
        if sub == "branch":
            if any(t in ("-d", "-D", "--delete", "-f", "--force", "-M", "-C") for t in rest):
                return Finding.write("shell: git branch deletes or overwrites a branch")
            return Finding("auto", state_change=bool([t for t in rest if not t.startswith("-")]),
                           reasons=["shell: git branch"])
        if sub == "tag":
            if any(t in ("-d", "--delete", "-f", "--force") for t in rest):
                return Finding.write("shell: git tag deletes or moves a tag")
            return Finding("auto", state_change=bool(rest), reasons=["shell: git tag"])
        if sub == "remote":
            if not rest or rest[0] in ("-v", "show", "get-url"):
                return Finding.read("shell: git remote lists")
            return Finding("auto", state_change=True, reasons=["shell: git remote edits local config"])
        if sub == "stash":
            if rest and rest[0] in ("list", "show"):
                return Finding.read("shell: git stash list")
            if rest and rest[0] in ("drop", "clear"):
                return Finding.write("shell: git stash drop loses work")
            return Finding("auto", state_change=True, reasons=["shell: git stash keeps work"])
        if sub == "config":
            pos = [t for t in rest if not t.startswith("-")]
            if any(t in ("--get", "--list", "-l", "--get-all", "--get-regexp") for t in rest) or len(pos) <= 1:
                return Finding.read("shell: git config reads")
            if _danger_git_key(pos[0]) or pos[1].startswith("!"):
                return Finding.write("shell: git config sets a program that runs")
            return Finding("auto", state_change=True, reasons=["shell: git config sets a local value"])
        if sub == "reset":
            if any(t in ("--hard", "--merge", "--keep") for t in rest):
                return Finding.write("shell: git reset --hard discards work")
            return Finding("auto", state_change=True, reasons=["shell: git reset moves the index"])
        if sub == "clean":
            if any(t in ("-n", "--dry-run") for t in rest):
                return Finding.read("shell: git clean -n lists")
            return Finding.write("shell: git clean deletes untracked files")
        if sub == "checkout" and ("--" in rest or "." in rest or "-f" in rest or "--force" in rest):
            return Finding.write("shell: git checkout discards local changes")
        if sub == "restore" and "--staged" not in rest:
            return Finding.write("shell: git restore discards local changes")
        if sub == "update-ref":
            if "-d" in rest:
                return Finding.write("shell: git update-ref -d deletes a ref")
            return Finding("auto", state_change=True, reasons=["shell: git update-ref"])
        if sub == "rm" and any(t.startswith("-") and "f" in t for t in rest):
            return Finding.write("shell: git rm -f loses uncommitted work")
        if sub == "reflog":
            if rest and rest[0] in ("expire", "delete"):
                return Finding.write("shell: git reflog expire loses history")
            return Finding.read("shell: git reflog")
        if sub in GIT_LOCAL or sub in ("checkout", "rm"):
            return Finding("auto", state_change=True, reasons=[f"shell: git {sub} is a reversible local edit"])
        if sub == "push":
            return self._git_push(rest)
        if sub == "lfs":
            if rest[:1] == ["push"]:
                return Finding("soft-ack", state_change=True, reasons=["shell: git lfs push to a shared remote"])
            return Finding("auto", state_change=True, reasons=["shell: git lfs"])
        if sub in ("pull", "clone"):
            return Finding("soft-ack", state_change=True, reasons=[f"shell: git {sub} brings remote content"])
        return Finding.write(f"shell: git {sub} is not known: fail safe")

    def _git_push(self, rest: list[str]) -> Finding:
        positional: list[str] = []
        i = 0
        while i < len(rest):
            t = rest[i]
            if t in ("-n", "--dry-run"):
                return Finding.read("shell: git push --dry-run sends nothing")
            if t.startswith("--"):
                name = t.split("=", 1)[0]
                if name not in ("--set-upstream", "--quiet", "--verbose", "--progress", "--no-verify", "--atomic",
                                "--porcelain", "--signed", "--no-signed", "--ipv4", "--ipv6", "--no-progress",
                                "--thin", "--no-thin"):
                    return Finding.write(f"shell: git push {name} is not a plain push")
            elif t.startswith("-") and len(t) > 1:
                if any(ch not in "uqv46" for ch in t[1:]):
                    return Finding.write(f"shell: git push {t} is not a plain push")
            else:
                positional.append(t)
            i += 1
        if positional:
            remote = positional[0]
            local = remote.startswith(("./", "../", "/")) and ":" not in remote
            if not local and not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", remote):
                return Finding.write("shell: git push to a URL, not a configured remote")
            for ref in positional[1:]:
                src, colon, dst = ref.partition(":")
                if (ref == "tag" or ref.startswith("+") or "refs/tags" in ref or (colon and not src)
                        or VERSION_REF.match(src) or VERSION_REF.match(dst) or ref.startswith("refs/") and not
                        ref.startswith("refs/heads/")):
                    return Finding.write(f"shell: git push {ref} publishes a tag or rewrites history")
        return Finding("soft-ack", state_change=True, reasons=["shell: git push of a branch to a shared remote"])

    # --- downloads -----------------------------------------------------------

    def p_curl(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        return self._download("curl", args)

    def p_wget(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        return self._download("wget", args)

    def _download(self, name: str, args: list[Word]) -> Finding:
        texts = [a.text for a in args]
        if not all(a.fixed() for a in args):
            return Finding.write(f"shell: {name} with arguments known only at run time")
        curl = name == "curl"
        short_takes = "AbcCdDeEFHKmoPQrtTuUwxXyYz" if curl else "OoaPUetTwiBQlDARIX"
        long_takes = {
            "--request", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--data-ascii", "--json",
            "--form", "--form-string", "--upload-file", "--output", "--header", "--user", "--user-agent", "--referer",
            "--cookie", "--cookie-jar", "--proxy", "--config", "--write-out", "--max-time", "--connect-timeout",
            "--range", "--dump-header", "--cert", "--key", "--cacert", "--url", "--retry", "--resolve",
            "--connect-to", "--interface", "--output-dir", "--oauth2-bearer", "--proxy-user",
            "--output-document", "--output-file", "--directory-prefix", "--method", "--post-data", "--post-file",
            "--body-data", "--body-file", "--http-user", "--http-password", "--password", "--execute", "--tries",
            "--timeout", "--input-file", "--save-cookies", "--load-cookies", "--append-output",
        }
        opts: list[tuple[str, str | None]] = []
        urls: list[str] = []
        i = 0
        while i < len(texts):
            t = texts[i]
            if t.startswith("--") and len(t) > 2:
                key, eq, inline = t.partition("=")
                if eq:
                    opts.append((key, inline))
                elif key in long_takes and i + 1 < len(texts):
                    opts.append((key, texts[i + 1]))
                    i += 1
                else:
                    opts.append((key, None))
            elif t.startswith("-") and len(t) > 1:
                for opt, value, needs in _short_options(t, short_takes):
                    if needs and i + 1 < len(texts):
                        value = texts[i + 1]
                        i += 1
                    opts.append((opt, value))
            else:
                urls.append(t)
            i += 1
        method: str | None = None
        get = False
        saved_file = False
        to_stdout = False
        sensitive = False
        for opt, val in opts:
            if opt in ("-X", "--request", "--method") and val is not None:
                method = val.upper()
            elif opt in ("-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--data-ascii", "-F",
                         "--form", "--form-string", "--json", "--post-data", "--post-file", "--body-data",
                         "--body-file"):
                method = method or "POST"
            elif opt in ("-G", "--get"):
                get = True
            elif opt in ("-T", "--upload-file"):
                method = method or "PUT"
            elif curl and opt in ("-I", "--head"):
                method = method or "HEAD"
            elif opt in ("--url",) and val is not None:
                urls.append(val)
            elif curl and opt in ("-o", "--output", "-c", "--cookie-jar", "-D", "--dump-header", "--output-dir"):
                if val not in ("-", "/dev/null", "/dev/stdout", None):
                    saved_file = True
            elif curl and opt in ("-O", "--remote-name", "--remote-name-all", "-J", "--remote-header-name"):
                saved_file = True
            elif not curl and opt in ("-O", "--output-document"):
                if val in ("-", "/dev/null", "/dev/stdout"):
                    to_stdout = True
                else:
                    saved_file = True
            elif not curl and opt in ("--save-cookies", "-o", "--output-file", "-a", "--append-output"):
                saved_file = True
            elif not curl and opt == "--spider":
                to_stdout = True
            elif opt in ("-u", "--user", "--password", "--http-password", "--proxy-user", "-E", "--cert", "--key",
                         "--oauth2-bearer"):
                sensitive = True
            elif opt in ("-K", "--config", "-i", "--input-file") or (not curl and opt in ("-e", "--execute")
                                                                     and val is not None and "=" in val
                                                                     and val.split("=")[0].strip() not in (
                                                                         "robots",)):
                return Finding.write(f"shell: {name} {opt} reads instructions from elsewhere")
            elif opt in ("-H", "--header") and val is not None and re.match(r"\s*(authorization|cookie|x-api-key)\s*:",
                                                                           val, re.I):
                sensitive = True
        # wget saves what it fetches unless told to print it.
        saves = saved_file or (not curl and not to_stdout)
        if get and method in (None, "POST"):
            method = "GET"
        if not urls:
            return Finding.write(f"shell: {name} without a URL: fail safe")
        result: Finding | None = None
        for url in urls:
            if "://" not in url and not url.lower().startswith(("data:", "file:")):
                url = "http://" + url
            if url.lower().startswith("file:"):
                f = Finding.write(f"shell: {name} of a file: URL reads local files", sensitive=True)
            else:
                f = classify_fetch(url, method or "GET", self.htr)
            result = f if result is None else result.combine(f)
        assert result is not None
        if sensitive:
            result = result.combine(Finding("auto", sensitive=True, reasons=[f"shell: {name} sends credentials"]))
        if saves:
            result = result.combine(Finding("auto", state_change=True, reasons=[f"shell: {name} saves a file"]))
        return result

    def p_chgrp(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(t.startswith("-") and t != "-v" for t in texts):
            return Finding.write("shell: chgrp with options changes a tree or follows links")
        return Finding("auto", state_change=True, reasons=["shell: chgrp changes a workspace file's group"])

    def p_chattr(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        flags = [t for t in texts if t[:1] in "+-="]
        if flags and all(re.fullmatch(r"[+-]C", f) for f in flags):
            return Finding("auto", state_change=True, reasons=["shell: chattr of copy-on-write only"])
        return Finding.write("shell: chattr changes immutable, append-only or other attributes")

    def p_setfacl(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        opts = [t for t in texts if t.startswith("-")]
        if opts and all(o in ("-x", "--remove") or o.startswith("--remove=") for o in opts):
            return Finding("auto", state_change=True, reasons=["shell: setfacl removes an entry"])
        return Finding.write("shell: setfacl grants access to others")

    def p_emacs(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(t in ("--eval", "-eval", "-l", "--load", "-f", "--funcall", "--script", "-x") or
               t.startswith(("--eval=", "--load=", "--funcall=")) for t in texts):
            return Finding.write("shell: emacs evaluates code")
        return Finding.read("shell: editor opens a workspace file")

    def _multi(self, sub: list[Word], depth: int) -> Finding:
        """A program run over many files at once (find -exec, xargs, fd -x)."""
        if sub and sub[0].fixed() and posixpath.basename(sub[0].text) in PERMISSION_PROGRAMS:
            return Finding.write(f"shell: {sub[0].text} over many files at once")
        return self.program(sub, Simple(words=sub), depth + 1)

    def p_npx(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        pos = [t for t in texts if not t.startswith("-")]
        if pos and pos[0] in DEV_TOOLS and not any(t in ("--yes", "-y", "-p", "--package") for t in texts):
            return Finding("auto", state_change=True, reasons=[f"shell: npx {pos[0]} runs a workspace dev tool"])
        return Finding.write("shell: npx runs a package it may download")

    def p_make(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        i = 0
        targets: list[str] = []
        while i < len(texts):
            t = texts[i]
            if t.startswith(("--eval", "-E")):
                return Finding.write("shell: make --eval runs given rules")
            if t in ("-f", "--file", "--makefile") or t.startswith(("--file=", "--makefile=")) or (
                    t.startswith("-f") and len(t) > 2):
                val = t.split("=", 1)[1] if "=" in t else (t[2:] if len(t) > 2 and not t.startswith("--")
                                                           else (texts[i + 1] if i + 1 < len(texts) else "-"))
                if val == "-" or val.startswith(("/", "~", "..")):
                    return Finding.write("shell: make runs rules from outside the workspace")
            if t in ("-C", "--directory") or t.startswith(("--directory=", "-C")):
                val = t.split("=", 1)[1] if "=" in t else (t[2:] if len(t) > 2 and not t.startswith("--")
                                                           else (texts[i + 1] if i + 1 < len(texts) else ""))
                if val.startswith(("/", "~", "..")):
                    return Finding.write("shell: make in a directory outside the workspace")
            if t in ("-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir", "-o", "-W"):
                i += 2
                continue
            if is_assignment(t):
                f = self.assignment(args[i])
                if f.band == "escalate":
                    return f
            elif not t.startswith("-"):
                targets.append(t)
            i += 1
        bad = [t for t in targets if t in RISKY_TARGETS or t.split(":")[0] in RISKY_TARGETS]
        if bad:
            return Finding.write(f"shell: make {bad[0]} reaches beyond the workspace")
        return Finding("auto", state_change=True, reasons=["shell: make builds the workspace"])

    def p_bundle(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if texts[:1] == ["exec"] and len(args) > 1:
            return self.program(args[1:], Simple(words=args[1:]), depth + 1)
        return Finding("auto", state_change=True, reasons=["shell: bundle installs the workspace's gems"])

    def p_rake(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(re.search(r"drop|reset|deploy|release|publish|destroy|purge|seed|migrate|rollback", t) for t in texts):
            return Finding.write("shell: rake task changes a database or publishes")
        return Finding("auto", state_change=True, reasons=["shell: rake task in the workspace"])

    def p_go(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(t in ("-exec", "-toolexec") or t.startswith(("-exec=", "-toolexec=", "--exec", "--toolexec"))
               for t in texts):
            return Finding.write("shell: go -exec runs a chosen program")
        pos = [t for t in texts if not t.startswith("-")]
        if pos and pos[0] in ("install", "get") or (pos[:1] == ["run"] and any("@" in p for p in pos[1:])):
            return Finding.write("shell: go downloads and runs or installs a module")
        return Finding("auto", state_change=True, reasons=["shell: go builds the workspace"])

    def p_cmake(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if "-P" in texts:
            return Finding.write("shell: cmake -P runs a script")
        if texts[:1] == ["-E"] and len(texts) > 1:
            tool = texts[1]
            if tool == "env":
                i = 2
                while i < len(texts) and (texts[i].startswith("-") or is_assignment(texts[i])):
                    i += 1
                return self._rest_words(args[i:], depth, "cmake -E env")
            if tool in ("rm", "remove", "remove_directory", "rename"):
                return Finding.write(f"shell: cmake -E {tool} deletes")
            return Finding("auto", state_change=True, reasons=[f"shell: cmake -E {tool}"])
        return Finding("auto", state_change=True, reasons=["shell: cmake builds the workspace"])

    def p_gradlew(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(t in ("-I", "--init-script") or t.startswith("--init-script=") for t in texts):
            return Finding.write("shell: gradle runs an init script")
        if any(t in RISKY_TARGETS or t.startswith("publish") for t in texts):
            return Finding.write("shell: gradle publishes")
        return Finding("auto", state_change=True, reasons=["shell: gradle builds the workspace"])

    def p_dotnet(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if texts[:2] in (["nuget", "push"], ["tool", "install"], ["nuget", "delete"]) or texts[:1] == ["publish"] \
                and "--self-contained" in texts:
            return Finding.write("shell: dotnet publishes or installs globally")
        return Finding("auto", state_change=True, reasons=["shell: dotnet builds the workspace"])

    def p_cabal(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(t in ("upload", "publish", "hex.publish", "release", "deploy") for t in texts[:2]):
            return Finding.write("shell: publishes a package")
        return Finding("auto", state_change=True, reasons=["shell: builds the workspace"])

    def p_lerna(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if any(t in ("publish", "version") for t in texts[:1]):
            return Finding.write("shell: lerna publishes")
        if texts[:1] == ["run"] and len(texts) > 1 and texts[1].split(":")[0] not in SAFE_SCRIPTS:
            return Finding.write("shell: lerna runs a script that is not a build or a test")
        return Finding("auto", state_change=True, reasons=["shell: lerna builds the workspace"])

    def p_yarn(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        pos = [t for t in texts if not t.startswith("-")]
        if pos and pos[0] == "dlx":
            return Finding.write("shell: yarn dlx runs a downloaded package")
        if pos and pos[0] not in ("install", "add", "remove", "upgrade", "why", "info", "list", "audit", "run",
                                  "workspaces", "workspace", "config", "cache", "--version", "version"):
            if pos[0].split(":")[0] not in SAFE_SCRIPTS:
                return Finding.write(f"shell: yarn {pos[0]} is not a build or a test")
        return self.p_npm(args, texts, cmd, depth) if pos and pos[0] == "run" else Finding(
            "auto", state_change=True, reasons=["shell: yarn works in the workspace"])

    def p_pnpm(self, args: list[Word], texts: list[str], cmd: Simple, depth: int) -> Finding:
        if texts[:1] == ["dlx"]:
            return Finding.write("shell: pnpm dlx runs a downloaded package")
        return self.p_npm(args, texts, cmd, depth)


    p_stack = p_mix = p_cabal

    p_gradle = p_mvn = p_mvnw = p_gradlew


def _sed_runs_or_writes(script: str) -> bool:
    """Whether a sed script has an `e` command, a `w`/`W` command, or an
    `s` command with the `e` or `w` flag: sed then runs or writes."""
    i, n = 0, len(script)
    while i < n:
        while i < n and script[i] in " \t\n;{}!":
            i += 1
        # an address: numbers, $, /re/, \cREc, with `,` or `~`
        while i < n and (script[i].isdigit() or script[i] in "$,~+"):
            i += 1
        if i < n and script[i] == "/":
            j = i + 1
            while j < n and script[j] != "/":
                j += 2 if script[j] == "\\" else 1
            i = j + 1
            while i < n and (script[i] in "IM,~+$" or script[i].isdigit()):
                i += 1
            if i < n and script[i] == "/":
                continue
        while i < n and script[i] in " \t!":
            i += 1
        if i >= n:
            break
        c = script[i]
        if c in "ewW":
            return True
        if c in "sy" and i + 1 < n:
            delim = script[i + 1]
            j, parts = i + 2, 0
            while j < n and parts < 2:
                if script[j] == "\\":
                    j += 2
                    continue
                if script[j] == delim:
                    parts += 1
                j += 1
            k = j
            while k < n and script[k] not in ";\n}":
                k += 1
            if c == "s" and re.search(r"[ew]", script[j:k]):
                return True
            i = k
            continue
        if c in "aic":
            k = script.find("\n", i)
            i = n if k < 0 else k
            continue
        if c in "rRbtTqQ:lL":
            k = i + 1
            while k < n and script[k] not in ";\n":
                k += 1
            i = k
            continue
        i += 1
    return False


def classify_shell(command: object, hard_to_reverse_local: Band) -> Finding:
    if not isinstance(command, str):
        return Finding.write("shell: `arguments.command` is not a string")
    return Inspector(hard_to_reverse_local).line(command)
