//! Where a fetch lands, seen from the client's machine:
//! the machine itself (loopback), the machine's own cloud infrastructure
//! (instance metadata: its credentials), the internal network (private,
//! carrier-grade NAT, unique-local and link-local ranges, names reserved
//! for private use), or the public internet.
//!
//! An address embedded in an IPv6 one (IPv4-mapped, IPv4-compatible,
//! IPv4-translated, NAT64, 6to4) counts as the address it carries when that
//! is more dangerous; only
//! the IPv4-mapped form keeps the loopback carve-out (the others are not
//! routed to this machine).

use super::loopback::is_loopback_host;
use crate::mutant::Mutant;
use std::net::{Ipv4Addr, Ipv6Addr};
use url::Host;

/// Ordered by what a GET there can expose: a higher reach is never safer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reach {
    /// This machine (the §4.4 carve-out).
    Loopback,
    /// The public internet, or a name nobody reserved for private use.
    Public,
    /// The internal network: systems that trust the network position.
    Internal,
    /// The cloud instance-metadata service: this machine's credentials.
    Metadata,
}

impl Reach {
    pub fn describe(self) -> &'static str {
        match self {
            Reach::Loopback => "loopback",
            Reach::Public => "a public host",
            Reach::Internal => "the internal network",
            Reach::Metadata => "the cloud instance-metadata service",
        }
    }
}

/// Names that resolve to a metadata service inside a cloud (GCE's
/// `metadata.google.internal` and its short forms, EC2's `instance-data`,
/// Tencent Cloud's `metadata.tencentyun.com`).
const METADATA_NAMES: &[&str] = &[
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.tencentyun.com",
];

/// Name suffixes that only resolve inside a private network: `.internal`
/// (ICANN, 2024: every cloud's instance names), `.local` (mDNS, RFC 6762,
/// and Kubernetes' `cluster.local`), `.home.arpa` (RFC 8375), the private
/// top-level names RFC 6762 appendix G found in use (`intranet`, `private`,
/// `corp`, `home`, `lan`) and `localdomain`; Kubernetes service names
/// (`<service>.<namespace>.svc`, and the short `<service>.<namespace>` for
/// the namespaces every cluster has, which no public registry delegates);
/// Consul's `.consul`; Azure's VNet-only `internal.cloudapp.net`.
#[rustfmt::skip]
const INTERNAL_SUFFIXES: &[&str] = &[
    "internal", "local", "home.arpa", "intranet", "private", "corp", "home", "lan",
    "localdomain", "svc", "default", "kube-system", "kube-public", "consul",
    "internal.cloudapp.net",
];

/// The reach of a host as a WHATWG parser returned it (`mutant`: the
/// planted defect judging names, if any).
pub fn reach_of_host(host: &Host<&str>, mutant: Option<Mutant>) -> Reach {
    if is_loopback_host(host) {
        return Reach::Loopback;
    }
    match host {
        Host::Ipv4(ip) => reach_v4(*ip),
        Host::Ipv6(ip) => reach_v6(ip),
        Host::Domain(name) => match name.parse::<Ipv4Addr>() {
            // An opaque host of a non-special scheme spelled as an address.
            Ok(ip) => reach_v4(ip),
            Err(_) => reach_of_name(name, mutant),
        },
    }
}

/// The reach of a host written as text by another parser (it may still be
/// percent-encoded, numeric in any inet_aton spelling, bracketed, with a
/// zone): read with the WHATWG host parser, which accepts every spelling
/// that inet_aton and getaddrinfo accept. Text it rejects is a name.
pub fn reach_of_text(text: &str, mutant: Option<Mutant>) -> Reach {
    let text = match (text.strip_prefix('['), text.find('%')) {
        // A zone id names an interface, not another host.
        (Some(_), Some(zone)) => format!("{}]", &text[..zone]),
        _ => text.to_owned(),
    };
    match Host::parse(&text) {
        Ok(Host::Domain(name)) => reach_of_host(&Host::Domain(name.as_str()), mutant),
        Ok(Host::Ipv4(ip)) => reach_of_host(&Host::Ipv4(ip), mutant),
        Ok(Host::Ipv6(ip)) => reach_of_host(&Host::Ipv6(ip), mutant),
        Err(_) => reach_of_name(&text.to_ascii_lowercase(), mutant),
    }
}

