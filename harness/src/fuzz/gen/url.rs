//! URLs for the fetch inspector: loopback hosts in the spellings every URL
//! parser reads alike (carved out) and in those some parser reads otherwise
//! (not carved out), hosts dressed to look loopback to a substring test,
//! the machine's own infrastructure (cloud metadata in every spelling, the
//! internal network), and the components where parsers disagree: userinfo,
//! ports, IPv6 zone ids, percent-encoding, tabs, backslashes before `@`,
//! and the slashes after the scheme (RBV-FET-001..011).

use super::{corpus, Labeled, Truth};
use arbitrary::{Result, Unstructured};
use rbv_protocol::Band;

/// The families whose URLs some parser reads otherwise than WHATWG does
/// (findings on them cite RBV-FET-010).
pub const PARSER_FAMILIES: &[&str] = &[
    "loopback-unagreed",
    "single-slash",
    "backslashes",
    "percent-encoded-host",
    "tab-in-host",
    "zone-id",
    "backslash-before-at",
];

/// Where a host lands, as the generator knows it by construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Loopback, written so that WHATWG, curl, Python and Go read it alike.
    Loopback,
    /// Loopback to WHATWG, but another parser reads a name or another host.
    LoopbackUnagreed,
    /// An ordinary public host (or a name nobody reserved).
    Public,
    /// Private, CGNAT, unique-local and link-local ranges, `.internal` names.
    Internal,
    /// The cloud instance-metadata service.
    Metadata,
}

impl Kind {
    /// The kind once the spelling no longer lets every parser agree.
    fn unagreed(self) -> Kind {
        if self == Kind::Loopback {
            Kind::LoopbackUnagreed
        } else {
            self
        }
    }

    /// How dangerous a GET there is: an unagreed loopback is any host.
    fn danger(self) -> Kind {
        if self == Kind::LoopbackUnagreed {
            Kind::Public
        } else {
            self
        }
    }
}

/// Hosts that every parser reads as the same loopback host.
pub const LOOPBACK_HOSTS: &[&str] = &[
    "127.0.0.1",
    "127.0.1.1",
    "127.255.255.254",
    "[::1]",
    "[0:0:0:0:0:0:0:1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "localhost",
    "LOCALHOST",
    "LocalHost",
    "localhost.",
    "app.localhost",
];

/// Loopback to a WHATWG parser only: Go reads the numeric spellings as
/// names, Python keeps percent-encoding, curl and Go keep fullwidth digits.
pub const UNAGREED_LOOPBACK_HOSTS: &[&str] = &[
    "127.1",
    "127.0.1",
    "2130706433",
    "0x7f000001",
    "0x7f.1",
    "0177.0.0.1",
    "017700000001",
    "127.000.000.001",
    "127.0.0.1.",
    "%6c%6fcalhost",
    "%31%32%37.0.0.1",
    "１２７.0.0.1",
];

/// Hosts that are not loopback although their text says `localhost` or
/// `127.0.0.1` somewhere, and other public hosts.
pub const REMOTE_HOSTS: &[&str] = &[
    "example.com",
    "localhost.evil.com",
    "127.0.0.1.nip.io",
    "localhost-127-0-0-1.example.net",
    "0.0.0.0",
    "[::]",
    "128.0.0.1",
    "126.255.255.255",
    "[::ffff:128.0.0.1]",
    "evil127.0.0.1.example",
    "172.32.0.1",
    "100.128.0.1",
    "169.255.0.1",
    "metadata.google.internal.evil.com",
];

/// The internal network.
pub const INTERNAL_HOSTS: &[&str] = &[
    "10.0.0.1",
    "172.16.0.1",
    "192.168.1.1",
    "100.64.0.1",
    "[fd12:3456::1]",
    "[fe80::1]",
    "[::ffff:10.0.0.1]",
    "3232235777",
    "jenkins.internal",
    "printer.local",
];

/// The cloud metadata service in the spellings parsers accept.
pub const METADATA_HOSTS: &[&str] = &[
    "169.254.169.254",
    "2852039166",
    "0xa9fea9fe",
    "0251.0376.0251.0376",
    "169.254.43518",
    "[::ffff:169.254.169.254]",
    "[::ffff:a9fe:a9fe]",
    "[64:ff9b::a9fe:a9fe]",
    "[fd00:ec2::254]",
    "169.254.170.2",
    "100.100.100.200",
    "metadata.google.internal",
    "METADATA.GOOGLE.INTERNAL.",
    "metadata",
];

