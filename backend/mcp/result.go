package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/backend/tools"
)

// resultOf turns a server's answer into what the model reads, as the
// built-in tools' results: text as it is, structured content as JSON when
// there is no text, images, audio and resources described (kind, type,
// size), not inlined; isError kept; the whole capped as a command's
// output.
func resultOf(r *sdk.CallToolResult) tools.Result {
	var parts []string
	hasText := false
	for _, c := range r.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			hasText = true
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %s; not shown to the model]", orUnknown(c.MIMEType), size(len(c.Data))))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %s; not shown to the model]", orUnknown(c.MIMEType), size(len(c.Data))))
		case *sdk.ResourceLink:
			parts = append(parts, link(c))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(c.Resource))
		default:
			b, _ := json.Marshal(c)
			parts = append(parts, fmt.Sprintf("[content Loupe does not know: %s]", b))
		}
	}
	if r.StructuredContent != nil && !hasText {
		b, err := json.Marshal(r.StructuredContent)
		if err == nil {
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if text == "" {
		text = "(no output)"
	}
	text, cut := tools.Capped(text)
	return tools.Result{Content: text, IsError: r.IsError, Truncated: cut}
}

func link(c *sdk.ResourceLink) string {
	var b strings.Builder
	b.WriteString("[resource link: ")
	if c.Name != "" {
		b.WriteString(c.Name + " ")
	}
	b.WriteString("<" + c.URI + ">")
	var facts []string
	if c.MIMEType != "" {
		facts = append(facts, c.MIMEType)
	}
	if c.Size != nil {
		facts = append(facts, size(int(*c.Size)))
	}
	if len(facts) > 0 {
		b.WriteString(" (" + strings.Join(facts, ", ") + ")")
	}
	if c.Description != "" {
		b.WriteString(": " + c.Description)
	}
	b.WriteString("]")
	return b.String()
}

func embedded(r *sdk.ResourceContents) string {
	if r == nil {
		return "[resource: empty]"
	}
	if r.Text != "" {
		return fmt.Sprintf("[resource <%s>]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource <%s>: %s, %s; not shown to the model]", r.URI, orUnknown(r.MIMEType), size(len(r.Blob)))
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
