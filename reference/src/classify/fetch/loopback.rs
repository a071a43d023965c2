//! The loopback carve-out (proposal §4.4: loopback false positives were 46%
//! of a fetch gate's log until they were carved out). The decision is made on
//! the host that a WHATWG parser produced, never on the URL's text: the text
//! of `http://localhost@evil.com` or `http://evil.com/?127.0.0.1` names
//! loopback, its host does not; the text of `http://2130706433/` does not,
//! its host (127.0.0.1) does.

use std::net::{Ipv4Addr, Ipv6Addr};
use url::{Host, Url};

/// Whether a parsed URL's host is the local machine: 127.0.0.0/8, `::1`, an
/// IPv4-mapped `::ffff:127.x.y.z`, `localhost` or a name under `.localhost`
/// (RFC 6761 §6.3), each also with one trailing dot (the fully qualified
/// spelling of the same name). A URL without a host is not loopback.
///
/// Not loopback: `0.0.0.0` and `::` (the unspecified address: some stacks
/// route it to the local machine, but it names no host, and treating it as
/// one is how SSRF filters are bypassed — it stays on the safe side),
/// IPv4-compatible `::127.0.0.1` (deprecated, not routed to loopback),
/// `localhost.evil.com`, `127.0.0.1.nip.io` (names that a public resolver
/// may point anywhere).
pub fn is_loopback(url: &Url) -> bool {
    url.host().is_some_and(|host| is_loopback_host(&host))
}

/// [`is_loopback`] for a host alone.
pub fn is_loopback_host(host: &Host<&str>) -> bool {
    match host {
        Host::Ipv4(ip) => ip.is_loopback(),
        Host::Ipv6(ip) => ipv6_is_loopback(ip),
        Host::Domain(name) => domain_is_loopback(name),
    }
}

fn ipv6_is_loopback(ip: &Ipv6Addr) -> bool {
    ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
}

/// Special schemes (http, https, ws, wss, ftp, file) hand over a lowercased,
/// IDNA-mapped domain, with every IPv4 spelling already turned into
/// `Host::Ipv4`. Other schemes keep an opaque host as written, so the name is
/// compared without regard to case, and a dotted-quad opaque host is read as
/// the address it spells (what a client connecting to it would do).
fn domain_is_loopback(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    if let Ok(ip) = name.parse::<Ipv4Addr>() {
        return ip.is_loopback();
    }
    let name = name.strip_suffix('.').unwrap_or(&name);
    name == "localhost"
        || name
            .strip_suffix(".localhost")
            .is_some_and(|label| !label.is_empty() && !label.ends_with('.'))
}

/// The defect of the `substring-loopback` mutant: loopback whenever the
/// URL's text mentions a loopback name anywhere.
pub fn text_mentions_loopback(url: &str) -> bool {
    let url = url.to_ascii_lowercase();
    ["localhost", "127.0.0.1", "::1"]
        .iter()
        .any(|needle| url.contains(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loopback(input: &str) -> bool {
        is_loopback(&Url::parse(input).unwrap_or_else(|e| panic!("{input}: {e}")))
    }

    #[test]
    fn every_spelling_of_127_is_loopback() {
        for input in [
            "http://127.0.0.1/",
            "http://127.1/",
            "http://127.0.1/",
            "http://127.255.255.254:8080/x",
            "http://2130706433/",
            "http://0177.0.0.1/",
            "http://0x7f.1/",
            "http://0x7F000001/",
            "http://127.0.0.1./",
            "https://127.000.000.001/",
            "ws://127.0.0.1:9000/socket",
        ] {
            assert!(loopback(input), "{input} should be loopback");
        }
    }

    #[test]
    fn ipv6_loopback_and_mapped_ipv4() {
        for input in [
            "http://[::1]/",
            "http://[0:0:0:0:0:0:0:1]:3000/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[::ffff:127.9.8.7]/",
        ] {
            assert!(loopback(input), "{input} should be loopback");
        }
        for input in [
            "http://[::]/",
            "http://[::127.0.0.1]/",
            "http://[::ffff:10.0.0.1]/",
        ] {
            assert!(!loopback(input), "{input} should not be loopback");
        }
    }

    #[test]
    fn localhost_names() {
        for input in [
            "http://localhost/",
            "http://LOCALHOST:8080/",
            "http://LocalHost./",
            "http://api.localhost/",
            "http://a.b.localhost./",
            "ldap://LOCALHOST:389/x",
            "foo://127.0.0.1/x",
        ] {
            assert!(loopback(input), "{input} should be loopback");
        }
    }

    #[test]
    fn lookalikes_are_not_loopback() {
        for input in [
            "http://0.0.0.0/",
            "http://0/",
            "http://localhost.evil.com/",
            "http://127.0.0.1.nip.io/",
            "http://localhost@evil.com/",
            "http://127.0.0.1@evil.com/",
            "http://evil.com/?127.0.0.1",
            "http://evil.com/localhost",
            "http://evil.com#@127.0.0.1",
            "http://evil.com\\@127.0.0.1/",
            "http://notlocalhost/",
            "http://localhost../",
            "http://.localhost/",
            "http://128.0.0.1/",
            "file:///etc/passwd",
            "data:text/plain,localhost",
        ] {
            assert!(!loopback(input), "{input} should not be loopback");
        }
    }

    #[test]
    fn the_mutant_reads_text() {
        assert!(text_mentions_loopback("http://localhost.evil.com/"));
        assert!(text_mentions_loopback("http://evil.com/?127.0.0.1"));
        assert!(!text_mentions_loopback("http://2130706433/"));
    }
}
