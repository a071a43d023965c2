//! URL parser differentials. The inspector reads a URL
//! with a WHATWG parser, but the tool that fetches it may be curl, Python
//! (urllib, requests) or Go's net/url, and they do not always find the same
//! host: WHATWG ends the authority at a backslash, RFC 3986 parsers at the
//! last `@` before the first `/`, `?` or `#` (`http://127.0.0.1\@evil.com/`
//! is loopback to one and evil.com to the other); WHATWG strips tabs and
//! newlines and decodes percent-encoded hosts, reads `2130706433`, `0x7f.1`
//! and `127.000.000.001` as 127.0.0.1 (Go reads names), maps fullwidth
//! digits and other Unicode through IDNA (Go and curl keep them), and takes
//! `http:/host` and `http:\\host` as `http://host` (Python and Go see no
//! host). The labels in `corpora/real-world/url-parsers.jsonl` record each
//! parser's reading.
//!
//! So the carve-out holds only for a [`plain`] spelling — one that every one
//! of those parsers reads as the same host — and the danger of a URL is the
//! highest over the WHATWG host and the host an RFC 3986 parser finds
//! ([`rfc3986_host`]).

use std::net::{Ipv4Addr, Ipv6Addr};
use url::{Host, Url};

/// The URL as the inspector reads it: the WHATWG URL Standard's basic URL
/// parser with no base (§4.4), as the `url` crate implements it. Every
/// other reading (the grammar coverage of the cases, the other parsers'
/// host) starts from this one.
pub fn read(text: &str) -> Result<Url, url::ParseError> {
    Url::parse(text)
}

/// WHATWG removes these from the ends of the input, and tabs and newlines
/// anywhere; RFC 3986 parsers keep or reject them.
fn is_c0_or_space(c: char) -> bool {
    c <= ' '
}

/// The scheme and what follows its `:`, when the text starts with one.
fn split_scheme(text: &str) -> Option<(&str, &str)> {
    let colon = text.find(':')?;
    let scheme = &text[..colon];
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then(|| (scheme, &text[colon + 1..]))
}

/// The authority as RFC 3986 delimits it: after `//`, up to the first `/`,
/// `?` or `#` (a backslash is an ordinary character there).
fn rfc3986_authority(text: &str) -> Option<&str> {
    let (_, rest) = split_scheme(text)?;
    let rest = rest.strip_prefix("//")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The host of an authority: after the last `@`, without the port.
fn host_of_authority(authority: &str) -> &str {
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if hostport.starts_with('[') {
        hostport.find(']').map_or(hostport, |end| &hostport[..=end])
    } else {
        hostport.split_once(':').map_or(hostport, |(h, _)| h)
    }
}

/// The host text that Python's urllib, urllib3 (requests) and libcurl find
/// in `text`, the way they read it: tabs and newlines removed (Python does;
/// curl and Go refuse the URL), the authority ended by `/`, `?` or `#` only,
/// the host after the last `@`. `None` when the text has no `//` authority.
pub fn rfc3986_host(text: &str) -> Option<String> {
    let cleaned: String = text
        .trim_matches(is_c0_or_space)
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let host = host_of_authority(rfc3986_authority(&cleaned)?);
    (!host.is_empty()).then(|| host.to_owned())
}

/// Whether every parser reads the host of `text` as the WHATWG parser did
/// (`parsed`): the text has no control characters, spaces or tabs, the
/// scheme is followed by exactly `//`, the authority is ASCII without `\`
/// and with at most one `@`, the host and port have no `%`, the port is
/// digits, and the host is
/// written as WHATWG serializes it — an IPv4 address as a canonical dotted
/// quad, an IPv6 literal without a zone, a name in ASCII letters, digits,
/// `-` and `.`.
pub fn plain(text: &str, parsed: &Url) -> bool {
    if text.chars().any(|c| c.is_control() || c == ' ') {
        return false;
    }
    let Some(authority) = rfc3986_authority(text) else {
        return false;
    };
    if authority.is_empty()
        || !authority.is_ascii()
        || authority.contains('\\')
        || authority.matches('@').count() > 1
    {
        return false;
    }
    let host = host_of_authority(authority);
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    // Percent-encoding in the userinfo is read alike; in the host it is not.
    if hostport.contains('%') {
        return false;
    }
    let port = &hostport[host.len()..];
    if let Some(port) = port.strip_prefix(':') {
        if !port.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
    } else if !port.is_empty() {
        return false;
    }
    match parsed.host() {
        Some(Host::Ipv4(ip)) => host.parse::<Ipv4Addr>() == Ok(ip) && host == ip.to_string(),
        Some(Host::Ipv6(ip)) => host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .is_some_and(|h| h.parse::<Ipv6Addr>() == Ok(ip)),
        Some(Host::Domain(name)) => {
            host.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
                && host.eq_ignore_ascii_case(name)
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_plain(text: &str) -> bool {
        plain(
            text,
            &Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}")),
        )
    }

    #[test]
    fn spellings_every_parser_reads_alike() {
        for text in [
            "http://localhost/",
            "http://LOCALHOST:8080/x",
            "https://localhost:8443/api/v1/items",
            "http://localhost./",
            "http://api.localhost/",
            "http://127.0.0.1:8080/healthz",
            "http://127.255.255.254/metrics",
            "http://[::1]:3000/api",
            "http://[0:0:0:0:0:0:0:1]/",
            "http://[::ffff:127.0.0.1]/",
            "HTTP://localhost/",
            "http://user:pass@localhost/",
            "http://us%40er:p%3Ass@127.0.0.1/",
            "http://localhost:/",
            "http://localhost/a\\b@evil.com",
            "http://localhost?x=1",
            "http://localhost#frag",
        ] {
            assert!(is_plain(text), "{text} should be plain");
        }
    }

    #[test]
    fn spellings_some_parser_reads_otherwise() {
        for text in [
            "http://127.1/",
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0177.0.0.1/",
            "http://127.000.000.001/",
            "http://127.0.0.1./",
            "http://%31%32%37.0.0.1/",
            "http://local%68ost/",
            "http://１２７.0.0.1/",
            "http://ⓛocalhost/",
            "http:\\\\127.0.0.1\\status",
            "http:/localhost/",
            "http:localhost/",
            "http:///localhost/",
            "http://127.0.0.1\\@evil.com/",
            "http://127.0.0.1:80\\@evil.com/",
            "http://a@b@localhost/",
            "http://local\thost/",
            "http://localhost\n/",
            " http://localhost/",
            "http://localhost/ ",
            "http://localhost:0x50/",
        ] {
            let plain = Url::parse(text).is_ok_and(|u| plain(text, &u));
            assert!(!plain, "{text:?} should not be plain");
        }
    }

    #[test]
    fn the_rfc3986_reading() {
        let host = |t: &str| rfc3986_host(t);
        assert_eq!(
            host("http://evil.com\\@127.0.0.1/").as_deref(),
            Some("127.0.0.1")
        );
        assert_eq!(
            host("http://127.0.0.1\\@evil.com/").as_deref(),
            Some("evil.com")
        );
        assert_eq!(host("http://a:b@[::1]:80/").as_deref(), Some("[::1]"));
        assert_eq!(
            host("http://evil.com#@127.0.0.1").as_deref(),
            Some("evil.com")
        );
        assert_eq!(host("http://lo\tcal\nhost/").as_deref(), Some("localhost"));
        assert_eq!(host("http:\\\\127.0.0.1\\"), None);
        assert_eq!(host("http:/localhost/"), None);
        assert_eq!(host("not a url"), None);
    }
}
