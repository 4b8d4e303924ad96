// Package ollama is Loupe's client for a local Ollama server, and the only
// package that imports github.com/ollama/ollama/api. It streams chat
// answers into llm types, lists and describes models, and turns Ollama's
// failures into typed errors whose messages say what to do.
package ollama

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"
)

// DefaultHost is where Ollama listens unless OLLAMA_HOST says otherwise.
const DefaultHost = "http://127.0.0.1:11434"

// FallbackNumCtx is the context size used when neither the model nor the
// setting gives one.
const FallbackNumCtx = 4096

// dialTimeout bounds connecting only: answers stream for minutes, so the
// default client has no overall timeout.
const dialTimeout = 5 * time.Second

// Timeouts bound how long Chat waits for Ollama; a zero field waits
// without a bound. FirstToken runs from sending the request to the first
// byte of the answer, so it includes loading the model into memory and
// reading the whole prompt. Stall runs from each piece of the answer to
// the next; Ollama sends nothing while the model writes a tool call, so it
// must cover writing the longest one.
type Timeouts struct {
	FirstToken time.Duration
	Stall      time.Duration
}

// The default timeouts. Loading a large model from a slow disk takes
// minutes (Ollama's own OLLAMA_LOAD_TIMEOUT gives up on a load that makes
// no progress for 5 minutes), and on a CPU a long prompt takes minutes
// more to read; a tool call that writes a whole file streams nothing for
// as long as the model takes to write it.
const (
	DefaultFirstTokenTimeout = 10 * time.Minute
	DefaultStallTimeout      = 5 * time.Minute
)

// DefaultTimeouts are the timeouts of a new client.
func DefaultTimeouts() Timeouts {
	return Timeouts{FirstToken: DefaultFirstTokenTimeout, Stall: DefaultStallTimeout}
}

// Client talks to one Ollama server at a time; SetHost moves it to
// another while calls run.
type Client struct {
	// ep is where calls go. It is replaced whole, never changed, so a call
	// that loads it once talks to one server from start to end (a streamed
	// answer finishes where it began) and names that server in its errors.
	ep atomic.Pointer[endpoint]
	*shared
}

// shared is what a client and the clients At makes of it have in common.
type shared struct {
	hc *http.Client // for Chat, which streams without api.Client
	// dials counts hc's connections; nil when the caller gave hc.
	dials *Dials
	// sent keeps the JSON of messages sent lately: a conversation's
	// history is encoded once, not again in each of its requests. The
	// encoding does not depend on the host, so it outlives SetHost.
	sent     *messageCache
	timeouts atomic.Pointer[Timeouts]
}

// endpoint is one Ollama server as the client talks to it.
type endpoint struct {
	host string // normalised base URL, for messages
	base *url.URL
	api  *api.Client // for everything but Chat
}

func (c *Client) newEndpoint(host string) *endpoint {
	u := parseHost(host)
	return &endpoint{host: u.String(), base: u, api: api.NewClient(u, c.hc)}
}

// at is the server calls starting now go to.
func (c *Client) at() *endpoint { return c.ep.Load() }

// New returns a client for host, which may be written in any form
// OLLAMA_HOST accepts ("" means DefaultHost). A nil hc gets a client with a
// dial timeout and no overall timeout, since answers stream for long, that
// counts its connections (Connections).
func New(host string, hc *http.Client) *Client {
	sh := &shared{hc: hc, sent: newMessageCache()}
	if hc == nil {
		sh.dials = NewDials()
		sh.hc = sh.dials.HTTPClient()
	}
	c := &Client{shared: sh}
	c.ep.Store(c.newEndpoint(host))
	c.SetTimeouts(DefaultTimeouts())
	return c
}

// At returns a client for another host that shares this one's
// connections, their count, its timeouts and its cache of encoded
// messages: a session on a named host talks there through it, and
// SetHost on either client moves only that one.
func (c *Client) At(host string) *Client {
	n := &Client{shared: c.shared}
	n.ep.Store(n.newEndpoint(host))
	return n
}

