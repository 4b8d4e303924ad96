package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The example script shipped beside the command must stay loadable, and
// becomes the gguf.Script it spells.
func TestExampleScriptLoads(t *testing.T) {
	f, err := Load("testdata/list_dir.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Models) != 1 || f.Models[0].Name != "scripted" {
		t.Fatalf("loaded %+v", f)
	}
	sc := f.Models[0].Script()
	if !sc.CompactTools || len(sc.Steps) != 2 || sc.Steps[1].Answer != "The workspace has a README.md." {
		t.Errorf("script %+v", sc)
	}
	if c := sc.Steps[0].Call; len(c) != 1 || c[0].Name != "list_dir" || c[0].Args != `{"path": "."}` {
		t.Errorf("call %+v", c)
	}
	pieces, err := sc.Steps[0].Pieces()
	if err != nil || len(pieces) != 1 || !strings.Contains(pieces[0], `"arguments": {"path": "."}`) {
		t.Errorf("pieces %q, %v", pieces, err)
	}
}

func TestLoadRejects(t *testing.T) {
	for name, body := range map[string]string{
		"not json":      `{"models": [`,
		"unknown field": `{"models": [{"name": "m", "steps": [{"answr": "Hi."}]}]}`,
		"no models":     `{"models": []}`,
		"no name":       `{"models": [{"steps": [{"answer": "Hi."}]}]}`,
		"no steps":      `{"models": [{"name": "m"}]}`,
		"twice":         `{"models": [{"name": "m", "steps": [{"answer": "Hi."}]}, {"name": "m", "steps": [{"answer": "Hi."}]}]}`,
		"args not obj":  `{"models": [{"name": "m", "steps": [{"calls": [{"name": "f", "args": [1]}]}]}]}`,
		"raw and more":  `{"models": [{"name": "m", "steps": [{"answer": "Hi.", "raw": ["x"]}]}]}`,
	} {
		p := filepath.Join(t.TempDir(), "s.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	// tool_schemas turns CompactTools off.
	m := Model{Name: "m", ToolSchemas: true, Steps: []Step{{Answer: "Hi."}}}
	if m.Script().CompactTools {
		t.Error("tool_schemas: CompactTools still on")
	}
}
