//! Programs that talk to other hosts: where their effect lands is decided
//! by the direction of the data and by the host (loopback or not).

use super::argv::any_unresolved;
use super::syntax::Parser;
use super::word::Arg;
use super::{external, fetched, read, sensitive, unknown, write};
use crate::classify::{fetch, Inspection};
use crate::mutant::Mutant;

/// curl options that take a value.
#[rustfmt::skip]
const CURL_VALUE: &[&str] = &[
    "-X", "--request", "-d", "--data", "--data-raw", "--data-binary", "--data-ascii",
    "--data-urlencode", "-F", "--form", "--form-string", "-H", "--header", "-o", "--output",
    "-u", "--user", "-A", "--user-agent", "-e", "--referer", "-b", "--cookie", "-c",
    "--cookie-jar", "-T", "--upload-file", "--json", "-K", "--config", "--url", "-w",
    "--write-out", "-m", "--max-time", "--connect-timeout", "-x", "--proxy", "--retry", "-r",
    "--range", "-E", "--cert", "--key", "--cacert", "-z", "--time-cond", "-y", "-Y",
    "--limit-rate", "--resolve", "--connect-to", "-U", "--proxy-user", "--interface", "-D",
    "--dump-header", "--output-dir", "-Q", "--quote", "--oauth2-bearer", "--max-filesize", "-C",
    "--continue-at", "--variable", "--expand-url", "--preproxy", "--socks4", "--socks4a",
    "--socks5", "--socks5-hostname", "--doh-url", "--dns-servers", "--unix-socket",
    "--abstract-unix-socket",
];

/// curl options whose value is where the connection really goes, whatever
/// the URL's name says: a name mapped to an address (`--resolve
/// host:port:addr[,addr…]`, `--connect-to host:port:host2:port2`) and the
/// proxies the request is sent to.
const CURL_DESTINATION: &[&str] = &[
    "--resolve",
    "--connect-to",
    "-x",
    "--proxy",
    "--preproxy",
    "--socks4",
    "--socks4a",
    "--socks5",
    "--socks5-hostname",
];

#[rustfmt::skip]
const CURL_UPLOAD: &[&str] = &[
    "-d", "--data", "--data-raw", "--data-binary", "--data-ascii", "--data-urlencode", "-F",
    "--form", "--form-string", "-T", "--upload-file", "--json", "-Q", "--quote",
];

#[rustfmt::skip]
const CURL_WRITE: &[&str] = &[
    "-o", "--output", "-O", "--remote-name", "--remote-name-all", "-J", "-D", "--dump-header",
    "-c", "--cookie-jar", "--output-dir",
];

/// `curl`: an upload (data, form, file, a method other than GET/HEAD)
/// reaches the host; a GET brings untrusted content in, unless the host is
/// loopback.
pub fn curl(args: &[Arg], mutant: Option<Mutant>) -> Inspection {
    if any_unresolved(args) {
        return external("`curl` gets arguments known only at run time: it may upload");
    }
    let (options, mut urls) = curl_words(args);
    let query = options.iter().any(|(n, _)| n == "-G" || n == "--get");
    let mut upload = None;
    let mut writes = false;
    let mut reached = Vec::new();
    for (name, value) in &options {
        let name = name.as_str();
        match name {
            "-K" | "--config" => return unknown("`curl -K` reads its options from a file"),
            "--doh-url" | "--dns-servers" => {
                return unknown(format!(
                    "`curl {name}`: a resolver the command names decides where every name goes"
                ))
            }
            _ if CURL_DESTINATION.contains(&name) && mutant == Some(Mutant::ResolveBlind) => {}
            _ if CURL_DESTINATION.contains(&name) => {
                reached.extend(destinations(name, value.as_deref().unwrap_or_default()));
            }
            "--url" => urls.extend(value.clone()),
            "-X" | "--request" => {
                let method = value.clone().unwrap_or_default().to_ascii_uppercase();
                if !matches!(method.as_str(), "GET" | "HEAD" | "OPTIONS") {
                    upload = Some(format!("the method is {method}"));
                }
            }
            // `-G` turns `-d` data into the query string of a GET: words
            // written on the line are the request's own query, but a file's
            // content (`@file`, `--data-urlencode name@file`) leaves in it.
            _ if query && (name.starts_with("--data") || name == "-d") => {
                if let Some(file) = query_file(name, value.as_deref().unwrap_or_default()) {
                    upload = Some(format!(
                        "`{name}` sends the content of `{file}` in the query"
                    ));
                }
            }
            _ if CURL_UPLOAD.contains(&name) => {
                upload = Some(format!("`{name}` sends data"));
            }
            _ => {}
        }
        // curl(1): a file named `-` is standard output for `-o`, `-D` and
        // `-c`: nothing is saved.
        let stdout = value.as_deref() == Some("-")
            && matches!(
                name,
                "-o" | "--output" | "-D" | "--dump-header" | "-c" | "--cookie-jar"
            );
        writes |= CURL_WRITE.contains(&name) && !stdout;
    }
    // Judged as URLs of their own: the request lands there.
    urls.extend(reached.iter().map(|host| format!("http://{host}/")));
    transfer("curl", &urls, upload, writes)
}