// HTTPClient is the client calls go out through: the app's other
// connections (an OTLP collector) use it too, so that Connections lists
// every connection Loupe makes.
func (c *Client) HTTPClient() *http.Client { return c.hc }

// Connections lists every address the client (and the clients At made of
// it) has dialled, with how often; nil when New was given its own
// http.Client.
func (c *Client) Connections() []Connection {
	if c.dials == nil {
		return nil
	}
	return c.dials.List()
}

// SetHost points the client at another server, host written in any form
// New takes. Calls that start from now on go there; a call already under
// way (a streaming answer, a model list) finishes with the server it
// began with. It is safe to call while other calls run.
func (c *Client) SetHost(host string) {
	c.ep.Store(c.newEndpoint(host))
}

// SetTimeouts sets the bounds of the Chat calls that start from now on
// (see Timeouts; a zero field means no bound, a negative one counts as
// zero). It is safe to call while other calls run.
func (c *Client) SetTimeouts(t Timeouts) {
	t.FirstToken, t.Stall = max(t.FirstToken, 0), max(t.Stall, 0)
	c.timeouts.Store(&t)
}

// Timeouts returns the bounds Chat uses.
func (c *Client) Timeouts() Timeouts { return *c.timeouts.Load() }

// Host is the base URL the client talks to now.
func (c *Client) Host() string { return c.at().host }

// HostFromEnv returns the Ollama base URL from OLLAMA_HOST, read the way
// Ollama reads it ("host:port", "host", ":port", "0.0.0.0",
// "http://host:port/path", "https://host"), or DefaultHost. A listen-on-all
// address (0.0.0.0, ::) is turned into loopback, since that is where a
// client on the same machine reaches it.
func HostFromEnv() string {
	v := strings.Trim(strings.TrimSpace(os.Getenv("OLLAMA_HOST")), "\"'")
	return parseHost(v).String()
}

// NormalizeHost reads a host as New does, leniently: what cannot be read
// falls back to Ollama's defaults, as OLLAMA_HOST does. ParseHost is the
// strict reading, for what a person types.
func NormalizeHost(s string) string { return parseHost(s).String() }

// parseHost reads a host in the forms OLLAMA_HOST takes, following
// envconfig.Host in Ollama v0.17.4.
func parseHost(s string) *url.URL {
	s = strings.TrimSpace(s)
	defaultPort := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
		if s == "ollama.com" {
			scheme, hostport = "https", "ollama.com:443"
		}
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = "127.0.0.1", defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	}
	if n, err := strconv.ParseInt(port, 10, 32); err != nil || n < 0 || n > 65535 {
		port = defaultPort
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: path}
}

// HostExample is what an Ollama host is typed like, for messages.
const HostExample = "http://127.0.0.1:11434, localhost:11434 or https://gpu-box.lan"

