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
	script := flag.String("script", "", "JSON script file with models and replies (required)")
	flag.Parse()
	if *script == "" {
		fmt.Fprintln(os.Stderr, "fakeollama: -script FILE is required")
		flag.Usage()
		os.Exit(2)
	}
	f, err := ollamatest.LoadScript(*script)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeollama:", err)
		os.Exit(1)
	}
	srv, err := ollamatest.Start(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeollama:", err)
		os.Exit(1)
	}
	srv.Load(f)
	fmt.Println("fakeollama listening on", srv.URL())

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	srv.Close()
}
