"""Fetch inspection (PROTOCOL.md §10.6 "Fetch", proposal §4.4).

The host is never found by substring. A URL is read the way each kind of
parser an agent's tools use would read it: the WHATWG URL standard
(browsers, Node's `URL`; backslashes are slashes, hosts in IPv4 shorthand)
and RFC 3986 as `urllib.parse` reads it (curl and Go are close to it). When
the readings disagree about the host, the request can go to either, so the
call gets the most dangerous band of the two; the loopback carve-out holds
only when every reading names the same plain loopback host.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from dataclasses import dataclass

from rbv_adapter.messages import Band

from .verdict import Finding

READ_METHODS = ("GET", "HEAD", "OPTIONS")
SPECIAL = ("http", "https", "ws", "wss", "ftp", "file")
METADATA_NAMES = {"metadata.google.internal", "metadata", "metadata.goog", "instance-data",
                  "metadata.azure.com", "instance-data.ec2.internal", "metadata.tencentyun.com",
                  "metadata.platformequinix.com", "metadata.packet.net", "metadata.oraclecloud.com"}
METADATA_ADDRS = {
    ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("169.254.170.2"),
    ipaddress.ip_address("100.100.100.200"), ipaddress.ip_address("fd00:ec2::254"),
    ipaddress.ip_address("192.0.0.192"), ipaddress.ip_address("169.254.169.253"),
    ipaddress.ip_address("168.63.129.16"), ipaddress.ip_address("fd00:ec2::23"),
}

IpAddr = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass
class Reading:
    scheme: str
    host: str | None  # lower-cased, brackets removed; None when there is no authority
    userinfo: bool
    ip: IpAddr | None
    lenient_ip: IpAddr | None = None


def _whatwg_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """The WHATWG IPv4 parser: 1-4 parts, each decimal, 0x-hex or 0-octal,
    the last filling the remaining bytes (`127.1`, `0x7f000001`)."""
    parts = host.split(".")
    if parts and parts[-1] == "":
        parts.pop()
    if not parts or len(parts) > 4:
        return None
    nums: list[int] = []
    for p in parts:
        try:
            if p.lower().startswith("0x"):
                nums.append(int(p[2:] or "0", 16))
            elif len(p) > 1 and p.startswith("0"):
                nums.append(int(p, 8))
            else:
                if not p.isdigit():
                    return None
                nums.append(int(p))
        except ValueError:
            return None
    if any(x > 255 for x in nums[:-1]) or nums[-1] >= 256 ** (5 - len(nums)):
        return None
    value = nums[-1]
    for i, x in enumerate(nums[:-1]):
        value += x << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def _ip_of(host: str, lenient_ipv4: bool) -> IpAddr | None:
    if host.startswith("[") and host.endswith("]"):
        inner = host[1:-1]
        if "%" in inner:
            return None  # zone ids are not part of a URL's host
        try:
            return ipaddress.IPv6Address(inner)
        except ValueError:
            return None
    try:
        return ipaddress.IPv4Address(host)
    except ValueError:
        pass
    if lenient_ipv4 and host and (host.rstrip(".").split(".")[-1][:1].isdigit()):
        return _whatwg_ipv4(host)
    return None


def whatwg_reading(url: str) -> Reading | None:
    url = url.strip("\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15"
                    "\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
    url = re.sub(r"[\t\n\r]", "", url)
    m = re.match(r"([A-Za-z][A-Za-z0-9+.\-]*):(.*)", url, re.S)
    if not m:
        return None
    scheme, rest = m.group(1).lower(), m.group(2)
    special = scheme in SPECIAL
    if special:
        rest = rest.replace("\\", "/")
    if special and scheme != "file":
        rest = rest.lstrip("/")
    elif rest.startswith("//"):
        rest = rest[2:]
    else:
        return Reading(scheme, None, False, None)
    end = len(rest)
    for ch in "/?#":
        k = rest.find(ch)
        if k >= 0:
            end = min(end, k)
    authority = rest[:end]
    creds = authority.rsplit("@", 1)[0] if "@" in authority else ""
    userinfo = creds not in ("", ":")
    hostport = authority.rsplit("@", 1)[-1]
    if hostport.startswith("["):
        close = hostport.find("]")
        host = hostport[:close + 1] if close >= 0 else hostport
    else:
        host = hostport.split(":", 1)[0]
    host = urllib.parse.unquote(host).lower()
    if scheme == "file" and host == "localhost":
        host = ""
    ip = _ip_of(host, lenient_ipv4=special)
    if ip is None and special and _ends_in_number(host):
        return None  # WHATWG: a host ending in a number must be an IPv4 address
    if ip is None and host.startswith("["):
        return None  # an invalid IPv6 address, a zone id included
    port = hostport[len(host):] if not hostport.startswith("[") else hostport[hostport.find("]") + 1:]
    if port.startswith(":") and port[1:] and (not port[1:].isdigit() or int(port[1:]) > 65535):
        return None  # WHATWG refuses a port that is not a 16-bit number
    if ip is not None and isinstance(ip, ipaddress.IPv4Address):
        host = str(ip)
    return Reading(scheme, host[1:-1] if host.startswith("[") else host, userinfo, ip)


def _ends_in_number(host: str) -> bool:
    labels = host.split(".")
    if labels and labels[-1] == "" and len(labels) > 1:
        labels.pop()
    last = labels[-1] if labels else ""
    return bool(last) and (last.isdigit() or bool(re.fullmatch(r"0[xX][0-9A-Fa-f]*", last)))


def rfc3986_reading(url: str) -> Reading | None:
    try:
        parts = urllib.parse.urlsplit(url.strip())
        host = parts.hostname
        _ = parts.port
    except ValueError:
        return None
    if not parts.scheme:
        return None
    userinfo = bool(parts.username) or bool(parts.password)
    if host is None:
        return Reading(parts.scheme.lower(), None if not parts.netloc else "", userinfo, None)
    host = host.lower()
    ip: IpAddr | None
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        ip = None
    # What inet_aton-style parsers (curl, many C libraries) read a numeric
    # name as: not trusted for the loopback carve-out, feared for metadata.
    lenient = ip if ip is not None else _whatwg_ipv4(host) if host[:1].isdigit() else None
    return Reading(parts.scheme.lower(), host, userinfo, ip, lenient)


def _is_loopback(r: Reading) -> bool:
    if r.host is not None:
        name = r.host.rstrip(".") if r.host.endswith(".") and not r.host.endswith("..") else r.host
        if name == "localhost" or name.endswith(".localhost"):
            return True
    ip = r.ip
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip is not None and ip.is_loopback


_EMBEDS_V4 = [ipaddress.ip_network(n) for n in ("::/96", "64:ff9b::/96", "64:ff9b:1::/48", "::ffff:0:0:0/96")]


def _v4(r: Reading) -> IpAddr | None:
    """The IPv4 address a host reaches, also through an IPv6 address that
    embeds one (mapped, compatible, NAT64, SIIT)."""
    ip = r.ip or r.lenient_ip
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if any(ip in net for net in _EMBEDS_V4) and int(ip) & 0xFFFFFFFF and ip not in (
                ipaddress.IPv6Address("::1"), ipaddress.IPv6Address("::")):
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def _is_metadata(r: Reading) -> bool:
    if r.host is not None and r.host.rstrip(".") in METADATA_NAMES:
        return True
    ip = _v4(r)
    return ip is not None and (ip in METADATA_ADDRS or (ip.version == 4 and ip in _LINK_LOCAL4))


_LINK_LOCAL4 = ipaddress.ip_network("169.254.0.0/16")
INTERNAL = [ipaddress.ip_network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "198.18.0.0/15", "fc00::/7", "fe80::/10",
    "fec0::/10",
)]
INTERNAL_SUFFIXES = (".internal", ".local", ".lan", ".home.arpa", ".corp", ".intranet", ".localdomain")


def _is_internal(r: Reading) -> bool:
    ip = _v4(r)
    if ip is None:
        return r.host is not None and (r.host.rstrip(".").endswith(INTERNAL_SUFFIXES) or r.host.rstrip(".") in (
            "home.arpa",))
    return any(ip.version == net.version and ip in net for net in INTERNAL)


FORBIDDEN_HOST = set("\x00\t\n\r #/:<>?@[\\]^|%") | {chr(c) for c in range(0x20)} | {"\x7f"}


def whatwg_fails(url: str) -> str | None:
    """Why a WHATWG parser refuses the URL's host, if it does."""
    m = re.match(r"\s*([A-Za-z][A-Za-z0-9+.\-]*):", url)
    if not m or m.group(1).lower() not in SPECIAL or m.group(1).lower() == "file":
        return None
    r = whatwg_reading(url)
    if r is None or r.host is None:
        return None
    raw = r.host
    if raw.startswith("[") or isinstance(r.ip, ipaddress.IPv6Address):
        return None
    if "[" in raw or "]" in raw:
        return "brackets in the host"
    if any(ch in FORBIDDEN_HOST for ch in raw):
        return "a forbidden code point in the host"
    return None


