//! The productions of a fetch one operation exercises: the forms of its
//! URL's components, scheme, host and path as the reference reads the URL
//! (`rbv_reference::classify::fetch::spelling::read`, the WHATWG URL
//! Standard's basic URL parser as the `url` crate implements it), the
//! spelling the input gave each (what the parser normalized away: an
//! octal IPv4 part, a default port, a percent-encoded host), and the
//! class of every argument the protocol names for a fetch (PROTOCOL.md
//! §10.6: `url`, `method`, `body`).
//!
//! Production names follow their sources: the `url` crate's `Host`
//! variants (`Host::Domain`, `Host::Ipv4`, `Host::Ipv6`) and `ParseError`
//! variants (`ParseError::InvalidIpv4Address`); the components of its
//! `Position` enum (`Username::present`, `Port::default`, `Query::empty`);
//! the special schemes of the URL Standard §4.2 (`Scheme::http` …
//! `Scheme::file`, which the crate's `SchemeType` lists); the request
//! methods of RFC 9110 §9.3 and RFC 5789 (`Method::PATCH`).
//!
//! The spelling of the host and port is read off the input as the URL
//! Standard's parser delimits them (§4.4: leading and trailing C0 controls
//! and spaces and every tab and newline removed; after a special scheme
//! any run of `/` and `\` starts the authority, and `\` ends it as `/`
//! does; the userinfo ends at the last `@`), never by another parser's
//! rules: it says how the host the reference judged was written.

use rbv_reference::classify::fetch::spelling;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::net::Ipv6Addr;
use url::{Host, Url};

/// The URL Standard's special schemes (§4.2, "special scheme"), each a
/// production `Scheme::<name>`; every other scheme is `Scheme::non-special`.
/// harness/tests/integration/grammar_sources.rs checks the list against the `url`
/// crate's `SchemeType`.
pub const SPECIAL_SCHEMES: &[&str] = &["http", "https", "ws", "wss", "ftp", "file"];

/// The arguments the protocol names for a fetch (PROTOCOL.md §10.6; the
/// test of the lists reads them there), each with its production family.
pub const ARGUMENTS: &[(&str, &str)] = &[("url", "Url"), ("method", "Method"), ("body", "Body")];

/// The request methods RFC 9110 §9.3 defines, and PATCH (RFC 5789): each
/// a production `Method::<name>` when spelled exactly.
pub const METHODS: &[&str] = &[
    "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
];

/// The forms of each URL component (`url::Position` names the components:
/// `BeforeUsername`/`AfterUsername` …), present, empty or absent as the
/// URL Standard's URL record has them (§4.1: a username and password are
/// strings, empty when absent; host, port, query and fragment can be null
/// or empty; a path is a list of segments or an opaque path). The scheme's
/// forms are its classes.
pub const COMPONENTS: &[(&str, &[&str])] = &[
    ("Scheme", &["non-special", "mixed-case"]),
    ("Username", &["present", "absent"]),
    ("Password", &["present", "empty", "absent"]),
    ("Host", &["empty", "absent"]),
    ("Port", &["explicit", "default", "empty", "absent"]),
    ("Path", &["segments", "empty", "opaque", "dot-segments"]),
    ("Query", &["present", "empty", "absent"]),
    ("Fragment", &["present", "empty", "absent"]),
];

/// How a host was spelled, per kind of host (URL Standard §3.5, the host
/// parser): a domain of a special scheme, an opaque host of a non-special
/// one, the IPv4 spellings the IPv4 parser accepts (§3.5 "IPv4 parser",
/// "IPv4 number parser": decimal, octal with a leading `0`, hex with
/// `0x`, one to four parts, a trailing dot), reached also through
/// percent-decoding and IDNA mapping (fullwidth digits, ideographic
/// dots), and the IPv6 forms (§3.5 "IPv6 parser"; the ranges of RFC 4291
/// §2.5 and RFC 4193, the IPv4-carrying forms of RFC 4291 §2.5.5, RFC 6052
/// and RFC 3056).
pub const HOST_FORMS: &[(&str, &[&str])] = &[
    (
        "Domain",
        &[
            "ascii",
            "single-label",
            "trailing-dot",
            "punycode",
            "unicode",
            "percent-encoded",
        ],
    ),
    ("OpaqueHost", &["name", "address-text"]),
    (
        "Ipv4",
        &[
            "dotted-decimal",
            "integer",
            "fewer-parts",
            "octal",
            "hex",
            "trailing-dot",
            "percent-encoded",
            "unicode",
        ],
    ),
    (
        "Ipv6",
        &[
            "full",
            "compressed",
            "ipv4-dotted",
            "ipv4-mapped",
            "ipv4-translated",
            "loopback",
            "unspecified",
            "link-local",
            "site-local",
            "unique-local",
            "global",
        ],
    ),
];

