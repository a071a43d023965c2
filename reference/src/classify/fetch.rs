//! Call-time inspection of fetch operations (proposal §4.4, DESIGN.md §2).
//!
//! Axes by where the effect lands:
//! - a safe method (GET, HEAD, OPTIONS) of a loopback URL: nothing leaves the
//!   machine and nothing foreign comes in → reversible, local, trusted (auto);
//! - a safe method of any other host: nothing leaves but the request, but the
//!   answer is content nobody vouches for → reversible, local, untrusted
//!   (soft-ack);
//! - any other method (case-insensitive; unknown methods too) to a
//!   non-loopback host sends data out → irreversible, external, changes state
//!   (escalate);
//! - any method to loopback is carved out (a local dev server): reversible,
//!   local, trusted, but it still counts as a state change for Rule-of-Two,
//!   so after untrusted content it escalates.
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
#[cfg(test)]
mod tests;

pub use loopback::{is_loopback, is_loopback_host, text_mentions_loopback};

use super::Inspection;
use crate::mutant::Mutant;
use rbv_protocol::{Reversibility, Scope, Trust};
use url::Url;

/// Inspects one fetch: its URL and HTTP method (`GET` when the caller gave none).
pub fn inspect(url: &str, method: &str, mutant: Option<Mutant>) -> Inspection {
    let parsed = match Url::parse(url) {
        Ok(parsed) => parsed,
        Err(e) => return Inspection::unknown(format!("fetch: `{url}` is not a URL ({e})")),
    };
    let loopback = if mutant == Some(Mutant::SubstringLoopback) {
        text_mentions_loopback(url)
    } else {
        is_loopback(&parsed)
    };
    let method = method.to_ascii_uppercase();
    let safe = matches!(method.as_str(), "GET" | "HEAD" | "OPTIONS");
    let host = parsed.host_str().unwrap_or_default();
    let scheme = parsed.scheme();
    match scheme {
        "http" | "https" => network(&parsed, &method, safe, loopback),
        "ftp" => network(&parsed, &method, safe, false),
        "ws" | "wss" => network(&parsed, &method, false, false),
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
    }
}

/// The HTTP-like schemes: the effect depends on the method and the host.
fn network(url: &Url, method: &str, safe: bool, loopback: bool) -> Inspection {
    let host = url.host_str().unwrap_or_default();
    // Credentials in the URL are sent with the request: a secret leaves.
    let sends_credentials = !url.username().is_empty() || url.password().is_some();
    if loopback {
        return Inspection {
            changes_state: !safe,
            ..Inspection::read_only(format!(
                "fetch: {method} {host} is loopback (carved out: a local server)"
            ))
        };
    }
    if safe {
        return Inspection {
            reversibility: Reversibility::Reversible,
            scope: Scope::Local,
            trust: Trust::Untrusted,
            changes_state: false,
            touches_sensitive: sends_credentials,
            reasons: vec![format!(
                "fetch: {method} {host} brings in untrusted content; nothing leaves but the request"
            )],
        };
    }
    Inspection {
        reversibility: Reversibility::Irreversible,
        scope: Scope::External,
        // The answer comes back too, and nobody vouches for it.
        trust: Trust::Untrusted,
        changes_state: true,
        touches_sensitive: sends_credentials,
        reasons: vec![format!(
            "fetch: {method} {host} sends data to a non-loopback host"
        )],
    }
}
