//! `gh`, GitHub's CLI (RBV-SH-015): reading GitHub brings in text others
//! wrote (untrusted); a draft PR is an undoable shared change; every other
//! write notifies people or changes shared state and escalates.

use super::argv::{has_flag, operands};
use super::syntax::Parser;
use super::word::Arg;
use super::{external, fetched, read, sensitive, shared, unknown, write};
use crate::classify::Inspection;

/// `gh`: reading GitHub brings in content others wrote (untrusted);
/// a draft PR is an undoable change on shared infrastructure; everything
/// else that writes notifies people or changes shared state.
pub fn gh(args: &[Arg]) -> Inspection {
    let ops = operands(args);
    let group = ops.first().map_or("", |a| a.text.as_str());
    let action = ops.get(1).map_or("", |a| a.text.as_str());
    // Option values (a title, a body) are data; only an unresolved
    // command word leaves the operation unknown.
    if ops.iter().take(2).any(|a| !a.resolved) {
        return external("`gh` gets a command known only at run time");
    }
    let flag = |short: Option<char>, long: &[&str]| has_flag("gh", args, short, long);
    match (group, action) {
        ("", _) | ("version", _) | ("help", _) => read("`gh` prints help or its version"),
        ("auth", "status") => read("`gh auth status`"),
        ("auth", "token") => sensitive(read("`gh auth token` prints a token"), "a GitHub token"),
        ("auth", _) => sensitive(write("`gh auth` manages a GitHub token"), "a GitHub token"),
        // `--draft=false` is a ready PR.
        ("pr", "create")
            if flag(Some('d'), &["draft"])
                && !args.iter().any(|a| {
                    let value = Parser::of("gh").long(&a.text, "draft").flatten();
                    matches!(value, Some("false" | "0"))
                }) =>
        {
            shared("`gh pr create --draft` opens a draft PR (closable)")
        }
        ("pr", "create") => external("`gh pr create` opens a PR for review and notifies people"),
        ("pr", "checkout")
        | ("repo", "clone")
        | ("release" | "run", "download")
        | ("gist", "clone") => fetched(
            true,
            format!("`gh {group} {action}` brings in content others wrote"),
        ),
        (_, "list" | "view" | "status" | "diff" | "checks" | "watch")
        | ("search" | "status" | "browse", _) => fetched(
            false,
            format!("`gh {group} {action}` reads content others wrote"),
        ),
        ("api", _) => {
            let method = super::argv::option_value("gh", args, Some("-X"), Some("--method"))
                .unwrap_or_default();
            let writes = !matches!(method.to_ascii_uppercase().as_str(), "" | "GET" | "HEAD")
                || flag(Some('f'), &["raw-field", "input"])
                || flag(Some('F'), &["field"]);
            if writes {
                external("`gh api` writes to GitHub")
            } else {
                fetched(false, "`gh api` reads content others wrote")
            }
        }
        ("secret", _) => sensitive(
            external(format!("`gh secret {action}` changes repository secrets")),
            "repository secrets",
        ),
        ("extension" | "alias", _) => unknown(format!("`gh {group}` runs extensions or aliases")),
        _ => external(format!(
            "`gh {group} {action}` changes GitHub and may notify people"
        )),
    }
}