/// The file whose content a data option of `curl -G` puts into the query
/// (curl(1): `@file` reads the data from a file, `-` for standard input;
/// `--data-urlencode` reads `@file` and `name@file`, deciding by the first
/// of `@` and `=`, and `--data-raw` takes `@` literally).
fn query_file<'v>(name: &str, value: &'v str) -> Option<&'v str> {
    match name {
        "--data-raw" => None,
        "--data-urlencode" => {
            let at = value.find(['@', '='])?;
            value[at..].strip_prefix('@')
        }
        _ => value.strip_prefix('@'),
    }
}

/// The hosts a destination option sends the connection to, written as a
/// URL authority (IPv6 bracketed).
fn destinations(name: &str, value: &str) -> Vec<String> {
    let bracket = |h: &str| {
        if h.contains(':') && !h.starts_with('[') {
            format!("[{h}]")
        } else {
            h.to_owned()
        }
    };
    match name {
        // `[+|-]host:port:addr[,addr]…`; an address may be a bracketed IPv6.
        "--resolve" => value
            .splitn(3, ':')
            .nth(2)
            .map(|addrs| {
                addrs
                    .split(',')
                    .map(|a| bracket(a.trim_start_matches('[').trim_end_matches(']')))
                    .collect()
            })
            .unwrap_or_default(),
        // `host1:port1:host2:port2`: the connection goes to host2 (empty:
        // host1 itself, already judged as the URL's host).
        "--connect-to" => {
            let target = value.splitn(3, ':').nth(2).unwrap_or_default();
            let host = match target.strip_prefix('[') {
                Some(v6) => v6.split(']').next().map(bracket),
                None => target.rsplit_once(':').map(|(h, _)| h.to_owned()),
            };
            host.filter(|h| !h.is_empty()).into_iter().collect()
        }
        // A proxy is `[scheme://][user@]host[:port]`: the request is sent to
        // its host.
        _ => {
            let rest = value.split_once("://").map_or(value, |(_, r)| r);
            let authority = rest.split('/').next().unwrap_or_default();
            vec![authority.to_owned()]
        }
    }
}

/// wget's short options that take a value (the rest of the cluster or the
/// next word): `-qO-` is `-q -O -`, `-nv` is `-n v`.
const WGET_SHORT_VALUE: &str = "aABDeIilnOoPQRtTUwXY";

/// wget's long options that take a value as the next word when no `=` is
/// given (the ones whose value could otherwise be read as a URL).
#[rustfmt::skip]
const WGET_LONG_VALUE: &[&str] = &[
    "--output-document", "--output-file", "--append-output", "--directory-prefix",
    "--method", "--header", "--user", "--password", "--http-user", "--http-password",
    "--input-file", "--post-data", "--post-file", "--body-data", "--body-file",
    "--user-agent", "--referer", "--tries", "--timeout", "--wait", "--quota", "--level",
    "--accept", "--reject", "--domains", "--base", "--load-cookies", "--save-cookies",
    "--execute", "--proxy-user", "--proxy-password", "--limit-rate", "--bind-address",
    "--ca-certificate", "--certificate", "--private-key", "--config",
];

/// wget's long options without a value that the inspector reads, so that
/// an abbreviation is told apart from them.
const WGET_FLAGS: &[&str] = &["--spider", "--quiet", "--verbose", "--no-verbose"];

/// `wget`: downloads to a file by default.
pub fn wget(args: &[Arg]) -> Inspection {
    if any_unresolved(args) {
        return external("`wget` gets arguments known only at run time: it may upload");
    }
    let (options, urls) = wget_words(args);
    let mut upload = None;
    let mut to_stdout = false;
    let mut cookies = false;
    for (name, value) in &options {
        match name.as_str() {
            // `-e robots=off` only stops reading robots.txt; any other
            // command may set post data or an output file.
            "-e" | "--execute"
                if value
                    .as_deref()
                    .is_some_and(|v| v.to_ascii_lowercase().replace(' ', "") == "robots=off") => {}
            "-e" | "--execute" | "--config" => {
                return unknown(format!(
                    "`wget {name}` runs settings the inspector does not read"
                ))
            }
            "-i" | "--input-file" => {
                // The URLs may be any host, the metadata service included.
                return unknown(
                    "`wget -i` fetches URLs listed in a file the inspector does not read",
                );
            }
            "--post-data" | "--post-file" | "--body-data" | "--body-file" => {
                upload = Some(format!("`{name}` sends data"));
            }
            "--method" => {
                let method = value.clone().unwrap_or_default();
                if !matches!(method.to_ascii_uppercase().as_str(), "GET" | "HEAD") {
                    upload = Some(format!("the method is {method}"));
                }
            }
            "-O" | "--output-document" => to_stdout = value.as_deref() == Some("-"),
            "--spider" => to_stdout = true,
            "--save-cookies" => cookies = true,
            _ => {}
        }
    }
    transfer("wget", &urls, upload, !to_stdout || cookies)
}

