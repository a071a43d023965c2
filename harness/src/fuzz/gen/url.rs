//! URLs: loopback hosts in the spellings a WHATWG parser normalizes, and
//! non-loopback hosts dressed to look loopback to a substring test.

use super::{corpus, Labeled, Truth};
use arbitrary::{Result, Unstructured};
use rbv_protocol::Band;

/// Hosts that a WHATWG parser resolves to a loopback address or name.
pub const LOOPBACK_HOSTS: &[&str] = &[
    "127.0.0.1",
    "127.1",
    "127.0.1",
    "2130706433",
    "0x7f000001",
    "0x7f.1",
    "0177.0.0.1",
    "127.255.255.254",
    "[::1]",
    "[0:0:0:0:0:0:0:1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "localhost",
    "LOCALHOST",
    "LocalHost",
    "app.localhost",
    "%6c%6fcalhost",
];

/// Hosts that are not loopback although their text says `localhost` or
/// `127.0.0.1` somewhere.
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
    "10.0.0.1",
    "evil127.0.0.1.example",
];

/// Decorations that keep the host: a port, a path, a query or fragment that
/// mention the other kind of host, userinfo, upper-case scheme.
fn decorate(
    u: &mut Unstructured,
    host: &str,
    other: &str,
    families: &mut Vec<&'static str>,
) -> Result<String> {
    let scheme = *u.choose(&["http", "https", "HTTP"])?;
    let mut url = format!("{scheme}://");
    if u.ratio(1, 3)? {
        families.push("userinfo");
        url.push_str(&format!(
            "{}@",
            other
                .trim_matches(|c| c == '[' || c == ']')
                .replace(':', "%3A")
        ));
    }
    url.push_str(host);
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
    Ok(url)
}

pub fn input(u: &mut Unstructured) -> Result<Labeled> {
    let source: u8 = u.arbitrary()?;
    if source < corpus::SELECT_BELOW {
        let urls = corpus::http_urls();
        let index: u16 = u.arbitrary()?;
        let (href, loopback) = &urls[usize::from(index) % urls.len()];
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
    let loopback = u.arbitrary::<bool>()?;
    let (host, other) = if loopback {
        (*u.choose(LOOPBACK_HOSTS)?, *u.choose(REMOTE_HOSTS)?)
    } else {
        (*u.choose(REMOTE_HOSTS)?, *u.choose(LOOPBACK_HOSTS)?)
    };
    let mut families = vec![if loopback {
        "loopback-spelling"
    } else {
        "lookalike-host"
    }];
    let text = decorate(u, host, other, &mut families)?;
    // A GET of a loopback URL is auto; of any other host soft-ack (content
    // comes in untrusted) — never auto. Userinfo sends a credential to the
    // remote host: a client may count that as sensitive and escalate.
    let truth = match (loopback, families.contains(&"userinfo")) {
        (true, _) => Truth::Safe(Band::Auto),
        (false, false) => Truth::Safe(Band::SoftAck),
        (false, true) => Truth::AtLeast(Band::SoftAck),
    };
    Ok(Labeled {
        text,
        truth,
        families,
    })
}