fn reach_v4(ip: Ipv4Addr) -> Reach {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Reach::Loopback
    } else if ip.is_link_local()
        || ip == Ipv4Addr::new(100, 100, 100, 200)
        || ip == Ipv4Addr::new(168, 63, 129, 16)
    {
        // 169.254.0.0/16 is where every large cloud serves its instance
        // services (AWS IMDS and ECS/EKS credentials, GCP, Azure, OCI,
        // OpenStack); Alibaba's and Azure's WireServer sit elsewhere.
        Reach::Metadata
    } else if ip.is_private() || (a == 100 && (64..128).contains(&b)) {
        Reach::Internal
    } else {
        Reach::Public
    }
}

fn reach_v6(ip: &Ipv6Addr) -> Reach {
    let s = ip.segments();
    if let Some(v4) = ip.to_ipv4_mapped() {
        return reach_v4(v4);
    }
    // IPv4-compatible (::a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d, RFC
    // 2765 §2.1: a stateless translator, RFC 7915, delivers it to the IPv4
    // address), NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and 6to4
    // (2002:AABB:CCDD::/48) carry an IPv4 address: never loopback. The URL
    // Standard's IPv6 parser (§3.5) accepts each with a dotted IPv4 tail.
    let embedded = match s {
        [0, 0, 0, 0, 0, 0, hi, lo] if hi != 0 => Some((hi, lo)),
        [0, 0, 0, 0, 0xffff, 0, hi, lo] => Some((hi, lo)),
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some((hi, lo)),
        [0x64, 0xff9b, 1, ..] => Some((s[6], s[7])),
        [0x2002, hi, lo, ..] => Some((hi, lo)),
        _ => None,
    };
    let carried = embedded.map_or(Reach::Public, |(hi, lo)| {
        let v4 = Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
        reach_v4(v4).max(Reach::Public)
    });
    let own = if s[0] == 0xfd00 && s[1] == 0x0ec2 && s[2..4] == [0, 0] {
        // fd00:ec2::/64: EC2's IPv6 instance services (IMDS fd00:ec2::254,
        // EKS Pod Identity fd00:ec2::23, DNS, NTP).
        Reach::Metadata
    } else if (s[0] & 0xfe00) == 0xfc00 || (s[0] & 0xffc0) == 0xfe80 || (s[0] & 0xffc0) == 0xfec0 {
        // Unique-local fc00::/7, link-local fe80::/10, site-local fec0::/10.
        Reach::Internal
    } else {
        Reach::Public
    };
    own.max(carried)
}

/// A name's reach: the metadata names, the private suffixes, a name of one
/// label (resolved only through the local search domains: `kubernetes`,
/// `jenkins`), and the most dangerous address the name embeds, which public
/// wildcard-DNS services (nip.io, sslip.io, xip.io, traefik.me, rebinding
/// services) resolve it to. An embedded address is never loopback: the
/// name's owner could answer anything (RBV-FET-002).
fn reach_of_name(name: &str, mutant: Option<Mutant>) -> Reach {
    let name = name.strip_suffix('.').unwrap_or(name);
    if METADATA_NAMES.contains(&name) {
        return Reach::Metadata;
    }
    let private_name = (!name.is_empty() && !name.contains('.'))
        || INTERNAL_SUFFIXES.iter().any(|suffix| {
            name.strip_suffix(suffix)
                .is_some_and(|rest| rest.is_empty() || rest.ends_with('.'))
        });
    let internal = private_name && mutant != Some(Mutant::ClusterNameBlind);
    let own = if internal {
        Reach::Internal
    } else {
        Reach::Public
    };
    if mutant == Some(Mutant::WildcardDnsBlind) {
        return own;
    }
    embedded_addresses(name)
        .into_iter()
        .map(|ip| match ip {
            std::net::IpAddr::V4(v4) => reach_v4(v4),
            std::net::IpAddr::V6(v6) => reach_v6(&v6),
        })
        .fold(own, |worst, r| worst.max(r.max(Reach::Public)))
}