/// The forms of the arguments themselves: the `url` argument missing or
/// not a string; the `method` absent (GET), empty, a registered method in
/// another case, another token (an extension method: RFC 9110 §9.1), or
/// not a token at all (§5.6.2), or not a string; the `body` absent (or
/// null), empty, a string or another JSON value (PROTOCOL.md §10.6: any
/// value but null or `""` is data sent); an argument the protocol does not
/// name (`headers`, `timeout`: the tool's own).
pub const ARGUMENT_FORMS: &[(&str, &[&str])] = &[
    ("Url", &["missing", "not-a-string"]),
    (
        "Method",
        &[
            "absent",
            "empty",
            "other-case",
            "extension",
            "not-a-token",
            "not-a-string",
        ],
    ),
    ("Body", &["absent", "empty", "string", "non-string"]),
    ("Argument", &["other"]),
];

/// The requests that carry an operation (the protocol's schemas that
/// define `OperationKind`): `Request::<name>`.
pub const REQUESTS: &[&str] = &["evaluate", "approve", "invoke"];

/// Every production name the module can make but the source-derived ones
/// (`Host::<variant>`, `ParseError::<variant>`, `Scheme::<special>`,
/// `Method::<registered>`), which the test of the lists reads from their
/// sources.
pub fn fixed_productions() -> BTreeSet<String> {
    let families = COMPONENTS.iter().chain(HOST_FORMS).chain(ARGUMENT_FORMS);
    let mut out: BTreeSet<String> = families
        .flat_map(|(family, forms)| forms.iter().map(move |f| format!("{family}::{f}")))
        .collect();
    out.extend(SPECIAL_SCHEMES.iter().map(|s| format!("Scheme::{s}")));
    out.extend(METHODS.iter().map(|m| format!("Method::{m}")));
    out.extend(REQUESTS.iter().map(|r| format!("Request::{r}")));
    out
}

/// The productions of one fetch operation's `arguments`, sent in `request`.
pub fn productions(arguments: &Map<String, Value>, request: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    seen.insert(format!("Request::{request}"));
    if arguments
        .keys()
        .any(|k| !ARGUMENTS.iter().any(|(name, _)| name == k))
    {
        seen.insert("Argument::other".to_owned());
    }
    match arguments.get("method") {
        None | Some(Value::Null) => seen.insert("Method::absent".to_owned()),
        Some(Value::String(m)) => seen.insert(method(m)),
        Some(_) => seen.insert("Method::not-a-string".to_owned()),
    };
    seen.insert(
        match arguments.get("body") {
            None | Some(Value::Null) => "Body::absent",
            Some(Value::String(b)) if b.is_empty() => "Body::empty",
            Some(Value::String(_)) => "Body::string",
            Some(_) => "Body::non-string",
        }
        .to_owned(),
    );
    match arguments.get("url") {
        None => {
            seen.insert("Url::missing".to_owned());
        }
        Some(Value::String(text)) => url(text, &mut seen),
        Some(_) => {
            seen.insert("Url::not-a-string".to_owned());
        }
    }
    seen
}

/// RFC 9110 §5.6.2: `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

fn method(m: &str) -> String {
    if METHODS.contains(&m) {
        return format!("Method::{m}");
    }
    let form = if m.is_empty() {
        "empty"
    } else if METHODS.contains(&m.to_ascii_uppercase().as_str()) {
        "other-case"
    } else if m.chars().all(is_tchar) {
        "extension"
    } else {
        "not-a-token"
    };
    format!("Method::{form}")
}

