//! Call-time inspection of fetch operations (proposal §4.4, DESIGN.md §2).
//!
//! Axes by where the effect lands (its [`Reach`], RBV-FET-006..011):
//! - a safe method (GET, HEAD, OPTIONS) of loopback: nothing leaves the
//!   machine and nothing foreign comes in → reversible, local, trusted
//!   (auto), but only for a spelling every common URL parser reads as the
//!   same loopback host ([`spelling::plain`]);
//! - a safe method of a public host: nothing leaves but the request, but the
//!   answer is content nobody vouches for → reversible, local, untrusted
//!   (soft-ack);
//! - a safe method of the internal network (private, CGNAT, unique-local,
//!   link-local IPv6, `.internal`/`.local` names): systems that trust the
//!   network position → reversible, shared-remote, untrusted, and it touches
//!   sensitive systems (Rule-of-Two: with the untrusted answer, two of three);
//! - a safe method of the cloud metadata service (169.254.0.0/16,
//!   fd00:ec2::/64, 100.100.100.200, 168.63.129.16,
//!   `metadata.google.internal`…): it hands out the machine's credentials,
//!   and a disclosed credential cannot be taken back → irreversible,
//!   shared-remote, untrusted, sensitive (escalate);
//! - any other method (case-insensitive; unknown methods too) to a
//!   non-loopback host sends data out → irreversible, external, changes state
//!   (escalate); to loopback it changes a local service's state that the
//!   client can neither see nor undo (a task server, the Docker API) →
//!   hard-to-reverse, local (the profile's `hard_to_reverse_local`).
//!
//! The reach is the highest over the WHATWG host and the host an RFC 3986
//! parser (Python, curl) reads, so `http://evil.com\@169.254.169.254/` is
//! the metadata service. Credentials in the userinfo are sensitive data
//! wherever they are sent.
//!
//! Schemes (RBV-FET-005: the carve-out was made for local development
//! servers over HTTP, so only `http` and `https` get it, and no other scheme
//! is ever auto): `ftp` follows the method rules of a non-loopback host
//! wherever it points; `ws`/`wss` open a two-way channel, so they are writes;
//! `file` reads local files outside any workspace (soft-ack, and it counts as
//! touching sensitive data; a `file://host/` share or a write escalates);
//! `data` carries its content inline and has no effect, but is not carved out
//! either (soft-ack); `gopher` sends arbitrary bytes to any port (the classic
//! SSRF vector against local services) and escalates even to loopback;
//! everything else (`javascript`, `mailto`, `blob`, unknown schemes) and
//! unparseable input fail safe to escalation.

mod loopback;
mod reach;
pub mod spelling;
#[cfg(test)]
mod tests;

pub use loopback::{is_loopback, is_loopback_host, text_mentions_loopback};
pub use reach::{reach_of_host, reach_of_text, Reach};

use super::Inspection;
use crate::mutant::Mutant;
use rbv_protocol::{Reversibility, Scope, Trust};
use url::Url;

/// Inspects one fetch: its URL and HTTP method (`GET` when the caller gave none).
pub fn inspect(url: &str, method: &str, mutant: Option<Mutant>) -> Inspection {
    inspect_call(url, method, false, mutant)
}

/// [`inspect`] for a call that also carries a request body: a body sends
/// data whatever the method, so a `GET` with one is no safe method.
pub fn inspect_call(url: &str, method: &str, body: bool, mutant: Option<Mutant>) -> Inspection {
    let parsed = match spelling::read(url) {
        Ok(parsed) => parsed,
        Err(e) => return Inspection::unknown(format!("fetch: `{url}` is not a URL ({e})")),
    };
    let (reach, disagreement) = reach(url, &parsed, mutant);
    let method = method.to_ascii_uppercase();
    let safe_method = matches!(method.as_str(), "GET" | "HEAD" | "OPTIONS");
    // The realistic defect: a client that reads the method's name and
    // never looks at the body it is about to send.
    let body = body && !(safe_method && mutant == Some(Mutant::GetBodyBlind));
    let safe = safe_method && !body;
    let host = parsed.host_str().unwrap_or_default();
    let scheme = parsed.scheme();
    let mut inspection = match scheme {
        "http" | "https" => network(&parsed, &method, safe, reach, mutant),
        "ftp" => network(&parsed, &method, safe, reach.max(Reach::Public), mutant),
        "ws" | "wss" => network(&parsed, &method, false, reach.max(Reach::Public), mutant),
        "file" if !host.is_empty() => Inspection::unknown(format!(
            "fetch: `file://{host}/…` reaches a remote share (credentials may be sent)"
        )),
        "file" if safe => Inspection {
            trust: Trust::Untrusted,
            touches_sensitive: true,
            ..Inspection::read_only(format!(
                "fetch: {method} of a local file ({}) reads outside any workspace; \
                 counted as touching sensitive data",
                parsed.path()
            ))
        },
        "file" => Inspection::unknown(format!(
            "fetch: {method} of a file URL has no defined effect"
        )),
        "data" => Inspection {
            trust: Trust::Untrusted,
            ..Inspection::read_only(
                "fetch: a data URL carries its content inline (no network), but only \
                 http(s) is carved out",
            )
        },
        "gopher" => Inspection::unknown(
            "fetch: gopher sends arbitrary bytes to any port (SSRF), also to loopback",
        ),
        other => Inspection::unknown(format!("fetch: scheme `{other}` has no known effect")),
    };
    inspection.reasons.extend(disagreement);
    if body {
        inspection
            .reasons
            .push(format!("the {method} carries a request body: data is sent"));
    }
    inspection
}