/// The addresses a name spells the way wildcard-DNS services read them:
/// four decimal labels in a row (`10.0.0.1.nip.io`), four dash-separated
/// numbers inside a label (`169-254-169-254.sslip.io`, `ip-10-0-0-1`), a
/// label of eight hex digits (`a9fea9fe.nip.io`, rebinding services'
/// `7f000001.a9fea9fe.rbndr.us`), and an IPv6 address with `-` for `:`
/// (`fd00-ec2--254.sslip.io`).
pub fn embedded_addresses(name: &str) -> Vec<std::net::IpAddr> {
    let labels: Vec<&str> = name.split('.').collect();
    let mut found: Vec<std::net::IpAddr> = labels
        .windows(4)
        .filter_map(|w| w.join(".").parse::<Ipv4Addr>().ok())
        .map(Into::into)
        .collect();
    for label in &labels {
        let parts: Vec<&str> = label.split('-').collect();
        found.extend(
            parts
                .windows(4)
                .filter_map(|w| w.join(".").parse::<Ipv4Addr>().ok())
                .map(std::net::IpAddr::from),
        );
        if label.len() == 8 && label.bytes().all(|b| b.is_ascii_hexdigit()) {
            if let Ok(n) = u32::from_str_radix(label, 16) {
                found.push(Ipv4Addr::from(n).into());
            }
        }
        if label.contains("--") || label.matches('-').count() >= 7 {
            if let Ok(v6) = label.replace('-', ":").parse::<Ipv6Addr>() {
                found.push(v6.into());
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reach(url: &str) -> Reach {
        let parsed = url::Url::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
        reach_of_host(&parsed.host().expect("a host"), None)
    }

    #[test]
    fn metadata_in_every_spelling() {
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "http://2852039166/",
            "http://0xa9fea9fe/",
            "http://0251.0376.0251.0376/",
            "http://169.254.43518/",
            "http://[::ffff:169.254.169.254]/",
            "http://[::ffff:a9fe:a9fe]/",
            "http://[::169.254.169.254]/",
            "http://[::ffff:0:169.254.169.254]/",
            "http://[::ffff:0:a9fe:a9fe]/",
            "http://[64:ff9b::a9fe:a9fe]/",
            "http://[2002:a9fe:a9fe::1]/",
            "http://[fd00:ec2::254]/latest/meta-data/",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://METADATA.GOOGLE.INTERNAL./",
            "http://metadata/computeMetadata/v1/",
            "http://169.254.170.2/v2/credentials/x",
            "http://100.100.100.200/latest/meta-data/",
            "http://168.63.129.16/machine",
        ] {
            assert_eq!(reach(url), Reach::Metadata, "{url}");
        }
    }

    #[test]
    fn internal_ranges_and_names() {
        for url in [
            "http://10.0.0.1/",
            "http://172.16.0.1/",
            "http://172.31.255.255/",
            "http://192.168.1.1/admin",
            "http://100.64.0.1/",
            "http://100.127.255.255/",
            "http://[fd12:3456::1]/",
            "http://[fc00::1]/",
            "http://[fe80::1]/",
            "http://[fd00:ec3::254]/",
            "http://[::ffff:10.0.0.1]/",
            "http://[::ffff:0:10.0.0.1]/",
            "http://jenkins.internal/",
            "http://printer.local/",
            "http://nas.home.arpa/",
            "http://kubernetes.default.svc.cluster.local/",
            "https://kubernetes.default.svc/api/v1/secrets",
            "http://redis.cache.svc:6379/",
            "http://kubernetes.default/api",
            "http://coredns.kube-system/",
            "http://vault.service.consul:8200/",
            "http://jenkins/",
            "http://build.corp/",
            "http://router.lan/",
            "http://db.localdomain/",
            "http://vm1.internal.cloudapp.net/",
            "http://10.0.0.5.nip.io/",
            "http://app.192-168-1-1.sslip.io/",
            "http://ip-10-1-2-3.example.com/",
            "http://0a000001.nip.io/",
            "http://fd12-3456--1.sslip.io/",
        ] {
            assert_eq!(reach(url), Reach::Internal, "{url}");
        }
    }

    #[test]
    fn names_embedding_the_metadata_address() {
        for url in [
            "http://169.254.169.254.nip.io/latest/meta-data/",
            "http://x.169.254.169.254.xip.io/",
            "http://169-254-169-254.sslip.io/",
            "http://a9fea9fe.nip.io/",
            "http://7f000001.a9fea9fe.rbndr.us/",
            "http://fd00-ec2--254.sslip.io/",
            "http://169.254.169.254.traefik.me/",
        ] {
            assert_eq!(reach(url), Reach::Metadata, "{url}");
        }
    }

    #[test]
    fn names_embedding_loopback_or_public_addresses_are_public() {
        for url in [
            "http://127.0.0.1.nip.io/",
            "http://127-0-0-1.sslip.io/",
            "http://7f000001.nip.io/",
            "http://localtest.me/",
            "http://app.8.8.8.8.nip.io/",
            "http://svc.example.com/",
            "http://default.example.com/",
            "http://release-2026-10-01-1.example.com/",
            "http://my-app-v2.example.com/",
        ] {
            assert_eq!(reach(url), Reach::Public, "{url}");
        }
    }

    #[test]
    fn neighbours_stay_public() {
        for url in [
            "http://172.15.255.255/",
            "http://172.32.0.1/",
            "http://100.63.255.255/",
            "http://100.128.0.1/",
            "http://169.253.255.255/",
            "http://169.255.0.1/",
            "http://192.167.1.1/",
            "http://11.0.0.1/",
            "http://[fbff::1]/",
            "http://[2001:db8::1]/",
            "http://metadata.google.internal.evil.com/",
            "http://metadata.google.com/",
            "http://internal.example.com/",
            "http://localhost.local.evil.com/",
            "http://0.0.0.0/",
            "http://[::]/",
            "http://[::127.0.0.1]/",
            "http://[::ffff:0:127.0.0.1]/",
            "http://example.com/",
        ] {
            assert_eq!(reach(url), Reach::Public, "{url}");
        }
    }

    #[test]
    fn text_readings() {
        assert_eq!(reach_of_text("169.254.169.254", None), Reach::Metadata);
        assert_eq!(
            reach_of_text("169.254.169.%32%35%34", None),
            Reach::Metadata
        );
        assert_eq!(reach_of_text("[fe80::1%25eth0]", None), Reach::Internal);
        assert_eq!(reach_of_text("[fd00:ec2::254%eth0]", None), Reach::Metadata);
        assert_eq!(reach_of_text("127.0.0.1", None), Reach::Loopback);
        assert_eq!(reach_of_text("evil.com", None), Reach::Public);
        assert_eq!(reach_of_text("evil.com\\", None), Reach::Public);
    }

    #[test]
    fn each_name_mutant_loses_only_its_own_reading() {
        let wildcard = Some(Mutant::WildcardDnsBlind);
        let cluster = Some(Mutant::ClusterNameBlind);
        assert_eq!(
            reach_of_text("169.254.169.254.nip.io", None),
            Reach::Metadata
        );
        assert_eq!(
            reach_of_text("169.254.169.254.nip.io", wildcard),
            Reach::Public
        );
        assert_eq!(
            reach_of_text("169.254.169.254.nip.io", cluster),
            Reach::Metadata
        );
        for name in [
            "kubernetes.default.svc",
            "vault.service.consul",
            "prometheus",
        ] {
            assert_eq!(reach_of_text(name, None), Reach::Internal, "{name}");
            assert_eq!(reach_of_text(name, cluster), Reach::Public, "{name}");
            assert_eq!(reach_of_text(name, wildcard), Reach::Internal, "{name}");
        }
        // Neither touches the metadata names or addresses.
        for m in [wildcard, cluster] {
            assert_eq!(
                reach_of_text("metadata.google.internal", m),
                Reach::Metadata
            );
            assert_eq!(reach_of_text("10.0.0.5", m), Reach::Internal);
        }
    }
}