// ParseHost checks a host a person typed and returns it normalised as
// Ollama reads OLLAMA_HOST ("localhost:11434" is "http://localhost:11434",
// "https://box" is "https://box:443"). Ollama itself reads anything, falling
// back to its defaults for what it cannot use, so a typo would silently
// send Loupe to 127.0.0.1; here it is refused with what is wrong instead.
// It accepts a scheme (http or https, else http), a host name or IP
// address, an optional port and an optional path (for a proxy). "" is not
// a host: callers decide what an empty field means.
func ParseHost(s string) (string, error) {
	s = strings.Trim(strings.TrimSpace(s), "\"'")
	if s == "" {
		return "", errors.New("no host given")
	}
	if strings.ContainsAny(s, " \t\r\n?#@\\") {
		return "", errors.New("it holds a space or one of ? # @ \\, which a host address cannot")
	}
	rest := s
	if scheme, after, ok := strings.Cut(s, "://"); ok {
		scheme = strings.ToLower(scheme)
		if scheme != "http" && scheme != "https" {
			return "", fmt.Errorf("the scheme must be http or https, not %q", scheme)
		}
		s, rest = scheme+"://"+after, after
	} else if strings.Contains(s, ":/") {
		return "", errors.New("write the scheme as http:// or https://")
	}
	hostport, _, _ := strings.Cut(rest, "/")
	if hostport == "" {
		return "", errors.New("there is no host name or address before the path")
	}
	host, port, err := net.SplitHostPort(hostport)
	switch {
	case err == nil:
		if n, perr := strconv.Atoi(port); perr != nil || n < 1 || n > 65535 || port != strconv.Itoa(n) {
			return "", fmt.Errorf("the port must be a number from 1 to 65535, not %q", port)
		}
	case net.ParseIP(strings.Trim(hostport, "[]")) != nil:
		host = hostport // an IPv6 address without a port, bracketed or not
	case strings.Contains(hostport, ":"):
		return "", fmt.Errorf("%q is not a host and port (an IPv6 address with a port goes in brackets: [::1]:11434)", hostport)
	default:
		host = hostport
	}
	// ":11434" is loopback, as Ollama reads it.
	if host != "" && net.ParseIP(strings.Trim(host, "[]")) == nil && !validHostName(host) {
		return "", fmt.Errorf("%q is not a host name or IP address", host)
	}
	return parseHost(s).String(), nil
}

