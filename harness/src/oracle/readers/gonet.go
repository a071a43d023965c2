// rbv URL reader: Go's net/url, as Go tools (net/http) read a URL.
//
// One JSON request per line on stdin ({"url": ..., "base": ...}), one JSON
// reading per line on stdout: {"ok", "host", "addr", "error"}, after a
// first line naming the parser. `host` is URL.Hostname() (an IPv6 literal
// without brackets, a zone kept); `addr` is the address net.Dial connects
// to when the host is an address literal (netip.ParseAddr: dotted-decimal
// IPv4 only, so 2130706433 or 127.1 are names to Go), else null.
package main

import (
	"bufio"
	"encoding/json"
	"net/netip"
	"net/url"
	"os"
	"runtime"
)

type request struct {
	URL  string  `json:"url"`
	Base *string `json:"base"`
}

type reading struct {
	OK    bool    `json:"ok"`
	Host  *string `json:"host"`
	Addr  *string `json:"addr"`
	Error *string `json:"error"`
}

func read(req request) reading {
	var u *url.URL
	var err error
	if req.Base != nil {
		var base *url.URL
		if base, err = url.Parse(*req.Base); err == nil {
			u, err = base.Parse(req.URL)
		}
	} else {
		u, err = url.Parse(req.URL)
	}
	if err != nil {
		msg := err.Error()
		return reading{Error: &msg}
	}
	out := reading{OK: true}
	if host := u.Hostname(); host != "" {
		out.Host = &host
		if a, err := netip.ParseAddr(host); err == nil {
			s := a.String()
			out.Addr = &s
		}
	}
	return out
}

func main() {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]string{"reader": "go", "version": "net/url (" + runtime.Version() + ")"})
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			msg := "bad request: " + err.Error()
			enc.Encode(reading{Error: &msg})
			continue
		}
		enc.Encode(read(req))
	}
}
