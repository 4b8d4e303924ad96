// Command scripted-ollama runs a REAL Ollama server (testkit/realollama: the
// version go.mod pins, built and cached by scripts/real-ollama/build.sh)
// serving scripted models (testkit/gguf), for end-to-end tests of the app
// against real Ollama outside `go test`.
//
//	scripted-ollama -script testdata/list_dir.json [-addr 127.0.0.1:11999]
//
// The script file names the models to create and what each says at each of
// its turns:
//
//	{"models": [{
//	  "name": "scripted",
//	  "steps": [
//	    {"calls": [{"name": "list_dir", "args": {"path": "."}}]},
//	    {"answer": "The workspace has a README.md."}
//	  ]
//	}]}
//
// A model's fields: name; steps, each with think, answer, calls
// ([{name, args}], args a JSON object), raw (exact text pieces, replacing the
// others) and repeat (see gguf.Step); thinking, no_tools and num_ctx (see
// gguf.Script); tool_schemas, which prints every tool's JSON schema into the
// prompt as Qwen's template does. By default only the tools' names are
// printed (gguf.Script.CompactTools), which keeps prompt evaluation short.
//
// The server binary is $LOUPE_OLLAMA_BIN, or the one build.sh caches (which
// builds it, for minutes, the first time). Once the models exist it prints
// one line to stdout:
//
//	scripted-ollama listening on http://127.0.0.1:PORT
//
// It stops the server and its model runners (their whole process group) and
// exits on SIGINT, SIGTERM or SIGHUP, when its stdin reaches end of file (so
// that it dies with a parent that holds a pipe to it; -ignore-stdin turns
// this off for shells that give background jobs /dev/null), and, with status
// 1, when the server dies by itself.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/realollama"
)

// File is the script file's shape.
type File struct {
	Models []Model `json:"models"`
}

// Model is one scripted model to create.
type Model struct {
	Name        string `json:"name"`
	Steps       []Step `json:"steps"`
	Thinking    bool   `json:"thinking,omitempty"`
	NoTools     bool   `json:"no_tools,omitempty"`
	NumCtx      int    `json:"num_ctx,omitempty"`
	ToolSchemas bool   `json:"tool_schemas,omitempty"`
}

// Step is gguf.Step with calls' arguments as JSON objects.
type Step struct {
	Think  string   `json:"think,omitempty"`
	Answer string   `json:"answer,omitempty"`
	Calls  []Call   `json:"calls,omitempty"`
	Raw    []string `json:"raw,omitempty"`
	Repeat string   `json:"repeat,omitempty"`
}

// Call is one tool call of a step.
type Call struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// Script is the model's gguf.Script.
func (m Model) Script() gguf.Script {
	sc := gguf.Script{Thinking: m.Thinking, NoTools: m.NoTools, NumCtx: m.NumCtx, CompactTools: !m.ToolSchemas}
	for _, st := range m.Steps {
		g := gguf.Step{Think: st.Think, Answer: st.Answer, Raw: st.Raw, Repeat: st.Repeat}
		for _, c := range st.Calls {
			g.Call = append(g.Call, gguf.Call{Name: c.Name, Args: string(c.Args)})
		}
		sc.Steps = append(sc.Steps, g)
	}
	return sc
}

// Load reads and checks a script file: every model has a name and steps, and
// a script the gguf package can build.
func Load(path string) (File, error) {
	var f File
	b, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	if len(f.Models) == 0 {
		return f, fmt.Errorf("%s: no models", path)
	}
	seen := map[string]bool{}
	for i, m := range f.Models {
		switch {
		case m.Name == "":
			return f, fmt.Errorf("%s: model %d has no name", path, i)
		case seen[m.Name]:
			return f, fmt.Errorf("%s: model %s is listed twice", path, m.Name)
		case len(m.Steps) == 0:
			return f, fmt.Errorf("%s: model %s has no steps", path, m.Name)
		}
		seen[m.Name] = true
		if err := gguf.Write(io.Discard, m.Script()); err != nil {
			return f, fmt.Errorf("%s: model %s: %w", path, m.Name, err)
		}
	}
	return f, nil
}

func main() { os.Exit(run()) }

func run() int {
	script := flag.String("script", "", "JSON file naming the models and their steps (required)")
	addr := flag.String("addr", "", "host:port to serve on (default: a free loopback port)")
	serverLog := flag.String("server-log", "", "copy the server's log to this file when stopping")
	ignoreStdin := flag.Bool("ignore-stdin", false, "keep running when stdin reaches end of file")
	flag.Parse()
	if *script == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "scripted-ollama: -script FILE is required, and nothing else")
		flag.Usage()
		return 2
	}
	f, err := Load(*script)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scripted-ollama:", err)
		return 1
	}

	// A parent that dies closes our stdout and stderr with our stdin: a write
	// to them would then kill this process with SIGPIPE before it stops the
	// server. Ignored, such writes fail instead.
	signal.Ignore(syscall.SIGPIPE)

	// Listen for the stop requests before starting anything, so that one
	// arriving during start-up still stops what was started.
	stop := make(chan string, 2)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() { stop <- (<-sig).String() }()
	if !*ignoreStdin {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop <- "end of stdin"
		}()
	}

	type started struct {
		srv *realollama.Server
		err error
	}
	up := make(chan started, 1)
	go func() {
		srv, err := realollama.LaunchAt(*addr)
		if err == nil {
			err = createModels(srv, f)
		}
		up <- started{srv, err}
	}()

	var s started
	select {
	case s = <-up:
	case why := <-stop:
		fmt.Fprintf(os.Stderr, "scripted-ollama: %s during start-up: stopping\n", why)
		if s = <-up; s.err != nil {
			fmt.Fprintln(os.Stderr, "scripted-ollama:", s.err)
		}
		shutdown(s.srv, *serverLog)
		return 1
	}
	if s.err != nil {
		fmt.Fprintln(os.Stderr, "scripted-ollama:", s.err)
		if s.srv != nil {
			fmt.Fprintf(os.Stderr, "end of the server log:\n%s\n", tail(s.srv.Log(), 8<<10))
		}
		shutdown(s.srv, *serverLog)
		return 1
	}
	srv := s.srv
	// The process group, for whoever must clean up after a SIGKILL of this
	// command, which cannot stop the server.
	fmt.Fprintf(os.Stderr, "scripted-ollama: ollama serve pid %d (leads process group %d); folder %s\n", srv.PID(), srv.PID(), srv.Dir())
	fmt.Printf("scripted-ollama listening on %s\n", srv.URL())

	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case why := <-stop:
			fmt.Fprintf(os.Stderr, "scripted-ollama: %s: stopping the server\n", why)
			shutdown(srv, *serverLog)
			return 0
		case <-tick.C:
			if !srv.Running() {
				fmt.Fprintf(os.Stderr, "scripted-ollama: the server exited by itself; end of its log:\n%s\n", tail(srv.Log(), 8<<10))
				shutdown(srv, *serverLog)
				return 1
			}
		}
	}
}

func createModels(srv *realollama.Server, f File) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var errs []error
	for _, m := range f.Models {
		errs = append(errs, srv.Create(ctx, m.Name, m.Script()))
	}
	return errors.Join(errs...)
}

// shutdown kills the server's process group, keeps its log if asked, and
// removes its folder.
func shutdown(srv *realollama.Server, logCopy string) {
	if srv == nil {
		return
	}
	srv.Kill()
	if logCopy != "" {
		if err := os.WriteFile(logCopy, []byte(srv.Log()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "scripted-ollama:", err)
		}
	}
	if err := srv.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "scripted-ollama:", err)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
