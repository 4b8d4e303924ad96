package viewer

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

// Whatever a string holds, its JSON escaped for a script element holds no
// <, > or & and no line separator, and reads back as the same string.
func TestEscapedJSONEndsNoElementAndKeepsTheValue(t *testing.T) {
	for _, s := range []string{
		"</script><script>alert(1)</script>", "<!-- <script>", "a\u2028b\u2029c", `\u003c already escaped \</script>`,
		"&lt; & > <", "\x00\x7f\u0085", "<\\/script>", "\"</script",
	} {
		js, _ := json.Marshal(map[string]string{"k": s})
		var raw bytes.Buffer
		enc := json.NewEncoder(&raw)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(map[string]string{"k": s})
		for _, in := range [][]byte{js, raw.Bytes()} {
			out := EscapeJSON(in)
			if bytes.ContainsAny(out, "<>&") || bytes.Contains(out, []byte("\u2028")) || bytes.Contains(out, []byte("\u2029")) {
				t.Fatalf("%q escaped is %s", s, out)
			}
			var back map[string]string
			if err := json.Unmarshal(out, &back); err != nil || back["k"] != s {
				t.Fatalf("%q came back as %q (%v)", s, back["k"], err)
			}
		}
	}
}

const tmpl = `<!doctype html><html><head><meta charset="UTF-8" /><!--loupe:csp--><title>x</title>` +
	`<script type="module">let a = /<style(?=\s)/; console.log(1)</script><style>body{color:red}</style></head>` +
	`<body><!--loupe:data--></body></html>`

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// The policy names the page's script and style by their hashes (a pattern
// for "<style" inside the script is not taken for a style), and the data
// and title go where the markers are.
func TestPageGetsItsPolicyAndData(t *testing.T) {
	p, err := parsePage(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	script := `let a = /<style(?=\s)/; console.log(1)`
	if want := "default-src 'none'; script-src " + hash(script) + "; style-src-elem " + hash("body{color:red}") + ";"; !strings.HasPrefix(p.csp, want) {
		t.Fatalf("policy %s\nwant it to start %s", p.csp, want)
	}
	loaded, bad = p, nil
	once.Do(func() {})
	var b bytes.Buffer
	if err := Write(&b, "a <b> & c", []byte(`{"t":"</script>"}`), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`<meta http-equiv="Content-Security-Policy" content="` + p.csp + `" />`, "<title>a &lt;b&gt; &amp; c</title>",
		`<script type="application/json" id="loupe-session">{"t":"\u003c/script\u003e"}</script><script type="application/json" id="loupe-raw">{}</script></body>`} {
		if !strings.Contains(out, want) {
			t.Fatalf("the page lacks %s:\n%s", want, out)
		}
	}
}

// A tree where the frontend was not built says what to do; a page that
// would load a file, or lacks its markers, is refused.
func TestPageThatCannotBeUsed(t *testing.T) {
	if _, err := parse(fstest.MapFS{"dist/README.md": {Data: []byte("x")}}); !errors.Is(err, ErrNotBuilt) || !strings.Contains(err.Error(), "npm run build") {
		t.Fatalf("no page: %v", err)
	}
	for _, bad := range []string{
		strings.Replace(tmpl, `<script type="module">`, `<script type="module" src="x.js">`, 1),
		strings.Replace(tmpl, "<!--loupe:data-->", "", 1),
		strings.Replace(tmpl, `<script type="module">let a = /<style(?=\s)/; console.log(1)</script>`, "", 1),
	} {
		if _, err := parsePage(bad); err == nil {
			t.Fatalf("accepted %s", bad)
		}
	}
}