fn hosts(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Loopback => LOOPBACK_HOSTS,
        Kind::LoopbackUnagreed => UNAGREED_LOOPBACK_HOSTS,
        Kind::Public => REMOTE_HOSTS,
        Kind::Internal => INTERNAL_HOSTS,
        Kind::Metadata => METADATA_HOSTS,
    }
}

/// A host of any kind, as `build` draws them.
pub fn any_host(u: &mut Unstructured) -> Result<&'static str> {
    let kind = *u.choose(KINDS)?;
    Ok(*u.choose(hosts(kind))?)
}

const KINDS: &[Kind] = &[
    Kind::Loopback,
    Kind::Loopback,
    Kind::LoopbackUnagreed,
    Kind::Public,
    Kind::Public,
    Kind::Internal,
    Kind::Metadata,
];

/// Percent-encodes one letter or digit of a host that is not an IPv6
/// literal nor encoded already (WHATWG decodes it; Python keeps it; Go
/// refuses it).
fn percent_encode_one(u: &mut Unstructured, host: &str) -> Result<Option<String>> {
    if host.starts_with('[') || host.contains('%') {
        return Ok(None);
    }
    let positions: Vec<usize> = host
        .char_indices()
        .filter(|(_, c)| c.is_ascii_alphanumeric())
        .map(|(i, _)| i)
        .collect();
    if positions.is_empty() {
        return Ok(None);
    }
    let i = *u.choose(&positions)?;
    Ok(Some(format!(
        "{}%{:02X}{}",
        &host[..i],
        host.as_bytes()[i],
        &host[i + 1..]
    )))
}

/// A host as userinfo: every byte but unreserved ones percent-encoded, so
/// that every parser reads the same (ASCII) userinfo.
fn userinfo_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// One URL and what a GET of it must be.
struct Built {
    url: String,
    kind: Kind,
    /// The URL carries credentials in its userinfo (RBV-FET-006).
    credentials: bool,
    /// The WHATWG parser refuses it (fail safe: escalate).
    refused: bool,
}

fn build(u: &mut Unstructured, families: &mut Vec<&'static str>) -> Result<Built> {
    let kind = *u.choose(KINDS)?;
    let host = *u.choose(hosts(kind))?;
    let other_kind = *u.choose(KINDS)?;
    let other = *u.choose(hosts(other_kind))?;
    families.push(match kind {
        Kind::Loopback => "loopback-spelling",
        Kind::LoopbackUnagreed => "loopback-unagreed",
        Kind::Public => "lookalike-host",
        Kind::Internal => "internal-range",
        Kind::Metadata => "metadata-spelling",
    });
    let mut built = Built {
        url: String::new(),
        kind,
        credentials: false,
        refused: false,
    };
    let scheme = *u.choose(&["http", "https", "HTTP"])?;
    let slashes = match u.int_in_range(0..=11)? {
        0 => {
            families.push("single-slash");
            "/"
        }
        1 => {
            families.push("backslashes");
            "\\\\"
        }
        _ => "//",
    };
    if slashes != "//" {
        built.kind = built.kind.unagreed();
    }
    let mut host_text = host.to_owned();
    match u.int_in_range(0..=9)? {
        0 => {
            if let Some(encoded) = percent_encode_one(u, host)? {
                families.push("percent-encoded-host");
                host_text = encoded;
                built.kind = built.kind.unagreed();
            }
        }
        1 if host.len() > 2 && !host.starts_with('[') => {
            families.push("tab-in-host");
            let at = host.char_indices().nth(1).map_or(1, |(i, _)| i);
            host_text = format!("{}\t{}", &host[..at], &host[at..]);
            built.kind = built.kind.unagreed();
        }
        2 if host.starts_with('[') => {
            // WHATWG refuses zone ids; curl, Python and Go keep them.
            families.push("zone-id");
            let zone = *u.choose(&["%25eth0", "%25lo", "%eth0", "%251"])?;
            host_text = format!("{}{zone}]", &host[..host.len() - 1]);
            built.refused = true;
        }
        _ => {}
    }
    let mut url = format!("{scheme}:{slashes}");
    match u.int_in_range(0..=5)? {
        0 | 1 => {
            families.push("userinfo");
            let user = userinfo_encode(other);
            let password = if u.arbitrary()? { ":s3cret" } else { "" };
            url.push_str(&format!("{user}{password}@"));
            built.credentials = true;
        }
        2 if slashes == "//" => {
            // WHATWG ends the authority at the backslash (`other`); Python
            // and curl read the host after the last `@` (`host`).
            families.push("backslash-before-at");
            // An ASCII host without escapes, so that WHATWG reads it whole.
            let (other, other_kind) = if other.is_ascii() && !other.contains('%') {
                (other, other_kind)
            } else {
                ("example.com", Kind::Public)
            };
            url.push_str(&format!("{other}\\@"));
            let whatwg = other_kind.unagreed();
            built.kind = whatwg.danger().max(built.kind.unagreed().danger());
            // The zone id sits in WHATWG's path now, where nothing refuses it.
            built.refused = false;
        }
        _ => {}
    }
    url.push_str(&host_text);
    if u.ratio(1, 3)? {
        families.push("port");
        url.push_str(&format!(":{}", u.int_in_range(1..=65535u32)?));
    }
    match u.int_in_range(0..=3)? {
        0 => {
            families.push("query-mentions-other-host");
            url.push_str(&format!("/?next=http://{other}/"));
        }
        1 => {
            families.push("fragment-mentions-other-host");
            url.push_str(&format!("/#@{other}"));
        }
        2 => {
            families.push("path-mentions-other-host");
            url.push_str(&format!("/{other}/status"));
        }
        _ => url.push('/'),
    }
    built.url = url;
    Ok(built)
}