def classify_fetch(url: object, method: object, hard_to_reverse_local: Band) -> Finding:
    if method is None:
        method = "GET"
    if not isinstance(url, str) or not isinstance(method, str):
        return Finding.write("fetch: url or method is not a string: fail safe")
    method = method.upper()
    reads = method in READ_METHODS
    bad = whatwg_fails(url)
    if bad:
        return Finding.write(f"fetch: unparseable URL ({bad}): fail safe")
    w = whatwg_reading(url)
    rfc = rfc3986_reading(url)
    if w is None or w.scheme == "":
        return Finding.write("fetch: unparseable URL: fail safe")
    scheme = w.scheme
    readings = [w] + ([rfc] if rfc is not None and rfc.scheme == scheme else [])
    if scheme == "data":
        return Finding("soft-ack", reasons=["fetch: data: URL"]) if reads else Finding.write("fetch: write to data:")
    if scheme == "file":
        hosts = {r.host or "" for r in readings}
        if not hosts <= {"", "localhost"}:
            return Finding.write("fetch: file: URL names a remote share", sensitive=True)
        if not reads:
            return Finding.write("fetch: write to a local file", sensitive=True)
        return Finding("soft-ack", sensitive=True, reasons=["fetch: local file read touches sensitive data"])
    if scheme in ("ws", "wss"):
        return Finding.write(f"fetch: {scheme}: opens a channel that sends data out")
    if scheme not in ("http", "https", "ftp"):
        return Finding.write(f"fetch: scheme {scheme!r} is not carved out: fail safe")
    hosted = [r for r in readings if r.host]
    if not hosted:
        return Finding.write("fetch: URL without a host: fail safe")
    if any(_is_metadata(r) for r in hosted):
        return Finding.write("fetch: cloud metadata service", sensitive=True)
    if any(_is_internal(r) for r in hosted):
        return Finding.write("fetch: internal network address")
    # Every parser must read the same plain loopback host: any doubt and
    # the request may go elsewhere.
    plain = url == url.strip() and not re.search(r"[\t\n\r]", url) and "%" not in (w.host or "")
    loopback = (scheme != "ftp" and plain and len(hosted) == len(readings) == 2
                and all(_is_loopback(r) for r in hosted) and len({r.host for r in hosted}) == 1)
    if w.userinfo and not loopback:
        return Finding.write("fetch: credentials in the URL", sensitive=True)
    if loopback:
        if reads:
            return Finding("auto", sensitive=w.userinfo, reasons=[f"fetch: {method} of a loopback URL"])
        return Finding(hard_to_reverse_local, state_change=True, sensitive=w.userinfo,
                       reasons=[f"fetch: {method} changes a local service"])
    if reads:
        return Finding("soft-ack", ingests=True, reasons=[f"fetch: {method} brings in untrusted content"])
    return Finding.write(f"fetch: {method} sends data to another host")
