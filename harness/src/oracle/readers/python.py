"""rbv URL reader: Python's URL parsers, as agents' Python tools use them.

    python3 python.py urllib     urllib.parse.urlsplit (urllib.request, http.client)
    python3 python.py requests   urllib3.util.parse_url (requests, httpx-free urllib3 users)
    python3 python.py curl       libcurl's URL API through ctypes (what curl and
                                 programs linking libcurl read)

One JSON request per line on stdin ({"url": ..., "base": ...}), one JSON
reading per line on stdout: {"ok", "host", "addr", "error"}. `host` is the
host as the parser returns it (an IPv6 literal without brackets); `addr` is
the IP address the client would connect to when the host is an address:
for Python, what getaddrinfo makes of the host without DNS (AI_NUMERICHOST,
which also takes the inet_aton spellings 2130706433, 0x7f.1, 0177.0.0.1);
for libcurl, the host it hands its resolver, read the same way.
"""

import ctypes
import json
import socket
import sys


def numeric(host):
    """The address getaddrinfo reads `host` as, without DNS; None for a name."""
    if not host:
        return None
    try:
        infos = socket.getaddrinfo(host, None, 0, socket.SOCK_STREAM, 0, socket.AI_NUMERICHOST)
    except (OSError, UnicodeError, ValueError):
        return None
    return infos[0][4][0] if infos else None


def urllib_reader():
    from urllib.parse import urljoin, urlsplit

    def read(url, base):
        full = urljoin(base, url) if base is not None else url
        parts = urlsplit(full)
        host = parts.hostname
        parts.port  # http.client reads it: an invalid port is a failure
        return host

    return read, "urllib.parse (Python %d.%d.%d)" % sys.version_info[:3]


def requests_reader():
    import urllib3
    from urllib.parse import urljoin
    from urllib3.util import parse_url

    def read(url, base):
        full = urljoin(base, url) if base is not None else url
        host = parse_url(full).host
        if host and host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        return host

    return read, "urllib3.util.parse_url (urllib3 %s, as requests uses it)" % urllib3.__version__


class Curl:
    URL, HOST, ZONEID = 0, 5, 10
    NON_SUPPORT_SCHEME, GUESS_SCHEME = 1 << 3, 1 << 9

    def __init__(self):
        lib = ctypes.CDLL("libcurl.so.4")
        lib.curl_url.restype = ctypes.c_void_p
        lib.curl_url_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
        lib.curl_url_get.argtypes = [
            ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.c_uint]
        lib.curl_url_cleanup.argtypes = [ctypes.c_void_p]
        lib.curl_free.argtypes = [ctypes.c_void_p]
        lib.curl_version.restype = ctypes.c_char_p
        lib.curl_url_strerror.restype = ctypes.c_char_p
        lib.curl_url_strerror.argtypes = [ctypes.c_int]
        self.lib = lib

    def get(self, handle, part):
        out = ctypes.c_char_p()
        rc = self.lib.curl_url_get(handle, part, ctypes.byref(out), 0)
        if rc != 0:
            return None
        value = out.value.decode("utf-8", "backslashreplace")
        self.lib.curl_free(out)
        return value

    def read(self, url, base):
        # The flags libcurl itself uses for CURLOPT_URL (url.c,
        # parseurlandfillconn); a relative URL on a handle holding the base
        # is resolved the way curl follows a redirect.
        flags = self.GUESS_SCHEME | self.NON_SUPPORT_SCHEME
        handle = self.lib.curl_url()
        try:
            for text in ([base] if base is not None else []) + [url]:
                rc = self.lib.curl_url_set(
                    handle, self.URL, text.encode("utf-8", "surrogatepass"), flags)
                if rc != 0:
                    raise ValueError(self.lib.curl_url_strerror(rc).decode())
            host = self.get(handle, self.HOST)
            if host and host.startswith("[") and host.endswith("]"):
                host = host[1:-1]
                zone = self.get(handle, self.ZONEID)
                if zone:
                    host = "%s%%%s" % (host, zone)
            return host
        finally:
            self.lib.curl_url_cleanup(handle)


def curl_reader():
    curl = Curl()
    return curl.read, curl.lib.curl_version().decode().split()[0] + " URL API"


def clean(text):
    """Text JSON can carry: a lone surrogate (from the input) becomes U+FFFD."""
    if text is None:
        return None
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


READERS = {"urllib": urllib_reader, "requests": requests_reader, "curl": curl_reader}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in READERS:
        sys.exit("usage: python.py urllib|requests|curl")
    try:
        read, version = READERS[sys.argv[1]]()
    except Exception as e:  # a missing module or library: say which
        sys.exit("reader %s unavailable: %s" % (sys.argv[1], e))
    # The first line names the parser and its version (provenance).
    print(json.dumps({"reader": sys.argv[1], "version": version}), flush=True)
    for line in sys.stdin:
        try:
            req = json.loads(line)
            host = read(req["url"], req.get("base"))
            out = {"ok": True, "host": clean(host) or None, "addr": numeric(host), "error": None}
        except Exception as e:
            error = clean("%s: %s" % (type(e).__name__, e))
            out = {"ok": False, "host": None, "addr": None, "error": error}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
