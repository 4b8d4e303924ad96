package sandbox

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// piece is what OnOutput was given, and when.
type piece struct {
	stderr bool
	text   string
	at     time.Time
}

type pieces struct {
	mu  sync.Mutex
	got []piece
}

func (p *pieces) add(stderr bool, b []byte) {
	p.mu.Lock()
	p.got = append(p.got, piece{stderr, string(b), time.Now()})
	p.mu.Unlock()
}

// stream returns what one stream carried, joined.
func (p *pieces) stream(stderr bool) string {
	var b strings.Builder
	for _, x := range p.got {
		if x.stderr == stderr {
			b.WriteString(x.text)
		}
	}
	return b.String()
}

// A command's output reaches OnOutput while it runs, each stream told
// apart, and what was streamed is what Output keeps. Run both without
// confinement and confined, since the helper stands between the shell and
// the pipes.
func TestOutputIsStreamedWhileTheCommandRuns(t *testing.T) {
	script := "echo first; sleep 0.4; echo oops >&2; sleep 0.4; echo last"
	runners := map[string]func(t *testing.T, c Command) (Output, error){
		"local": func(t *testing.T, c Command) (Output, error) { return Local{}.Run(context.Background(), c) },
		"confined": func(t *testing.T, c Command) (Output, error) {
			requireLinux(t)
			return Confined{Workspace: c.Dir, BestEffort: true}.Run(context.Background(), c)
		},
	}
	for name, run := range runners {
		t.Run(name, func(t *testing.T) {
			var p pieces
			start := time.Now()
			out, err := run(t, Command{Dir: t.TempDir(), Script: script, Timeout: 30 * time.Second, OnOutput: p.add})
			end := time.Now()
			if err != nil {
				t.Fatal(err)
			}
			if got := p.stream(false); got != "first\nlast\n" {
				t.Errorf("stdout streamed %q", got)
			}
			if got := p.stream(true); got != "oops\n" {
				t.Errorf("stderr streamed %q", got)
			}
			if len(p.got) == 0 {
				t.Fatal("nothing was streamed")
			}
			if end.Sub(p.got[0].at) < 600*time.Millisecond {
				t.Fatalf("the first output came %v after the start and the command ended %v after it: not streamed",
					p.got[0].at.Sub(start), end.Sub(start))
			}
			var all strings.Builder
			for _, x := range p.got {
				all.WriteString(x.text)
			}
			// The confined runner may add a line of its own after the
			// command (when a protection is missing); the command's
			// output comes first, as streamed.
			if !strings.HasPrefix(out.Text, all.String()) || all.String() != "first\noops\nlast\n" {
				t.Errorf("kept %q, streamed %q", out.Text, all.String())
			}
		})
	}
}

// A command that writes more than the kept cap still streams everything
// it writes (capping what is shown is the caller's), and Run returns only
// after the last call.
func TestStreamingSeesAllOutput(t *testing.T) {
	var p pieces
	var after []piece
	out, err := Local{}.Run(context.Background(), Command{Dir: t.TempDir(), Script: "head -c 200000 /dev/zero | tr '\\0' x", OutputCap: 1000, OnOutput: p.add})
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	n := 0
	for _, x := range p.got {
		n += len(x.text)
	}
	after = append(after, p.got...)
	p.mu.Unlock()
	if n != 200000 || out.TotalBytes != 200000 || !out.Truncated {
		t.Fatalf("streamed %d bytes, output %+v", n, out.TotalBytes)
	}
	time.Sleep(50 * time.Millisecond)
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.got) != len(after) {
		t.Fatal("OnOutput was called after Run returned")
	}
}
