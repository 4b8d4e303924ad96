package main

import (
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

// The example script shipped beside the command must stay loadable.
func TestExampleScriptLoads(t *testing.T) {
	f, err := ollamatest.LoadScript("testdata/hello.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Models) != 1 || len(f.Replies) != 2 || f.Replies[1].DelayMS != 30 ||
		f.Replies[0].ToolCalls[0].Args != `{"path": "."}` {
		t.Errorf("loaded %+v", f)
	}
}