/// The variant name of a value of a `url` enum, from its derived `Debug`.
fn variant(value: &impl std::fmt::Debug) -> String {
    let text = format!("{value:?}");
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The input as the URL Standard's parser reads it (§4.4, steps 1–3):
/// leading and trailing C0 controls and spaces removed, and every ASCII
/// tab and newline.
fn cleaned(text: &str) -> String {
    text.trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// The pieces of the authority as the input spelled them.
struct Authority<'a> {
    userinfo: Option<&'a str>,
    host: &'a str,
    port: Option<&'a str>,
    /// What follows the authority: path, query, fragment.
    rest: &'a str,
}

/// The authority of `input` (already [`cleaned`]) as the URL Standard's
/// authority and host states delimit it, for a URL that parsed with an
/// authority (`file` excepted: its host state has no userinfo or port).
fn authority(input: &str, special: bool) -> Option<Authority<'_>> {
    let (_, after) = input.split_once(':')?;
    let after = if special {
        after.trim_start_matches(['/', '\\'])
    } else {
        after.strip_prefix("//")?
    };
    let end = after
        .find(|c| matches!(c, '/' | '?' | '#') || (special && c == '\\'))
        .unwrap_or(after.len());
    let (auth, rest) = after.split_at(end);
    let (userinfo, hostport) = match auth.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, auth),
    };
    let split = if hostport.starts_with('[') {
        hostport.find(']').map(|i| i + 1)
    } else {
        hostport.find(':')
    };
    let (host, port) = match split {
        Some(i) if i < hostport.len() => (&hostport[..i], hostport[i..].strip_prefix(':')),
        _ => (hostport, None),
    };
    Some(Authority {
        userinfo,
        host,
        port,
        rest,
    })
}

/// The path as the input spelled it: up to the query or fragment.
fn path_text(rest: &str) -> &str {
    &rest[..rest.find(['?', '#']).unwrap_or(rest.len())]
}

/// URL Standard §4.1: a single-dot segment is `.` or `%2e`, a double-dot
/// one `..`, `.%2e`, `%2e.` or `%2e%2e` (ASCII case-insensitive).
fn is_dot_segment(segment: &str) -> bool {
    let s = segment.to_ascii_lowercase().replace("%2e", ".");
    s == "." || s == ".."
}

fn url(text: &str, seen: &mut BTreeSet<String>) {
    let parsed = match spelling::read(text) {
        Ok(parsed) => parsed,
        Err(e) => {
            seen.insert(format!("ParseError::{}", variant(&e)));
            return;
        }
    };
    let mut add = |name: String| {
        seen.insert(name);
    };
    let scheme = parsed.scheme();
    let special = SPECIAL_SCHEMES.contains(&scheme);
    add(if special {
        format!("Scheme::{scheme}")
    } else {
        "Scheme::non-special".to_owned()
    });
    let input = cleaned(text);
    if input
        .split_once(':')
        .is_some_and(|(s, _)| s != s.to_ascii_lowercase())
    {
        add("Scheme::mixed-case".to_owned());
    }
    let spelled = match (parsed.host(), scheme) {
        (None, _) | (_, "file") => None,
        _ => authority(&input, special),
    };
    add(if parsed.username().is_empty() {
        "Username::absent"
    } else {
        "Username::present"
    }
    .to_owned());
    let password_colon = spelled
        .as_ref()
        .and_then(|a| a.userinfo)
        .is_some_and(|u| u.contains(':'));
    add(match (parsed.password(), password_colon) {
        (Some(_), _) => "Password::present".to_owned(),
        (None, true) => "Password::empty".to_owned(),
        (None, false) => "Password::absent".to_owned(),
    });
    add(
        match (parsed.port(), spelled.as_ref().and_then(|a| a.port)) {
            (Some(_), _) => "Port::explicit".to_owned(),
            (None, Some("")) => "Port::empty".to_owned(),
            (None, Some(_)) => "Port::default".to_owned(),
            (None, None) => "Port::absent".to_owned(),
        },
    );
    let path = if parsed.cannot_be_a_base() {
        "Path::opaque"
    } else if matches!(parsed.path(), "" | "/") {
        "Path::empty"
    } else {
        "Path::segments"
    };
    add(path.to_owned());
    if !parsed.cannot_be_a_base() {
        let rest = spelled
            .as_ref()
            .map_or_else(|| input.split_once(':').map_or("", |(_, r)| r), |a| a.rest);
        let dots = path_text(rest)
            .split(|c| c == '/' || (special && c == '\\'))
            .any(is_dot_segment);
        if dots {
            add("Path::dot-segments".to_owned());
        }
    }
    let optional = |family: &str, value: Option<&str>| match value {
        None => format!("{family}::absent"),
        Some("") => format!("{family}::empty"),
        Some(_) => format!("{family}::present"),
    };
    add(optional("Query", parsed.query()));
    add(optional("Fragment", parsed.fragment()));
    let host_text = spelled.as_ref().map_or("", |a| a.host);
    match parsed.host() {
        // `file:///p`: an authority without a host: the URL record's host
        // is the empty string (§4.4, file host state), not null.
        None if parsed.has_authority() => add("Host::empty".to_owned()),
        None => add("Host::absent".to_owned()),
        Some(Host::Domain("")) => add("Host::empty".to_owned()),
        Some(host) => {
            add(format!("Host::{}", variant(&host)));
            for form in host_forms(&parsed, &host, host_text) {
                add(form);
            }
        }
    }
}

