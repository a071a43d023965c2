//! The fetch grammar past `url.rs`'s http(s) host lists: schemes other
//! than http and https, URLs the WHATWG parser refuses, the methods
//! besides GET and POST in any letter case, and a body sent with a safe
//! method. Each label is the catalogue's: another scheme is never auto
//! and a refused URL escalates (RBV-FET-005), a safe method is judged as
//! a GET (RBV-FET-001, RBV-FET-003), a writing method to any host but an
//! agreed loopback escalates (RBV-FET-004), and a body is data sent
//! whatever the method (RBV-FET-013).

use super::url::{self, REMOTE_WRITE};
use super::{Labeled, Truth};
use arbitrary::{Result, Unstructured};
use rbv_protocol::Band;

/// Schemes other than http(s), special (ftp, ws, wss, file) and not
/// (gopher, ssh, an invented one), in either case: WHATWG folds a
/// scheme to lower case.
const SCHEMES: &[&str] = &["ftp", "ws", "wss", "gopher", "ssh", "x-app", "FTP", "Wss"];

/// URLs with no network host: never carved out as loopback, never auto.
const HOSTLESS: &[&str] = &[
    "file:///etc/passwd",
    "file:///home/user/.ssh/id_ed25519",
    "FILE:///tmp/report.txt",
    "data:text/plain,hello",
    "javascript:alert(1)",
    "mailto:ops@example.com",
    "blob:https://example.com/2f4c",
];

/// Authorities the WHATWG URL parser refuses (a forbidden host code
/// point, a port past 65535, an IPv4 address out of range or with five
/// parts, an empty host, a label that is not valid punycode). Each is
/// checked against the `url` crate by a test.
pub const REFUSED_AUTHORITIES: &[&str] = &[
    "exa mple.com",
    "a<b.example",
    "example.com:99999",
    "example.com:8o",
    "256.256.256.256",
    "1.2.3.4.5",
    "127.0.0.0x100",
    ":8080",
    "user@",
    "xn--a.example",
    "[::1",
    "[127.0.0.1]",
];

/// The methods WHATWG fetch treats as safe (GET besides), and GET itself,
/// in the spellings fetch normalizes to upper case.
const SAFE_METHODS: &[&str] = &["HEAD", "OPTIONS", "head", "Options", "get", "Get"];

/// Writing methods in other letter cases: fetch normalizes `post`, `put`
/// and `delete`; `patch` stays as written, a method that is not safe
/// either way.
const WRITE_METHODS_OTHER_CASE: &[&str] = &["post", "Put", "delete", "patch", "Patch"];

const BODIES: &[&str] = &["{\"q\":\"customers\"}", "token=abc", "x"];

/// One fetch request and its label.
pub struct Request {
    pub labeled: Labeled,
    pub method: &'static str,
    pub body: Option<&'static str>,
    /// The requirement a finding on it cites.
    pub requirement: &'static str,
}

pub fn request(u: &mut Unstructured) -> Result<Request> {
    Ok(match u.int_in_range(0..=4)? {
        0 => {
            let scheme = *u.choose(SCHEMES)?;
            let host = url::any_host(u)?;
            labeled_get(
                format!("{scheme}://{host}/x"),
                Truth::AtLeast(Band::SoftAck),
                "other-scheme",
                "RBV-FET-005",
            )
        }
        1 => labeled_get(
            (*u.choose(HOSTLESS)?).to_owned(),
            Truth::AtLeast(Band::SoftAck),
            "other-scheme",
            "RBV-FET-005",
        ),
        2 => {
            let scheme = *u.choose(&["http", "https"])?;
            let authority = *u.choose(REFUSED_AUTHORITIES)?;
            labeled_get(
                format!("{scheme}://{authority}/"),
                Truth::Dangerous,
                "refused-url",
                "RBV-FET-005",
            )
        }
        3 => {
            let mut labeled = url::input(u)?;
            if labeled.families.contains(&REMOTE_WRITE) {
                // Not an agreed loopback: a writing method escalates.
                labeled.families.push("method-case");
                Request {
                    labeled,
                    method: u.choose(WRITE_METHODS_OTHER_CASE)?,
                    body: None,
                    requirement: "RBV-FET-004",
                }
            } else {
                // A safe method is a GET: the URL's label holds.
                labeled.families.push("safe-method");
                let requirement = if labeled.truth == Truth::Safe(Band::Auto) {
                    "RBV-FET-001"
                } else {
                    "RBV-FET-003"
                };
                Request {
                    labeled,
                    method: u.choose(SAFE_METHODS)?,
                    body: None,
                    requirement,
                }
            }
        }
        _ => {
            let mut labeled = url::input(u)?;
            labeled.families.retain(|f| *f != REMOTE_WRITE);
            labeled.families.push("body-with-safe-method");
            // Data sent: to a local service at least a prompt (its band
            // is the profile's hard_to_reverse_local), anywhere else
            // escalate.
            labeled.truth = if labeled.truth == Truth::Safe(Band::Auto) {
                Truth::AtLeast(Band::SoftAck)
            } else {
                Truth::Dangerous
            };
            Request {
                labeled,
                method: u.choose(&["GET", "HEAD", "OPTIONS"])?,
                body: Some(u.choose(BODIES)?),
                requirement: "RBV-FET-013",
            }
        }
    })
}

fn labeled_get(
    text: String,
    truth: Truth,
    family: &'static str,
    requirement: &'static str,
) -> Request {
    Request {
        labeled: Labeled {
            text,
            truth,
            families: vec![family],
        },
        method: "GET",
        body: None,
        requirement,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refused_authority_is_refused_by_the_whatwg_parser() {
        for authority in REFUSED_AUTHORITIES {
            for scheme in ["http", "https"] {
                let text = format!("{scheme}://{authority}/");
                assert!(::url::Url::parse(&text).is_err(), "{text} parses");
            }
        }
    }

    #[test]
    fn every_form_is_built() {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..2000u64 {
            let bytes = crate::fuzz::rng::SplitMix64::new(seed).bytes(1 << 12);
            if let Ok(r) = request(&mut Unstructured::new(&bytes)) {
                seen.extend(r.labeled.families);
                if r.body.is_some() {
                    assert_ne!(r.labeled.truth, Truth::Safe(Band::Auto));
                }
            }
        }
        for family in [
            "other-scheme",
            "refused-url",
            "safe-method",
            "method-case",
            "body-with-safe-method",
        ] {
            assert!(seen.contains(family), "{family} never built: {seen:?}");
        }
    }
}
