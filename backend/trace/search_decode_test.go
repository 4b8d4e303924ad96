package trace

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// fill sets every string in v (fields, elements, map values, through
// pointers; two elements per slice) to what text gives for its path, and
// every json.RawMessage to an object of two such strings.
func fill(v reflect.Value, path string, text func(path string) string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(text(path))
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem(), path, text)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), path+"."+v.Type().Field(i).Name, text)
			}
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			b, _ := json.Marshal(map[string]any{"content": text(path + ".content"), "n": 1, "list": []string{text(path + ".list")}})
			v.SetBytes(b)
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), fmt.Sprintf("%s[%d]", path, i), text)
		}
		v.Set(s)
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, path+"[k]", text)
		m.SetMapIndex(reflect.ValueOf(text(path+"{key}")).Convert(v.Type().Key()), e)
		v.Set(m)
	}
}

// Long strings decoded apart give the text a whole decode gives: for every
// payload type, every string in it long (each its own, all the same one,
// long with escapes, just over and just under the length where a string
// is taken out) or short.
func TestSearchTextOfLongStringsIsTheWholeDecodesText(t *testing.T) {
	payloads := []interface{ kind() Kind }{UserMessage{}, ModelRequest{}, ModelResponse{}, ToolCall{}, Permission{}, ToolResult{},
		Notice{}, Error{}, RunEnd{}, Checkpoint{}, Edit{}, Restore{}, Compaction{}}
	long := strings.Repeat("line \"quoted\"\tand\\ a tab, é and 日本\n", 40)
	texts := map[string]func(path string) string{
		"each its own": func(path string) string { return path + ": " + long },
		"all the same": func(string) string { return long },
		"escapes only": func(path string) string { return path + strings.Repeat("\n\t\"\\", 200) },
		"just over":    func(path string) string { return strings.Repeat("x", longString+1-len(path)) + path },
		"just under":   func(path string) string { return strings.Repeat("x", longString-len(path)) + path },
		"short":        func(path string) string { return "short " + path },
		"mixed": func(path string) string {
			if len(path)%2 == 0 {
				return path
			}
			return path + long
		},
	}
	for _, p := range payloads {
		for name, text := range texts {
			v := reflect.New(reflect.TypeOf(p)).Elem()
			fill(v, "", text)
			raw, err := json.Marshal(v.Interface())
			if err != nil {
				t.Fatal(err)
			}
			e := Event{Kind: p.kind(), Payload: raw}
			fast, ok := searchText(e, true)
			whole, _ := searchText(e, false)
			if !ok || fast != whole {
				t.Errorf("%s, %s: fast %v, %.200q\nwhole %.200q", e.Kind, name, ok, fast, whole)
			}
			if _, l, took := takeLong(e.Payload); name == "each its own" && e.Kind != KindModelRequest && e.Kind != KindCheckpoint && (!took || len(l.vals) == 0) {
				t.Errorf("%s: nothing was taken out of a payload of long strings", e.Kind)
			}
		}
	}
}

// A payload the fast path cannot tell from its stand-ins is decoded whole:
// one that holds a NUL of its own, one whose long string does not decode.
func TestSearchTextOfPayloadsTheFastPathLeaves(t *testing.T) {
	long := strings.Repeat("a long line of output\n", 60)
	for name, payload := range map[string]string{
		"a NUL of its own":        `{"content":"\u00000 is not a stand-in","name":"` + strings.ReplaceAll(long, "\n", `\n`) + `"}`,
		"a long string, bad \\x":  `{"content":"` + strings.ReplaceAll(long, "\n", `\x`) + `"}`,
		"not JSON after the long": `{"content":"` + strings.ReplaceAll(long, "\n", `\n`) + `",}`,
		"a string not closed":     `{"content":"` + strings.ReplaceAll(long, "\n", `\n`),
	} {
		e := Event{Kind: KindToolResult, Payload: json.RawMessage(payload)}
		var want string
		if p, err := Decode[ToolResult](e); err == nil {
			want = p.Content
		}
		if got := SearchText(e); got != want {
			t.Errorf("%s: %.80q, want %.80q", name, got, want)
		}
	}
}

// SearchText takes the fast path where a payload has long strings, and
// only there.
func TestSearchTextDecodesLongStringsApart(t *testing.T) {
	long := New(KindToolResult, 1, 1, ToolResult{CallID: "c", Name: "read_file", Content: strings.Repeat("x := 1\n", 200)})
	short := New(KindToolResult, 1, 1, ToolResult{CallID: "c", Name: "read_file", Content: "x := 1"})
	for _, c := range []struct {
		e    Event
		fast bool
	}{{long, true}, {short, false}} {
		tb := textBuilder{fast: true}
		p, err := decodeText[ToolResult](c.e, &tb)
		if err != nil {
			t.Fatal(err)
		}
		if got := tb.longs != nil; got != c.fast {
			t.Errorf("%d bytes of content: decoded apart %v, want %v", len(p.Content), got, c.fast)
		}
		if tb.longs.swap(p.Content) == "" {
			t.Errorf("no content")
		}
	}
}

func BenchmarkSearchTextLongOutput(b *testing.B) {
	content := strings.Repeat("\tif err := foo.bar(); err != nil {\n\t\treturn fmt.Errorf(\"x: %w\", err)\n", 1200)
	e := New(KindToolResult, 1, 1, ToolResult{CallID: "c1", Name: "run_command", Content: content})
	for _, fast := range []bool{false, true} {
		b.Run(fmt.Sprintf("fast=%v", fast), func(b *testing.B) {
			b.SetBytes(int64(len(e.Payload)))
			for b.Loop() {
				searchText(e, fast)
			}
		})
	}
}
