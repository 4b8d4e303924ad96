package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/loupe-dev/loupe/backend/llm"
)

// A body sent again: "Try this request on…" posts the bytes of a recorded
// request (or a copy the user edited) as they are, through the same
// streaming and error handling as Chat, so what the server receives is
// exactly the body the user was shown.

// BodyFacts is what Loupe reads of a chat body before sending it: enough to
// check the model can take it and to show its meter beside the answer.
type BodyFacts struct {
	Model       string
	NumCtx      int
	Temperature float64
	Tools       []string // the names of the tools it offers
	Messages    int
	Think       bool // the body asks for thinking
}

// ReadChatBody checks that body is a chat request Ollama can read (a JSON
// object naming a model, with a list of messages) and returns what it says.
// Its errors say what to fix in the body.
func ReadChatBody(body []byte) (BodyFacts, error) {
	var b struct {
		Model    *string            `json:"model"`
		Messages *[]json.RawMessage `json:"messages"`
		Tools    []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		Options map[string]json.RawMessage `json:"options"`
		Think   json.RawMessage            `json:"think"`
	}
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] != '{' {
		return BodyFacts{}, errors.New("the request body must be one JSON object, as Ollama's /api/chat takes it")
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	if err := dec.Decode(&b); err != nil {
		return BodyFacts{}, fmt.Errorf("the request body is not a chat request Ollama can read: %v", err)
	}
	if dec.More() || dec.InputOffset() != int64(len(t)) {
		return BodyFacts{}, errors.New("the request body holds more than one JSON value; keep only the request object")
	}
	if b.Model == nil || strings.TrimSpace(*b.Model) == "" {
		return BodyFacts{}, errors.New(`the request body names no model: give it "model"`)
	}
	if b.Messages == nil {
		return BodyFacts{}, errors.New(`the request body has no "messages" list`)
	}
	f := BodyFacts{Model: *b.Model, Messages: len(*b.Messages)}
	if raw, ok := b.Options["num_ctx"]; ok {
		if err := json.Unmarshal(raw, &f.NumCtx); err != nil || f.NumCtx <= 0 {
			return BodyFacts{}, fmt.Errorf("the request body's options.num_ctx must be a whole number above 0, not %s", raw)
		}
	}
	if raw, ok := b.Options["temperature"]; ok {
		if err := json.Unmarshal(raw, &f.Temperature); err != nil {
			return BodyFacts{}, fmt.Errorf("the request body's options.temperature must be a number, not %s", raw)
		}
	}
	for _, tl := range b.Tools {
		f.Tools = append(f.Tools, tl.Function.Name)
	}
	if len(b.Think) > 0 {
		var tv api.ThinkValue
		if err := json.Unmarshal(b.Think, &tv); err != nil {
			return BodyFacts{}, fmt.Errorf("the request body's think must be true, false or a level: %v", err)
		}
		f.Think = tv.Bool()
	}
	return f, nil
}

// BodyChanges are the fields SetChatFields changes; a zero field is left
// as the body has it.
type BodyChanges struct {
	Model       string
	Temperature *float64
	NumCtx      int
}

// SetChatFields returns body with the changes made to its model and its
// options' temperature and num_ctx, and every other byte as it was: the
// other members, their order and their spacing. With no change it returns
// body itself. An option the body lacks is added at the end of its
// options. For a body EncodeChatRequest wrote, the result is what it
// writes for the request so changed.
func SetChatFields(body []byte, c BodyChanges) ([]byte, error) {
	if c.Model == "" && c.Temperature == nil && c.NumCtx == 0 {
		return body, nil
	}
	if c.NumCtx < 0 {
		return nil, fmt.Errorf("num_ctx must be above 0, not %d", c.NumCtx)
	}
	if _, err := ReadChatBody(body); err != nil {
		return nil, err
	}
	set := map[string]any{}
	if c.Model != "" {
		set["model"] = c.Model
	}
	opts := map[string]any{}
	if c.Temperature != nil {
		opts["temperature"] = *c.Temperature
	}
	if c.NumCtx > 0 {
		opts["num_ctx"] = c.NumCtx
	}
	out, found, err := setMembers(body, set, func(key string, raw []byte) ([]byte, bool, error) {
		if key != "options" || len(opts) == 0 {
			return nil, false, nil
		}
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			raw = []byte("{}")
		}
		b, _, err := setMembers(raw, opts, nil, []string{"num_ctx", "temperature"})
		return b, true, err
	}, []string{"model"})
	if err != nil {
		return nil, err
	}
	if len(opts) > 0 && !found["options"] {
		o, _, err := setMembers([]byte("{}"), opts, nil, []string{"num_ctx", "temperature"})
		if err != nil {
			return nil, err
		}
		out, _, err = setMembers(out, map[string]any{"options": json.RawMessage(o)}, nil, []string{"options"})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// setMembers rewrites the values of the members of the JSON object obj
// named in set (marshalled as Chat marshals them), or, for a member nested
// says it handles, what nested returns; the keys of set the object lacks
// are added at its end in the order of order. Everything else is copied as
// it is. It reports which keys nested handled.
func setMembers(obj []byte, set map[string]any, nested func(key string, raw []byte) ([]byte, bool, error), order []string) ([]byte, map[string]bool, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	var out bytes.Buffer
	seen := map[string]bool{}
	handled := map[string]bool{}
	last := dec.InputOffset() // just past the '{'
	out.Write(obj[:last])
	members := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		end := dec.InputOffset()
		members++
		start := end - int64(len(raw))
		val, changed := []byte(nil), false
		if v, ok := set[key]; ok && !seen[key] {
			b, err := json.Marshal(v)
			if err != nil {
				return nil, nil, err
			}
			val, changed = b, true
		} else if nested != nil {
			b, ok, err := nested(key, raw)
			if err != nil {
				return nil, nil, err
			}
			if ok {
				val, changed, handled[key] = b, true, true
			}
		}
		seen[key] = true
		if changed {
			out.Write(obj[last:start])
			out.Write(val)
		} else {
			out.Write(obj[last:end])
		}
		last = end
	}
	// The closing brace and whatever spacing comes before it.
	rest := obj[last:]
	close := bytes.LastIndexByte(rest, '}')
	if close < 0 {
		return nil, nil, errors.New("not a JSON object")
	}
	// Members added go after the last one, before the spacing that ends
	// the object.
	inner := bytes.TrimRight(rest[:close], " \t\r\n")
	out.Write(inner)
	for _, k := range order {
		v, ok := set[k]
		if !ok || seen[k] {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, nil, err
		}
		kb, _ := json.Marshal(k)
		if members > 0 {
			out.WriteByte(',')
		}
		members++
		out.Write(kb)
		out.WriteByte(':')
		out.Write(b)
	}
	out.Write(rest[len(inner):])
	return out.Bytes(), handled, nil
}

// ChatBody posts body, as it is, to /api/chat and streams the answer as
// Chat does: onChunk (may be nil) gets each delta, the Response is the
// whole message with its calls and metrics, and the errors are Chat's. A
// body that asks for no streaming ("stream": false) is answered in one
// piece, which is read the same way. Nothing runs the calls.
func (c *Client) ChatBody(ctx context.Context, body []byte, onChunk func(llm.Chunk)) (llm.Response, error) {
	f, err := ReadChatBody(body)
	if err != nil {
		return llm.Response{}, err
	}
	return c.chat(ctx, f.Model, rawBody(body), onChunk)
}

// rawBody is a chatBody of bytes given whole.
func rawBody(b []byte) *chatBody {
	return &chatBody{head: b, tail: []byte{}, size: len(b)}
}