/// getopt's reading of a command line: every option as (name, value) —
/// long options with `=` or, when `takes_value(name)`, the next word;
/// short clusters (`-sSLo out`, `-qO-`) letter by letter, where a
/// value-taking letter takes the rest of the cluster or the next word —
/// and the other words (the URLs).
fn split_options(
    program: &str,
    args: &[Arg],
    known: &[&[&str]],
    takes_value: impl Fn(&str) -> bool,
) -> Words {
    let parser = Parser::of(program);
    // A long option in a spelling the program's parser accepts (`--data-b`,
    // `--post-d=x`) is the one it spells when that is the only one among
    // the options read here, or the one spelled in full; a word no option
    // claims stays as typed.
    let canonical = |typed: &str| -> (String, Option<String>) {
        let hits: std::collections::BTreeMap<&str, Option<&str>> = known
            .iter()
            .flat_map(|list| list.iter().copied())
            .filter(|l| l.starts_with("--"))
            .filter_map(|l| Some((l, parser.long(typed, l)?)))
            .collect();
        let name = typed.split_once('=').map_or(typed, |(n, _)| n);
        let exact = hits.iter().find(|(l, _)| name == **l);
        match exact.or_else(|| hits.iter().next().filter(|_| hits.len() == 1)) {
            Some((only, value)) => ((*only).to_owned(), value.map(str::to_owned)),
            None => (typed.to_owned(), None),
        }
    };
    let mut options = Vec::new();
    let mut words = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        i += 1;
        if t.starts_with("--") {
            let (name, inline) = canonical(t);
            let value = if inline.is_none() && takes_value(&name) {
                i += 1;
                args.get(i - 1).map(|v| v.text.clone())
            } else {
                inline
            };
            options.push((name, value));
        } else if let Some(cluster) = t.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (k, c) in cluster.char_indices() {
                let name = format!("-{c}");
                if takes_value(&name) {
                    let rest = &cluster[k + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        i += 1;
                        args.get(i - 1).map(|v| v.text.clone())
                    } else {
                        Some(rest.to_owned())
                    };
                    options.push((name, value));
                    break;
                }
                options.push((name, None));
            }
        } else {
            words.push(t.to_owned());
        }
    }
    (options, words)
}

/// Judges each URL as the fetch capability does (RBV-SH-016): the loopback
/// carve-out with every parser's reading, the internal network and the
/// metadata service, credentials in the URL, and schemes other than http(s).
/// One rule for both paths: an agent refused a fetch of the metadata
/// service must not get it from `curl` unseen. What curl and wget add on
/// top is the file they may save the answer to.
pub(super) fn transfer(
    who: &str,
    urls: &[String],
    upload: Option<String>,
    writes: bool,
) -> Inspection {
    let method = if upload.is_some() { "POST" } else { "GET" };
    let mut found = urls.iter().map(|url| {
        // Both programs read a URL without a scheme as http.
        let url = if url.contains("://") {
            url.clone()
        } else {
            format!("http://{url}")
        };
        let mut seen = fetch::inspect(&url, method, None);
        for reason in &mut seen.reasons {
            *reason = format!("`{who}`: {}", reason.trim_start_matches("fetch: "));
        }
        seen
    });
    let Some(first) = found.next() else {
        // No URL the inspector could find (options only): what it fetches
        // is unknown, so it is not carved out.
        return match upload {
            Some(why) => external(format!("`{who}` sends data to another host ({why})")),
            None => fetched(
                writes,
                format!("`{who}` fetches content nobody vouches for"),
            ),
        };
    };
    let mut seen = found.fold(first, Inspection::join);
    if let Some(why) = upload {
        seen.reasons.push(format!("`{who}` sends data ({why})"));
    }
    if writes {
        seen = seen.join(write(format!("`{who}` saves the response to a file")));
    }
    seen
}