/// The spelling of a non-empty host, by its kind.
fn host_forms(parsed: &Url, host: &Host<&str>, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let encoded = text.contains('%');
    let unicode = !text.is_ascii();
    match host {
        Host::Domain(name) if !parsed.is_special() => {
            let address = Host::parse(name).is_ok_and(|h| matches!(h, Host::Ipv4(_)));
            let form = if address { "address-text" } else { "name" };
            vec![format!("OpaqueHost::{form}")]
        }
        Host::Domain(name) => {
            let bare = name.strip_suffix('.').unwrap_or(name);
            if name.ends_with('.') {
                out.push("trailing-dot");
            }
            if !bare.contains('.') {
                out.push("single-label");
            }
            if encoded {
                out.push("percent-encoded");
            }
            if unicode {
                out.push("unicode");
            } else if bare.split('.').any(|l| l.starts_with("xn--")) {
                out.push("punycode");
            }
            if !encoded && !unicode {
                out.push("ascii");
            }
            out.into_iter().map(|f| format!("Domain::{f}")).collect()
        }
        Host::Ipv4(_) => {
            if encoded {
                out.push("percent-encoded");
            }
            if unicode {
                out.push("unicode");
            }
            if !encoded && !unicode {
                out.extend(ipv4_spelling(text));
            }
            out.into_iter().map(|f| format!("Ipv4::{f}")).collect()
        }
        Host::Ipv6(ip) => {
            let literal = text.trim_start_matches('[').trim_end_matches(']');
            out.push(if literal.contains("::") {
                "compressed"
            } else {
                "full"
            });
            if literal.contains('.') {
                out.push("ipv4-dotted");
            }
            out.push(ipv6_range(ip));
            out.into_iter().map(|f| format!("Ipv6::{f}")).collect()
        }
    }
}

/// The spelling of an ASCII IPv4 host: its parts as the URL Standard's
/// IPv4 parser reads them (§3.5).
fn ipv4_spelling(text: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut parts: Vec<&str> = text.split('.').collect();
    if parts.len() > 1 && parts.last() == Some(&"") {
        parts.pop();
        out.push("trailing-dot");
    }
    let mut plain = true;
    if parts
        .iter()
        .any(|p| p.starts_with("0x") || p.starts_with("0X"))
    {
        out.push("hex");
        plain = false;
    }
    if parts
        .iter()
        .any(|p| p.len() > 1 && p.starts_with('0') && !p[1..].starts_with(['x', 'X']))
    {
        out.push("octal");
        plain = false;
    }
    match parts.len() {
        1 => out.push("integer"),
        4 if plain && out.is_empty() => out.push("dotted-decimal"),
        4 => {}
        _ => out.push("fewer-parts"),
    }
    out
}