/// Where the fetch lands, and the other parser's reading when it differs
/// from the WHATWG one (for the reasons).
fn reach(url: &str, parsed: &Url, mutant: Option<Mutant>) -> (Reach, Option<String>) {
    let whatwg = parsed
        .host()
        .map_or(Reach::Public, |h| reach_of_host(&h, mutant));
    match mutant {
        Some(Mutant::SubstringLoopback) => {
            let lookalike = text_mentions_loopback(url);
            return (
                if lookalike {
                    Reach::Loopback
                } else {
                    whatwg.max(Reach::Public)
                },
                None,
            );
        }
        Some(Mutant::WhatwgOnlyHost) => return (whatwg, None),
        _ => {}
    }
    // Loopback is carved out only where every parser reads it alike.
    let whatwg = if whatwg == Reach::Loopback && !spelling::plain(url, parsed) {
        Reach::Public
    } else {
        whatwg
    };
    let other = spelling::rfc3986_host(url);
    let other_reach = other
        .as_deref()
        .map_or(Reach::Loopback, |o| reach_of_text(o, mutant));
    let differs = other
        .as_deref()
        .is_some_and(|o| parsed.host_str().is_none_or(|h| !o.eq_ignore_ascii_case(h)));
    let note = differs.then(|| {
        format!(
            "URL parsers disagree on the host: WHATWG reads `{}`, RFC 3986 parsers (Python, curl) `{}`",
            parsed.host_str().unwrap_or_default(),
            other.unwrap_or_default()
        )
    });
    (whatwg.max(other_reach), note)
}

/// The HTTP-like schemes: the effect depends on the method and where it lands.
fn network(
    url: &Url,
    method: &str,
    safe: bool,
    reach: Reach,
    mutant: Option<Mutant>,
) -> Inspection {
    let host = url.host_str().unwrap_or_default();
    // Credentials in the URL are sent with the request: a secret is used,
    // wherever it goes (RBV-FET-006).
    let credentials = mutant != Some(Mutant::UserinfoBlind)
        && (!url.username().is_empty() || url.password().is_some());
    let reach = match reach {
        Reach::Internal | Reach::Metadata if mutant == Some(Mutant::InfrastructureBlind) => {
            Reach::Public
        }
        r => r,
    };
    let mut reasons = vec![match (reach, safe) {
        (Reach::Loopback, true) => {
            format!("fetch: {method} {host} is loopback (carved out: a local server)")
        }
        (Reach::Loopback, false) => format!(
            "fetch: {method} {host} changes the state of a local service the client cannot see or undo"
        ),
        (Reach::Public, true) => format!(
            "fetch: {method} {host} brings in untrusted content; nothing leaves but the request"
        ),
        (r, true) => format!(
            "fetch: {method} {host} reaches {}: it touches sensitive systems",
            r.describe()
        ),
        (r, false) => format!("fetch: {method} {host} sends data to {}", r.describe()),
    }];
    if reach == Reach::Metadata && safe {
        reasons.push(
            "the metadata service hands out this machine's credentials; a disclosed credential cannot be taken back"
                .into(),
        );
    }
    if credentials {
        reasons.push("the URL carries credentials (userinfo): sensitive data".into());
    }
    let sensitive = credentials || reach >= Reach::Internal;
    let (reversibility, scope, trust) = match (reach, safe) {
        (Reach::Loopback, true) => (Reversibility::Reversible, Scope::Local, Trust::Trusted),
        (Reach::Loopback, false) if mutant == Some(Mutant::InfrastructureBlind) => {
            (Reversibility::Reversible, Scope::Local, Trust::Trusted)
        }
        (Reach::Loopback, false) => (Reversibility::HardToReverse, Scope::Local, Trust::Trusted),
        (Reach::Public, true) => (Reversibility::Reversible, Scope::Local, Trust::Untrusted),
        (Reach::Internal, true) => (
            Reversibility::Reversible,
            Scope::SharedRemote,
            Trust::Untrusted,
        ),
        (Reach::Metadata, true) => (
            Reversibility::Irreversible,
            Scope::SharedRemote,
            Trust::Untrusted,
        ),
        // The answer comes back too, and nobody vouches for it.
        (_, false) => (
            Reversibility::Irreversible,
            Scope::External,
            Trust::Untrusted,
        ),
    };
    Inspection {
        reversibility,
        scope,
        trust,
        changes_state: !safe,
        touches_sensitive: sensitive,
        reasons,
    }
}
