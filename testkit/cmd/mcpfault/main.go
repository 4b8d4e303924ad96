// Command mcpfault is an MCP server (stdio) that misbehaves on request, for
// the tests of Loupe's MCP client: it crashes mid-call, hangs, answers a
// huge result, offers a tool with a schema that cannot be checked, changes
// its tool list, and answers every kind of content.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"what to say back"`
}

type hugeIn struct {
	Bytes int `json:"bytes" jsonschema:"how many bytes to answer"`
}

type empty struct{}

func main() {
	log.SetFlags(0)
	log.SetOutput(os.Stderr)
	log.Printf("mcpfault: started, pid %d", os.Getpid())
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpfault", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Say the text back."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Start a child that sleeps, then exit mid-call."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			child := exec.Command("sleep", "300")
			if err := child.Start(); err == nil {
				log.Printf("mcpfault: child %d started", child.Process.Pid)
			}
			log.Printf("mcpfault: crashing now")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never answer."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			log.Printf("mcpfault: hanging")
			select {}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "huge", Description: "Answer a huge text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in hugeIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "BEGIN" + strings.Repeat("x", in.Bytes) + "END"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Answer an error the tool reports itself."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the widget is broken"}}}, nil, nil
		})
	size := int64(4096)
	mcp.AddTool(s, &mcp.Tool{Name: "mixed", Description: "Answer an image, a resource link and an embedded resource."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "here they are"},
				&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)},
				&mcp.ResourceLink{URI: "file:///tmp/report.pdf", Name: "report", MIMEType: "application/pdf", Size: &size},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://notes", MIMEType: "text/plain", Text: "a note"}},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "structured", Description: "Answer structured content only."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"temperature": 21, "unit": "C"}}, nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "bad_schema", Description: "A tool whose schema points nowhere.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/missing"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "never"}}}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Add a tool named late to the list (tools/list_changed)."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: "late", Description: "A tool added later."},
				func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late answer"}}}, nil, nil
				})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added late"}}}, nil, nil
		})
	if os.Getenv("MCPFAULT_SLOW_START") != "" {
		time.Sleep(2 * time.Second)
	}
	if v := os.Getenv("MCPFAULT_SECRET"); v != "" {
		log.Printf("mcpfault: got a secret of %d bytes", len(v))
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcpfault:", err)
		os.Exit(1)
	}
}