/// What a GET of the built URL must be, under every profile.
fn truth(built: &Built) -> Truth {
    if built.refused {
        return Truth::Dangerous;
    }
    match built.kind.danger() {
        Kind::Metadata => Truth::Dangerous,
        // Sensitive systems, or a credential, with an untrusted answer:
        // escalate at Rule-of-Two threshold 2, soft-ack at 3.
        Kind::Internal => Truth::AtLeast(Band::SoftAck),
        Kind::Public if built.credentials => Truth::AtLeast(Band::SoftAck),
        Kind::Public => Truth::Safe(Band::SoftAck),
        // One boolean (the credential) is not two: still auto.
        _ => Truth::Safe(Band::Auto),
    }
}

pub fn input(u: &mut Unstructured) -> Result<Labeled> {
    let source: u8 = u.arbitrary()?;
    if source < corpus::SELECT_BELOW {
        let urls = corpus::http_urls();
        let index: u16 = u.arbitrary()?;
        let (href, loopback) = &urls[usize::from(index) % urls.len()];
        // The WHATWG serialization (`href`) is a spelling every parser
        // reads alike, so its label holds for the carve-out.
        let truth = if *loopback {
            Truth::Safe(Band::Auto)
        } else {
            Truth::AtLeast(Band::SoftAck)
        };
        return Ok(Labeled {
            text: href.clone(),
            truth,
            families: vec!["wpt-url"],
        });
    }
    let mut families = Vec::new();
    let built = build(u, &mut families)?;
    let mut truth = truth(&built);
    // A write to any host but an agreed loopback escalates (RBV-FET-004);
    // the target sends it with a method other than GET.
    if truth != Truth::Safe(Band::Auto) && u.ratio(1, 5)? {
        families.push(REMOTE_WRITE);
        truth = Truth::Dangerous;
    }
    Ok(Labeled {
        truth,
        text: built.url,
        families,
    })
}

/// The family of a URL the fetch target sends with a writing method.
pub const REMOTE_WRITE: &str = "remote-write";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_component_is_reached() {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..4000u64 {
            let bytes = crate::fuzz::rng::SplitMix64::new(seed).bytes(1 << 16);
            if let Ok(l) = input(&mut Unstructured::new(&bytes)) {
                seen.extend(l.families);
            }
        }
        for family in [
            "userinfo",
            "port",
            "zone-id",
            "percent-encoded-host",
            "tab-in-host",
            "backslash-before-at",
            "backslashes",
            "single-slash",
            "metadata-spelling",
            "internal-range",
            "loopback-unagreed",
            "wpt-url",
        ] {
            assert!(seen.contains(family), "{family} never generated: {seen:?}");
        }
    }
}
