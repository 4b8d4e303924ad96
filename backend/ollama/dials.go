package ollama

import (
	"context"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Dials counts the network connections a client opens, by the address
// dialled. It is the proof that Loupe works offline: every connection the
// app makes goes through the one transport built here (a test keeps any
// other dialling out of the code), so the list is every host Loupe has
// talked to since it started.
type Dials struct {
	mu sync.Mutex
	by map[string]*Connection
}

// Connection is what Dials knows of one address: how many connections
// were tried there and how many of them failed.
type Connection struct {
	// Host and Port are as dialled: the name the user gave (localhost,
	// gpu-box.lan) or an IP address.
	Host string `json:"host"`
	Port string `json:"port"`
	// Count is the connections tried; Failed those that did not connect.
	// A connection is reused for many requests while it stays open.
	Count  int `json:"count"`
	Failed int `json:"failed"`
	// Loopback is true while every connection there stayed on this
	// machine (the address it reached, or for a failed one the address
	// named, is a loopback address).
	Loopback bool `json:"loopback"`
	// Remote is the address the last connection reached, "" if none did.
	Remote string `json:"remote,omitempty"`
}

// NewDials returns an empty counter.
func NewDials() *Dials { return &Dials{by: map[string]*Connection{}} }

// HTTPClient returns an HTTP client whose every connection is counted:
// a dial timeout and no overall timeout, since answers stream for long.
func (d *Dials) HTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// A proxy ($HTTPS_PROXY; never used for loopback) is dialled through
	// DialContext too, so it is counted as what it is: the address dialled.
	dialer := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, addr)
		d.count(addr, conn)
		return conn, err
	}
	return &http.Client{Transport: t}
}

func (d *Dials) count(addr string, conn net.Conn) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = addr, ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.by[addr]
	if c == nil {
		c = &Connection{Host: host, Port: port, Loopback: true}
		d.by[addr] = c
	}
	c.Count++
	if conn == nil {
		c.Failed++
		c.Loopback = c.Loopback && namedLoopback(host)
		return
	}
	c.Remote = conn.RemoteAddr().String()
	ip := net.IP(nil)
	if ta, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		ip = ta.IP
	}
	c.Loopback = c.Loopback && ip != nil && ip.IsLoopback()
}

// namedLoopback says whether a host as dialled names this machine.
func namedLoopback(host string) bool {
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return ip.IsLoopback()
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// List returns every address dialled so far, by host then port.
func (d *Dials) List() []Connection {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Connection, 0, len(d.by))
	for _, c := range d.by {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Host != out[j].Host {
			return out[i].Host < out[j].Host
		}
		return out[i].Port < out[j].Port
	})
	return out
}
