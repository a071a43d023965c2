//! Containers, clusters, infrastructure as code and cloud CLIs: reads
//! are listed per tool; anything else changes shared or production
//! resources and escalates.

use super::argv::{has_flag, operands};
use super::tools::is_version;
use super::word::Arg;
use super::{destroy, external, fetched, read, sensitive, shared_destroy, unknown, write};
use crate::classify::Inspection;
use rbv_protocol::Reversibility::Irreversible;

pub fn docker(name: &str, args: &[Arg]) -> Inspection {
    let ops = operands(args);
    let words: Vec<&str> = ops.iter().take(2).map(|a| a.text.as_str()).collect();
    let (sub, next) = (
        words.first().copied().unwrap_or(""),
        words.get(1).copied().unwrap_or(""),
    );
    let sub2 = if matches!(
        sub,
        "compose" | "image" | "container" | "volume" | "network" | "system" | "buildx" | "context"
    ) {
        next
    } else {
        ""
    };
    match (sub, sub2) {
        ("", _) if is_version(args) => read(format!("`{name} --version`")),
        (
            "ps" | "images" | "logs" | "inspect" | "version" | "info" | "stats" | "top" | "port"
            | "diff" | "history" | "search" | "events",
            _,
        )
        | (
            _,
            "ls" | "ps" | "logs" | "inspect" | "config" | "images" | "top" | "version" | "history"
            | "df" | "show",
        ) => read(format!("`{name} {sub}` reads")),
        ("build" | "tag" | "save" | "load" | "export" | "import" | "commit" | "create", _)
        | (_, "build" | "tag" | "save" | "load") => {
            if has_flag(name, args, None, &["push"]) {
                external(format!("`{name} {sub} --push` publishes an image"))
            } else {
                write(format!("`{name} {sub}` writes local images"))
            }
        }
        ("pull", _) | (_, "pull") => {
            fetched(true, format!("`{name} pull` brings in a third-party image"))
        }
        ("push", _) | (_, "push") => external(format!("`{name} push` publishes an image")),
        ("login" | "logout", _) => sensitive(
            write(format!("`{name} {sub}` stores credentials")),
            "registry credentials",
        ),
        ("rm" | "rmi" | "kill" | "stop" | "prune", _)
        | (_, "rm" | "prune" | "down" | "kill" | "stop") => destroy(
            Irreversible,
            format!("`{name} {sub}` removes or stops containers or data"),
        ),
        _ => unknown(format!(
            "`{name} {sub}` runs containers or code that is not inspected"
        )),
    }
}

pub fn kubectl(name: &str, args: &[Arg]) -> Inspection {
    let ops = operands(args);
    let sub = ops.first().map_or("", |a| a.text.as_str());
    let what = ops.get(1).map_or("", |a| a.text.as_str());
    match sub {
        "get" | "describe" if what.starts_with("secret") => {
            sensitive(read(format!("`{name} {sub} {what}`")), "cluster secrets")
        }
        "get" | "describe" | "logs" | "explain" | "version" | "api-resources" | "api-versions"
        | "cluster-info" | "top" | "diff" | "events" | "wait" | "auth" => {
            read(format!("`{name} {sub}` reads"))
        }
        "config"
            if matches!(
                what,
                "view" | "get-contexts" | "current-context" | "get-clusters"
            ) =>
        {
            read(format!("`{name} config {what}` reads"))
        }
        "config" => write(format!("`{name} config` edits the local kubeconfig")),
        "" if is_version(args) => read(format!("`{name} version`")),
        _ => external(format!("`{name} {sub}` changes a cluster")),
    }
}

pub fn helm(args: &[Arg]) -> Inspection {
    let ops = operands(args);
    let sub = ops.first().map_or("", |a| a.text.as_str());
    match sub {
        "list" | "ls" | "status" | "get" | "history" | "show" | "inspect" | "template" | "lint"
        | "search" | "version" | "env" | "verify" => read(format!("`helm {sub}` reads")),
        "repo" | "dependency" | "dep" | "package" | "create" => {
            write(format!("`helm {sub}` works locally"))
        }
        "pull" | "fetch" => fetched(true, "`helm pull` brings in a third-party chart"),
        _ => external(format!("`helm {sub}` changes a cluster")),
    }
}

pub fn iac(name: &str, args: &[Arg]) -> Inspection {
    let ops = operands(args);
    let sub = ops.first().map_or("", |a| a.text.as_str());
    let next = ops.get(1).map_or("", |a| a.text.as_str());
    match sub {
        "plan" | "validate" | "show" | "output" | "version" | "graph" | "providers" | "preview"
        | "synth" | "diff" | "ls" | "list" | "console" | "help" => {
            read(format!("`{name} {sub}` reads"))
        }
        "state" | "workspace" | "stack"
            if matches!(next, "list" | "show" | "ls" | "pull" | "select") =>
        {
            read(format!("`{name} {sub} {next}` reads"))
        }
        "fmt" => write(format!("`{name} fmt` formats files")),
        "init" | "get" => fetched(
            true,
            format!("`{name} {sub}` brings in third-party providers"),
        ),
        "" if is_version(args) => read(format!("`{name} --version`")),
        _ => external(format!("`{name} {sub}` changes real infrastructure")),
    }
}

pub fn aws(args: &[Arg]) -> Inspection {
    let ops = operands(args);
    let service = ops.first().map_or("", |a| a.text.as_str());
    let op = ops.get(1).map_or("", |a| a.text.as_str());
    if service.is_empty() && is_version(args) {
        return read("`aws --version`");
    }
    if service == "configure" {
        let found = if matches!(op, "list" | "get" | "list-profiles" | "export-credentials") {
            read("`aws configure` reads the credentials")
        } else {
            write("`aws configure` stores credentials")
        };
        return sensitive(found, "AWS credentials");
    }
    let secret = matches!(
        op,
        "get-secret-value" | "get-parameter" | "get-parameters" | "get-session-token"
    ) || (service == "sts" && op.starts_with("assume-role"))
        || op == "get-login-password";
    if secret {
        return sensitive(
            read(format!("`aws {service} {op}` reads a secret")),
            "secrets",
        );
    }
    let reads = op.starts_with("describe-")
        || op.starts_with("list-")
        || op.starts_with("get-")
        || op.starts_with("head-")
        || matches!(op, "ls" | "wait" | "help")
        || (service == "sts" && op == "get-caller-identity");
    if reads {
        read(format!("`aws {service} {op}` reads"))
    } else if service == "s3" && op == "rm" {
        shared_destroy(
            Irreversible,
            "`aws s3 rm` deletes objects; only a versioned bucket keeps them",
        )
    } else {
        external(format!("`aws {service} {op}` changes cloud resources"))
    }
}

pub fn cloud(name: &str, args: &[Arg]) -> Inspection {
    let words: Vec<&str> = operands(args).iter().map(|a| a.text.as_str()).collect();
    if words.iter().any(|w| {
        matches!(
            *w,
            "print-access-token" | "print-identity-token" | "get-access-token"
        )
    }) {
        return sensitive(read(format!("`{name}` prints a token")), "cloud tokens");
    }
    let reads = words.iter().any(|w| {
        matches!(
            *w,
            "list"
                | "describe"
                | "show"
                | "get"
                | "get-value"
                | "info"
                | "version"
                | "help"
                | "ls"
                | "status"
                | "logs"
                | "whoami"
        )
    });
    if reads || is_version(args) {
        read(format!("`{name}` reads"))
    } else {
        external(format!("`{name}` changes cloud resources"))
    }
}
