// Package viewer writes a shared replay: one HTML file that opens from disk
// in any browser, with no network and no server, and replays a session with
// the window's own components. The page is the frontend's second entry
// (frontend/viewer.html, built into dist/viewer.html with its script and
// styles inlined); this package puts the session into it as data and locks
// it down with a Content-Security-Policy that forbids every fetch.
package viewer

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"strings"
	"sync"

	"github.com/loupe-dev/loupe/backend/visible"
)

// dist holds the built page. The pattern names the folder, which keeps a
// README in the repository, so that this package compiles where the
// frontend was not built (a fresh clone: `go vet ./backend/...` and the
// tests that need no page) and an export says what to do instead.
// scripts/build.sh and scripts/test.sh build the frontend first.
//
//go:embed dist
var dist embed.FS

// ErrNotBuilt is returned when the binary was built without the viewer.
var ErrNotBuilt = errors.New("the shared replay's page was not built into this binary: run `npm run build` in frontend/, then build Loupe again")

// Markers the page holds (frontend/viewer.html) where the export writes.
const (
	cspMark  = "<!--loupe:csp-->"
	dataMark = "<!--loupe:data-->"
)

// IDs of the data elements, which the viewer's entry reads
// (frontend/src/lib/viewer/data.ts).
const (
	SessionID = "loupe-session"
	RawID     = "loupe-raw"
)

// page is the built page cut where the export writes: head (up to the
// policy's place), headRest (up to the title), body (up to the data's
// place) and end; csp is the policy for its inline script and styles.
type page struct {
	head, headRest, body, end string
	csp                       string
}

var (
	once   sync.Once
	loaded page
	bad    error
)

// Built reports whether the page is in this binary, or why not.
func Built() error {
	_, err := load()
	return err
}

func load() (page, error) {
	once.Do(func() { loaded, bad = parse(dist) })
	return loaded, bad
}

func parse(fsys fs.FS) (page, error) {
	b, err := fs.ReadFile(fsys, "dist/viewer.html")
	if errors.Is(err, fs.ErrNotExist) {
		return page{}, ErrNotBuilt
	}
	if err != nil {
		return page{}, err
	}
	return parsePage(string(b))
}

// parsePage splits the built page at its markers and its title, and works
// out the policy: the hash of each inline script and style it holds, and
// nothing else.
func parsePage(s string) (page, error) {
	c := strings.Index(s, cspMark)
	d := strings.Index(s, dataMark)
	if c < 0 || d < 0 || d < c || strings.Count(s, cspMark) != 1 || strings.Count(s, dataMark) != 1 {
		return page{}, fmt.Errorf("the shared replay's page lacks its markers %s and %s: build it again (npm run build in frontend/)", cspMark, dataMark)
	}
	afterCSP := s[c+len(cspMark) : d]
	t0 := strings.Index(afterCSP, "<title>")
	t1 := strings.Index(afterCSP, "</title>")
	if t0 < 0 || t1 < t0 {
		return page{}, errors.New("the shared replay's page has no <title>")
	}
	p := page{head: s[:c], headRest: afterCSP[:t0], body: afterCSP[t1+len("</title>"):], end: s[d+len(dataMark):]}
	scripts, styles, err := inline(s)
	if err != nil {
		return page{}, err
	}
	if len(scripts) == 0 {
		return page{}, errors.New("the shared replay's page holds no script: build it again (npm run build in frontend/)")
	}
	p.csp = policy(scripts, styles)
	return p, nil
}

// inline returns the text of every <script> and <style> element of s, in
// one pass from the start, so that text inside a script (a highlighter's
// pattern for "<style") is never taken for an element. A script with a src
// or a stylesheet link would need a fetch the policy forbids, so it is an
// error: the build inlines everything.
func inline(s string) (scripts, styles []string, err error) {
	for {
		i, tag := nextTag(s)
		if i < 0 {
			if strings.Contains(s, "<link rel=\"stylesheet\"") || strings.Contains(s, "<link rel=\"modulepreload\"") {
				return nil, nil, errors.New("the shared replay's page links a file: it must be inlined")
			}
			return scripts, styles, nil
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			return nil, nil, fmt.Errorf("the shared replay's page has an unclosed <%s", tag)
		}
		attrs := s[i+1+len(tag) : i+j]
		if strings.Contains(attrs, "src=") {
			return nil, nil, fmt.Errorf("the shared replay's page loads a %s from a file (%s): it must be inlined", tag, strings.TrimSpace(attrs))
		}
		rest := s[i+j+1:]
		closing := "</" + tag + ">"
		k := strings.Index(rest, closing)
		if k < 0 {
			return nil, nil, fmt.Errorf("the shared replay's page has an unclosed <%s>", tag)
		}
		if tag == "script" {
			scripts = append(scripts, rest[:k])
		} else {
			styles = append(styles, rest[:k])
		}
		s = rest[k+len(closing):]
	}
}