/// The range an IPv6 address is in, or the IPv4 address it carries.
fn ipv6_range(ip: &Ipv6Addr) -> &'static str {
    let s = ip.segments();
    if ip.is_loopback() {
        "loopback"
    } else if ip.is_unspecified() {
        "unspecified"
    } else if ip.to_ipv4_mapped().is_some() {
        // RFC 4291 §2.5.5.2.
        "ipv4-mapped"
    } else if matches!(s, [0, 0, 0, 0, 0, 0, _, _])
        || matches!(s, [0x64, 0xff9b, 0, 0, 0, 0, _, _] | [0x64, 0xff9b, 1, ..])
        || s[0] == 0x2002
    {
        // IPv4-compatible (RFC 4291 §2.5.5.1), NAT64 (RFC 6052, RFC 8215),
        // 6to4 (RFC 3056).
        "ipv4-translated"
    } else if (s[0] & 0xffc0) == 0xfe80 {
        "link-local"
    } else if (s[0] & 0xffc0) == 0xfec0 {
        // Deprecated by RFC 3879, still parsed and routed by some stacks.
        "site-local"
    } else if (s[0] & 0xfe00) == 0xfc00 {
        "unique-local"
    } else {
        "global"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(arguments: Value) -> BTreeSet<String> {
        productions(arguments.as_object().unwrap(), "evaluate")
    }

    fn has(seen: &BTreeSet<String>, names: &[&str]) {
        for name in names {
            assert!(seen.contains(*name), "{name} not in {seen:?}");
        }
    }

    #[test]
    fn components_and_their_empty_and_absent_forms() {
        let seen = of(json!({"url": "HTTP://u:@Example.com:80/a/../b?#"}));
        has(
            &seen,
            &[
                "Scheme::http",
                "Scheme::mixed-case",
                "Username::present",
                "Password::empty",
                "Port::default",
                "Path::segments",
                "Path::dot-segments",
                "Query::empty",
                "Fragment::empty",
                "Host::Domain",
                "Domain::ascii",
                "Method::absent",
                "Body::absent",
                "Request::evaluate",
            ],
        );
        let seen = of(json!({"url": "http://:t@h:/", "method": "get"}));
        has(
            &seen,
            &[
                "Username::absent",
                "Password::present",
                "Port::empty",
                "Path::empty",
                "Query::absent",
                "Fragment::absent",
                "Domain::single-label",
                "Method::other-case",
            ],
        );
        let seen = of(json!({"url": "data:text/plain,x", "body": {"a": 1}, "headers": {}}));
        has(
            &seen,
            &[
                "Scheme::non-special",
                "Host::absent",
                "Path::opaque",
                "Body::non-string",
                "Argument::other",
            ],
        );
        has(&of(json!({"url": "file:///etc/passwd"})), &["Host::empty"]);
    }

    #[test]
    fn every_ipv4_spelling_of_the_url_standard() {
        let cases: &[(&str, &[&str])] = &[
            ("http://169.254.169.254/", &["Ipv4::dotted-decimal"]),
            ("http://2852039166/", &["Ipv4::integer"]),
            ("http://0251.0376.0251.0376/", &["Ipv4::octal"]),
            ("http://0xa9.0xfe.0xa9.0xfe/", &["Ipv4::hex"]),
            ("http://169.254.43518/", &["Ipv4::fewer-parts"]),
            ("http://127.0.0.1./", &["Ipv4::trailing-dot"]),
            ("http://%31%32%37.0.0.1/", &["Ipv4::percent-encoded"]),
            ("http://\u{ff11}\u{ff12}\u{ff17}.0.0.1/", &["Ipv4::unicode"]),
            ("http:\\\\0x7f.1\\x", &["Ipv4::hex", "Ipv4::fewer-parts"]),
        ];
        for (url, forms) in cases {
            let seen = of(json!({ "url": url }));
            has(&seen, forms);
            has(&seen, &["Host::Ipv4"]);
        }
        let seen = of(json!({"url": "http://127.0.0.1/"}));
        assert!(!seen.contains("Ipv4::octal"), "{seen:?}");
    }

    #[test]
    fn ipv6_forms_opaque_hosts_and_parse_errors() {
        let cases: &[(&str, &[&str])] = &[
            (
                "http://[0:0:0:0:0:0:0:1]/",
                &["Ipv6::full", "Ipv6::loopback"],
            ),
            (
                "http://[::ffff:169.254.169.254]/",
                &["Ipv6::compressed", "Ipv6::ipv4-dotted", "Ipv6::ipv4-mapped"],
            ),
            ("http://[64:ff9b::a9fe:a9fe]/", &["Ipv6::ipv4-translated"]),
            ("http://[fe80::1]/", &["Ipv6::link-local"]),
            ("http://[fd00:ec2::254]/", &["Ipv6::unique-local"]),
            ("http://[::]/", &["Ipv6::unspecified"]),
            ("ldap://127.0.0.1/", &["OpaqueHost::address-text"]),
            ("gopher://Example.com/", &["OpaqueHost::name"]),
            ("http://xn--nxasmq6b.example/", &["Domain::punycode"]),
            ("http://b\u{fc}cher.example/", &["Domain::unicode"]),
            ("http://1.2.3.4.5/", &["ParseError::InvalidIpv4Address"]),
            ("/relative", &["ParseError::RelativeUrlWithoutBase"]),
        ];
        for (url, forms) in cases {
            has(&of(json!({ "url": url })), forms);
        }
        has(&of(json!({"url": 7})), &["Url::not-a-string"]);
        has(&of(json!({})), &["Url::missing"]);
        has(
            &of(json!({"url": "x", "method": "G ET"})),
            &["Method::not-a-token"],
        );
        has(
            &of(json!({"url": "x", "method": "PROPFIND"})),
            &["Method::extension"],
        );
    }

    #[test]
    fn every_production_made_is_one_the_lists_name() {
        let fixed = fixed_productions();
        for url in [
            "http://u:p@[::1]:8080/a?b#c",
            "ws://0x7f.1/",
            "mailto:a@b",
            "file://host/x",
        ] {
            for p in of(json!({"url": url, "method": "POST", "body": ""})) {
                assert!(
                    fixed.contains(&p) || p.starts_with("Host::"),
                    "{p} is made but listed nowhere"
                );
            }
        }
    }
}