// validHostName reports whether h is a DNS name of letters, digits, '-'
// and '_' in dot-separated labels (what a resolver would look up).
func validHostName(h string) bool {
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

// shortCallTimeout bounds the calls other than Chat (ping, version, list,
// show): Ollama answers them from what it has at hand in milliseconds, also
// while it loads a model, so one that takes this long means it is stuck or
// its process is stopped.
var shortCallTimeout = 30 * time.Second

// short makes a call other than Chat, named by request, within
// shortCallTimeout: a *TimeoutError if the bound ran out, else what f
// returned, classified.
func (ep *endpoint) short(ctx context.Context, request, model string, f func(context.Context, *api.Client) error) error {
	te := &TimeoutError{After: shortCallTimeout, Request: request, Host: ep.host}
	ctx, cancel := context.WithTimeoutCause(ctx, shortCallTimeout, te)
	defer cancel()
	err := f(ctx, ep.api)
	if err != nil && context.Cause(ctx) == error(te) {
		return te
	}
	return ep.classify(err, model)
}

// Ping checks that Ollama answers at the host (HEAD /).
func (c *Client) Ping(ctx context.Context) error {
	return c.at().short(ctx, "HEAD /", "", func(ctx context.Context, a *api.Client) error { return a.Heartbeat(ctx) })
}

// Version asks the server for its version.
func (c *Client) Version(ctx context.Context) (string, error) {
	v, _, err := c.VersionAt(ctx)
	return v, err
}

// VersionAt asks the server for its version, and says which server it
// asked: the host may change while the question is out.
func (c *Client) VersionAt(ctx context.Context) (version, host string, err error) {
	ep := c.at()
	err = ep.short(ctx, "GET /api/version", "", func(ctx context.Context, a *api.Client) (err error) {
		version, err = a.Version(ctx)
		return err
	})
	return version, ep.host, err
}

// ModelInfo describes an installed model.
type ModelInfo struct {
	Name          string   `json:"name"`
	Size          int64    `json:"size"`
	Family        string   `json:"family"`
	ParameterSize string   `json:"parameter_size"`
	Quantization  string   `json:"quantization"`
	Capabilities  []string `json:"capabilities"`
	// ContextLength is the model's trained context, 0 if it reports none.
	ContextLength int       `json:"context_length"`
	ModifiedAt    time.Time `json:"modified_at"`
}

// SupportsTools reports whether the model accepts tool schemas.
func (m ModelInfo) SupportsTools() bool { return slices.Contains(m.Capabilities, "tools") }

// SupportsThinking reports whether the model can separate its reasoning.
func (m ModelInfo) SupportsThinking() bool { return slices.Contains(m.Capabilities, "thinking") }

// Models lists the installed models, most recently modified first, each
// with the details only /api/show gives (capabilities, context length).
// A model whose details cannot be read is still listed, with what
// /api/tags says about it.
func (c *Client) Models(ctx context.Context) ([]ModelInfo, error) {
	// One server for the list and the details of its models.
	ep := c.at()
	var list *api.ListResponse
	err := ep.short(ctx, "GET /api/tags", "", func(ctx context.Context, a *api.Client) (err error) {
		list, err = a.List(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]ModelInfo, 0, len(list.Models))
	for _, lm := range list.Models {
		mi, err := ep.show(ctx, lm.Name)
		if err != nil {
			var (
				unreachable *UnreachableError
				timeout     *TimeoutError
			)
			if errors.As(err, &unreachable) || errors.As(err, &timeout) || ctx.Err() != nil {
				return nil, err
			}
			mi = ModelInfo{
				Family:        lm.Details.Family,
				ParameterSize: lm.Details.ParameterSize,
				Quantization:  lm.Details.QuantizationLevel,
			}
		}
		mi.Name = lm.Name
		mi.Size = lm.Size
		mi.ModifiedAt = lm.ModifiedAt
		out = append(out, mi)
	}
	return out, nil
}

// Show describes one model. Size is not part of /api/show and is left 0;
// Models fills it.
func (c *Client) Show(ctx context.Context, name string) (ModelInfo, error) {
	return c.at().show(ctx, name)
}

func (ep *endpoint) show(ctx context.Context, name string) (ModelInfo, error) {
	var resp *api.ShowResponse
	err := ep.short(ctx, "POST /api/show", name, func(ctx context.Context, a *api.Client) (err error) {
		resp, err = a.Show(ctx, &api.ShowRequest{Model: name})
		return err
	})
	if err != nil {
		return ModelInfo{}, err
	}
	mi := ModelInfo{
		Name:          name,
		Family:        resp.Details.Family,
		ParameterSize: resp.Details.ParameterSize,
		Quantization:  resp.Details.QuantizationLevel,
		ContextLength: contextLength(resp.ModelInfo),
		ModifiedAt:    resp.ModifiedAt,
		Capabilities:  make([]string, 0, len(resp.Capabilities)),
	}
	for _, c := range resp.Capabilities {
		mi.Capabilities = append(mi.Capabilities, string(c))
	}
	return mi, nil
}

// contextLength reads "<arch>.context_length" from show's model_info, where
// arch is "general.architecture"; failing that, any "*.context_length".
func contextLength(info map[string]any) int {
	if arch, ok := info["general.architecture"].(string); ok {
		if n, ok := toInt(info[arch+".context_length"]); ok {
			return n
		}
	}
	keys := make([]string, 0, len(info))
	for k := range info {
		if strings.HasSuffix(k, ".context_length") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if n, ok := toInt(info[k]); ok {
			return n
		}
	}
	return 0
}

func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		return int(n), n > 0
	case int:
		return n, n > 0
	case int64:
		return int(n), n > 0
	case string:
		i, err := strconv.Atoi(n)
		return i, err == nil && i > 0
	}
	return 0, false
}

// NumCtx is the num_ctx to send: the model's context length capped by the
// setting. Either may be 0 (unknown / no cap); the result is never 0.
func NumCtx(modelCtx, limit int) int {
	switch {
	case modelCtx > 0 && limit > 0:
		return min(modelCtx, limit)
	case modelCtx > 0:
		return modelCtx
	case limit > 0:
		return limit
	}
	return FallbackNumCtx
}

// errNoNumCtx is returned for a request without num_ctx: Loupe always sets
// it so Ollama never falls back to its silent default.
var errNoNumCtx = fmt.Errorf("ollama: request has no num_ctx; set llm.Options.NumCtx (see ollama.NumCtx)")