/// `scp`, `rsync`, `sftp`: a remote destination is external; a remote
/// source brings untrusted content in.
pub fn copy(name: &str, args: &[Arg]) -> Inspection {
    let ops: Vec<&Arg> = args.iter().filter(|a| !a.text.starts_with('-')).collect();
    if name == "sftp" || any_unresolved(args) {
        return external(format!("`{name}` transfers files to or from another host"));
    }
    let remote = |a: &Arg| is_remote_path(&a.text);
    match ops.split_last() {
        Some((dest, _)) if remote(dest) => {
            external(format!("`{name}` copies to the remote `{}`", dest.text))
        }
        Some((_, sources)) if sources.iter().any(|s| remote(s)) => {
            fetched(true, format!("`{name}` copies from another host"))
        }
        _ if args
            .iter()
            .any(|a| a.text.starts_with("--delete") || a.text.starts_with("--remove-source")) =>
        {
            super::destroy(
                rbv_protocol::Reversibility::Irreversible,
                format!("`{name} --delete` removes files from the destination"),
            )
        }
        _ => write(format!("`{name}` copies local files")),
    }
}

/// `host:path`, `user@host:path`, `rsync://…`, `host::module`.
fn is_remote_path(text: &str) -> bool {
    if text.contains("://") {
        return true;
    }
    match text.find(':') {
        Some(colon) => {
            let before = &text[..colon];
            !before.is_empty() && !before.contains('/')
        }
        None => false,
    }
}

/// The files `curl` or `wget` writes what it downloads into (the body,
/// headers, cookies, a log), each judged by where it lands like a
/// redirection's file: a download into `~/.bashrc` is persistence, not a
/// workspace edit.
pub fn saved_files(name: &str, args: &[Arg]) -> Vec<Arg> {
    let (options, writes): (_, &[&str]) = match name {
        // rsync(1) and scp(1): `SRC... DEST`, the last operand is written;
        // a local destination is a write there (`rsync -a build/
        // /etc/nginx/`), a remote one is egress (`copy`).
        "scp" | "rsync" => {
            let ops: Vec<&Arg> = args.iter().filter(|a| !a.text.starts_with('-')).collect();
            return match ops.split_last() {
                Some((dest, sources)) if !sources.is_empty() && !is_remote_path(&dest.text) => {
                    vec![(*dest).clone()]
                }
                _ => Vec::new(),
            };
        }
        "curl" => (
            curl_words(args).0,
            &[
                "-o",
                "--output",
                "-D",
                "--dump-header",
                "-c",
                "--cookie-jar",
            ],
        ),
        "wget" => (
            wget_words(args).0,
            &[
                "-O",
                "--output-document",
                "-o",
                "--output-file",
                "-a",
                "--append-output",
                "--save-cookies",
            ],
        ),
        _ => return Vec::new(),
    };
    options
        .into_iter()
        .filter(|(option, _)| writes.contains(&option.as_str()))
        .filter_map(|(_, value)| value)
        .filter(|file| file != "-")
        .map(|text| Arg {
            text,
            resolved: true,
            pattern: false,
        })
        .collect()
}

/// curl's options (each with its value) and its other words, the URLs.
fn curl_words(args: &[Arg]) -> Words {
    let known: &[&[&str]] = &[
        CURL_VALUE,
        CURL_UPLOAD,
        CURL_WRITE,
        &["--get", "--remote-name"],
    ];
    split_options("curl", args, known, |name| CURL_VALUE.contains(&name))
}

/// wget's options (each with its value) and its other words, the URLs.
fn wget_words(args: &[Arg]) -> Words {
    let known: &[&[&str]] = &[WGET_LONG_VALUE, WGET_FLAGS];
    split_options("wget", args, known, |name| {
        WGET_LONG_VALUE.contains(&name)
            || name
                .strip_prefix('-')
                .filter(|c| c.len() == 1)
                .is_some_and(|c| WGET_SHORT_VALUE.contains(c))
    })
}

type Words = (Vec<(String, Option<String>)>, Vec<String>);

/// Programs whose only purpose is to reach other hosts or people.
pub fn classify(name: &str, args: &[Arg], mutant: Option<Mutant>) -> Option<Inspection> {
    let found = match name {
        "curl" => curl(args, mutant),
        "wget" => wget(args),
        "scp" | "rsync" | "sftp" => copy(name, args),
        "ssh" | "mosh" | "autossh" if args.iter().all(|a| a.text == "-V") && !args.is_empty() => {
            read(format!("`{name} -V`"))
        }
        "ssh" | "mosh" | "autossh" | "telnet" | "nc" | "ncat" | "netcat" | "socat" | "ftp"
        | "lftp" | "ssh-copy-id" => external(format!("`{name}` reaches another host")),
        "mail" | "mailx" | "sendmail" | "mutt" | "msmtp" | "swaks" => {
            external(format!("`{name}` sends mail to people"))
        }
        "ssh-keygen" | "ssh-add" | "ssh-agent" | "gpg" | "pass" | "security" | "op" | "vault" => {
            sensitive(
                write(format!("`{name}` manages keys or secrets")),
                "keys and secrets",
            )
        }
        _ => return None,
    };
    Some(found)
}
