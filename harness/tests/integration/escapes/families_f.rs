//! Round 4 of the unplanted bug families: the second fresh-input round of
//! the five principles. Each is a client that reads one program's options
//! or one construct the way a simpler model of the program would.

use super::c::sees;
use super::*;

/// taskset/chrt/numactl with every option taking a value: the word after
/// an option is swallowed as its value and the next one as the mask, so
/// the command judged starts one word late (`taskset -c 0 sudo id` runs
/// `id`).
fn wrapper_one_arity(c: &str) -> Option<String> {
    static W: LazyLock<Regex> = LazyLock::new(|| {
        re(r"\b(taskset|chrt|numactl)((\s+-[A-Za-z-]+(=\S+)?)(\s+[0-9][^\s]*)?)*\s+\S+(\s+|$)")
    });
    W.is_match(c).then(|| W.replace_all(c, "").into_owned())
}

/// coreutils' `--target` read as an option of its own (the word-boundary
/// guess), not as `--target-directory`: the destination is dropped.
fn target_prefix_unread(c: &str) -> Option<String> {
    static T: LazyLock<Regex> = LazyLock::new(|| re(r"\s--target(=\S+|\s+\S+)"));
    (c.starts_with("cp ")
        || c.starts_with("mv ")
        || c.starts_with("ln ")
        || c.starts_with("install "))
    .then(|| T.replace_all(c, "").into_owned())
}

/// `curl -G` data read as the request's own query whatever it is: a data
/// option's value kept only when it is written on the line.
fn get_query_literal(c: &str) -> Option<String> {
    static D: LazyLock<Regex> = LazyLock::new(|| re(r"(-d|--data[a-z-]*)(\s+|=)?'?[A-Za-z_]*@\S+"));
    (c.contains("curl") && (c.contains(" -G") || c.contains("--get") || c.contains("-sG")))
        .then(|| D.replace_all(c, "-d q=x").into_owned())
}

/// go-task's `-d`/`--dir`/`-t`/`--taskfile` ignored: the workspace's
/// Taskfile judged instead.
fn task_dir_ignored(c: &str) -> Option<String> {
    static T: LazyLock<Regex> =
        LazyLock::new(|| re(r"\b(task|go-task)(\s+(-d|--dir|-t|--taskfile)(=\S+|\s+\S+))+"));
    T.is_match(c).then(|| T.replace_all(c, "$1").into_owned())
}

/// git format-patch's and archive's `-o` judged as a workspace file.
fn git_output_in_workspace(c: &str) -> Option<String> {
    static O: LazyLock<Regex> = LazyLock::new(|| {
        re(r"\bgit\s+(format-patch|archive)(.*?)\s(-o|--output-directory|--output)(=\S+|\s+\S+)")
    });
    O.is_match(c)
        .then(|| O.replace_all(c, "git $1$2 -o out").into_owned())
}

/// `git -c core.pager=…` (and the other keys git runs through the shell)
/// read as configuration data: the value never judged as code.
fn git_shell_key_as_data(c: &str) -> Option<String> {
    static K: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r#"(?i)\s-c\s+(core\.pager|pager\.[a-z-]+|core\.editor|sequence\.editor|core\.sshcommand)=('[^']*'|"[^"]*"|\S+)"#,
        )
    });
    K.is_match(c).then(|| K.replace_all(c, "").into_owned())
}

pub const ALL: &[Family] = &[
    family!(
        "shell: a wrapper's options all read as taking a value",
        "shell",
        ["shell/"],
        || blind("shell", wrapper_one_arity)
    ),
    family!(
        "shell: coreutils' --target read as an option of its own",
        "shell",
        ["shell/"],
        || blind("shell", target_prefix_unread)
    ),
    family!(
        "shell: curl -G data read as the request's own query",
        "shell",
        ["shell/"],
        || sees("shell", get_query_literal)
    ),
    family!(
        "shell: go-task's directory and Taskfile options ignored",
        "shell",
        ["shell/"],
        || blind("shell", task_dir_ignored)
    ),
    family!(
        "shell: git format-patch and archive -o judged as a workspace file",
        "shell",
        ["shell/"],
        || sees("shell", git_output_in_workspace)
    ),
    family!(
        "shell: git -c shell-valued keys read as configuration data",
        "shell",
        ["shell/"],
        || blind("shell", git_shell_key_as_data)
    ),
];