// nextTag is where the first <script or <style element of s starts, and
// which, or -1.
func nextTag(s string) (int, string) {
	sc, st := strings.Index(s, "<script"), strings.Index(s, "<style")
	switch {
	case sc < 0 && st < 0:
		return -1, ""
	case st < 0 || (sc >= 0 && sc < st):
		return sc, "script"
	default:
		return st, "style"
	}
}

// policy is the page's Content-Security-Policy: nothing may be fetched
// (no connection, no image, font or frame from anywhere), and only the
// page's own script and styles, named by their hashes, run. A script the
// session's content smuggled in would have no hash, so it would not run
// even if it got into the page. Style attributes are allowed: components
// set sizes and positions with them, and a style attribute runs nothing
// (and, with every fetch forbidden, sends nothing anywhere). Images and
// fonts may be data: URLs, which the bundle inlines.
func policy(scripts, styles []string) string {
	hashes := func(texts []string) string {
		var b strings.Builder
		for _, t := range texts {
			sum := sha256.Sum256([]byte(t))
			fmt.Fprintf(&b, " 'sha256-%s'", base64.StdEncoding.EncodeToString(sum[:]))
		}
		return b.String()
	}
	style := hashes(styles)
	if style == "" {
		style = " 'none'"
	}
	return "default-src 'none'; script-src" + hashes(scripts) + "; style-src-elem" + style +
		"; style-src-attr 'unsafe-inline'; img-src data:; font-src data:; connect-src 'none'; media-src 'none';" +
		" object-src 'none'; frame-src 'none'; worker-src 'none'; manifest-src 'none'; base-uri 'none'; form-action 'none'"
}

// Write writes the page for a session: title (any text: it is escaped),
// session (the JSON export of the session) and raw (the JSON of every
// request's body, see frontend/src/lib/viewer/data.ts), each embedded as
// JSON that no content can end early. Like every export, the file holds no
// character a terminal would obey (someone may print it): the title's and
// the JSON's control characters are written as escapes (package visible;
// the JSON keeps its value), and the page shows them as the window does.
func Write(w io.Writer, title string, session, raw []byte) error {
	p, err := load()
	if err != nil {
		return err
	}
	title = visible.Text(title)
	session, raw = []byte(visible.Text(string(session))), []byte(visible.Text(string(raw)))
	var b bytes.Buffer
	b.Grow(len(p.head) + len(p.headRest) + len(p.body) + len(p.end) + len(session) + len(raw) + 1024)
	b.WriteString(p.head)
	// The policy is hashes and keywords: nothing in it needs escaping.
	b.WriteString(`<meta http-equiv="Content-Security-Policy" content="` + p.csp + `" />`)
	b.WriteString(p.headRest)
	b.WriteString("<title>" + html.EscapeString(title) + "</title>")
	b.WriteString(p.body)
	writeData(&b, SessionID, session)
	writeData(&b, RawID, raw)
	b.WriteString(p.end)
	_, err = w.Write(b.Bytes())
	return err
}

// writeData writes JSON as the text of a <script type="application/json">:
// not run, and read back by the page with JSON.parse.
func writeData(b *bytes.Buffer, id string, js []byte) {
	b.WriteString(`<script type="application/json" id="` + id + `">`)
	b.Write(EscapeJSON(js))
	b.WriteString("</script>")
}

// EscapeJSON makes JSON text safe inside a script element: every <, > and &
// (which is all it takes to write </script>, <!-- or <script), and the line
// separators U+2028 and U+2029, become \u escapes. Outside its strings JSON
// holds none of these, and inside a string the escape is the same
// character, so the value is unchanged.
func EscapeJSON(js []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(js) + len(js)/16)
	last := 0
	for i := 0; i < len(js); i++ {
		var esc string
		switch c := js[i]; {
		case c == '<':
			esc = `\u003c`
		case c == '>':
			esc = `\u003e`
		case c == '&':
			esc = `\u0026`
		case c == 0xE2 && i+2 < len(js) && js[i+1] == 0x80 && (js[i+2] == 0xA8 || js[i+2] == 0xA9):
			esc = `\u2028`
			if js[i+2] == 0xA9 {
				esc = `\u2029`
			}
			b.Write(js[last:i])
			b.WriteString(esc)
			i += 2
			last = i + 1
			continue
		default:
			continue
		}
		b.Write(js[last:i])
		b.WriteString(esc)
		last = i + 1
	}
	b.Write(js[last:])
	return b.Bytes()
}
