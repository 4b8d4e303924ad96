package golden

import "testing"

func TestUnescapeHTML(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"command":"echo a \u003e b.txt \u0026\u0026 cat \u003c c"}`, `{"command":"echo a > b.txt && cat < c"}`},
		// An escaped backslash followed by the letters stays as it is.
		{`{"text":"a \\u003e b"}`, `{"text":"a \\u003e b"}`},
		{`{"text":"a \\\u003e b"}`, `{"text":"a \\> b"}`},
		{`{"text":"\"quoted\" \u00e9"}`, `{"text":"\"quoted\" \u00e9"}`},
	} {
		if got := string(unescapeHTML([]byte(tc.in))); got != tc.want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
