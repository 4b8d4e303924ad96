// Command fakeollama runs the ollamatest fake Ollama server as a process,
// serving a scripted conversation from a JSON file, for end-to-end tests of
// the app in a browser or window without a real model.
//
//	fakeollama -script testdata/hello.json -addr 127.0.0.1:11999
//
// The script file is an ollamatest.ScriptFile:
//
//	{
//	  "models":  [{"name": "tiny", "family": "qwen3", "context_length": 8192,
//	               "capabilities": ["completion", "tools"]}],
//	  "replies": [
//	    {"tool_calls": [{"name": "list_dir", "args": {"path": "."}}]},
//	    {"chunks": [{"content": "Done."}], "delay_ms": 30}
//	  ],
//	  "repeat": false
//	}
//
// "pullable" lists models /api/pull installs, each {"model": {...},
// "layers": [sizes]}, streaming its progress with "pull_delay_ms" between
// lines; "offline": true makes every pull fail as Ollama does without a
// network.
//
// A reply's "delay_ms" is waited between its lines, "load_ms" before its
// first byte (as while Ollama loads a model), and a "fault" such as
// {"kind": "stall", "after": 2} stops it after that many lines, to try
// what Loupe does when Ollama stops sending.
//
// With -rounds N it answers conversations of any length without a script,
// instantly, for benchmarks of the tool loop: every chat request gets one
// list_dir call until the conversation holds N-1 answers of the model, and
// then a text answer, so each conversation has N rounds. The call's path is
// "." and "./" in turn (the same folder), so that a client that stops a
// model repeating the same call does not stop this one; with -calls K each
// round asks for K such calls at once, as a model calling tools in
// parallel does, and with -env-every M every Mth round's last call writes
// .env, which Loupe refuses. It holds
// any number of conversations, one after the other or at once, because the
// round is read from each request's history. Its work per request does not
// grow with the history: the messages are counted, not decoded, and no
// request is kept once answered. Without -script it installs one model,
// "tiny"; with -script, the script's replies come first. -save-request FILE
// writes the body of the first chat request that carries tools to FILE, byte
// for byte, so that another client can send the same tools, system prompt
// and options.
//
// Once listening it prints "fakeollama listening on URL" to stdout. It
// stops on SIGINT or SIGTERM.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	script := flag.String("script", "", "JSON script file with models and replies (required without -rounds)")
	rounds := flag.Int("rounds", 0, "answer each conversation with N-1 list_dir calls, then text: N rounds")
	calls := flag.Int("calls", 1, "with -rounds: list_dir calls the model asks for at once in each round")
	envEvery := flag.Int("env-every", 0, "with -rounds: every Nth round's last call writes .env (a protected path) instead")
	saveRequest := flag.String("save-request", "", "with -rounds: write the body of the first chat request with tools to this file")
	flag.Parse()
	if *script == "" && *rounds <= 0 {
		fmt.Fprintln(os.Stderr, "fakeollama: -script FILE or -rounds N is required")
		flag.Usage()
		os.Exit(2)
	}
	var f ollamatest.ScriptFile
	if *script != "" {
		var err error
		if f, err = ollamatest.LoadScript(*script); err != nil {
			fmt.Fprintln(os.Stderr, "fakeollama:", err)
			os.Exit(1)
		}
	} else {
		f.Models = []ollamatest.ModelSpec{roundsModel}
	}
	start := ollamatest.Start
	if *rounds > 0 {
		start = func(addr string) (*ollamatest.Server, error) {
			return ollamatest.StartWrapped(addr, reshape(*saveRequest))
		}
	}
	srv, err := start(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeollama:", err)
		os.Exit(1)
	}
	srv.Load(f)
	if *rounds > 0 {
		srv.Respond(roundsResponder(srv, *rounds, *calls, *envEvery))
	}
	fmt.Println("fakeollama listening on", srv.URL())

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	srv.Close()
}
