package interop

// ATIF, the Agent Trajectory Interchange Format of the Harbor project
// (RFC 0001, v1.4), is one JSON object: schema_version ("ATIF-v1.4"),
// session_id, agent (name, version, model_name), steps, and optional
// notes, final_metrics and extra. Each step has its step_id (from 1), a
// source ("system", "user" or "agent"), its message, and for an agent
// step its reasoning_content, tool_calls (tool_call_id, function_name,
// arguments), the observation of their results (each result naming its
// call in source_call_id) and metrics (prompt_tokens,
// completion_tokens…). The file is read member by member and step by
// step, never whole.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

type atStep struct {
	StepID           *int            `json:"step_id"`
	Timestamp        string          `json:"timestamp"`
	Source           string          `json:"source"`
	ModelName        string          `json:"model_name"`
	Message          json.RawMessage `json:"message"`
	ReasoningContent string          `json:"reasoning_content"`
	ToolCalls        []struct {
		ID        string          `json:"tool_call_id"`
		Name      string          `json:"function_name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"tool_calls"`
	Observation *struct {
		Results []struct {
			SourceCallID *string         `json:"source_call_id"`
			Content      json.RawMessage `json:"content"`
			Subagent     json.RawMessage `json:"subagent_trajectory_ref"`
		} `json:"results"`
	} `json:"observation"`
	Metrics *struct {
		Prompt     int `json:"prompt_tokens"`
		Completion int `json:"completion_tokens"`
	} `json:"metrics"`
}

var atStepKeys = []string{"step_id", "timestamp", "source", "model_name", "reasoning_effort", "message", "reasoning_content", "tool_calls", "observation", "metrics", "extra"}

type atif struct {
	b   *builder
	dec *json.Decoder
	// steps is how many were read; version the file's.
	steps   int
	version string
}

// readATIF converts an ATIF trajectory.
func readATIF(r io.Reader, sink Sink, fallback time.Time) (Meta, error) {
	p := &atif{b: newBuilder(sink, ATIF, fallback), dec: json.NewDecoder(r)}
	if err := p.read(); err != nil {
		return p.b.meta, err
	}
	return finishOf(p.b, ATIF)
}

func (p *atif) fail(off int64, ptr, format string, args ...any) error {
	return &Error{Source: ATIF, Offset: off, Pointer: ptr, Problem: fmt.Sprintf(format, args...)}
}

func (p *atif) decodeErr(err error, off int64, ptr string) error {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return p.fail(p.dec.InputOffset(), ptr, "the file ends in the middle of the trajectory: it was cut short")
	case errors.As(err, &syn):
		return p.fail(syn.Offset, ptr, "not valid JSON: %v", syn)
	}
	return passOn(err, func(err error) error { return p.fail(off, ptr, "%v", err) })
}

func (p *atif) read() error {
	t, err := p.dec.Token()
	if errors.Is(err, io.EOF) {
		return &Error{Source: ATIF, Problem: "the file is empty"}
	}
	if err != nil {
		return p.decodeErr(err, 0, "/")
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return p.fail(0, "/", "an ATIF trajectory is a JSON object, and this file is not one")
	}
	seen := map[string]bool{}
	for p.dec.More() {
		off := p.dec.InputOffset()
		t, err := p.dec.Token()
		if err != nil {
			return p.decodeErr(err, off, "/")
		}
		key, _ := t.(string)
		ptr := "/" + key
		if seen[key] {
			return p.fail(off, ptr, "%q appears twice", key)
		}
		seen[key] = true
		if key == "steps" {
			if p.version == "" {
				return p.fail(off, ptr, `the steps come before "schema_version": an ATIF trajectory says its version first`)
			}
			if err := p.readSteps(ptr); err != nil {
				return err
			}
			continue
		}
		var raw json.RawMessage
		off = p.dec.InputOffset()
		if err := p.dec.Decode(&raw); err != nil {
			return p.decodeErr(err, off, ptr)
		}
		if err := p.member(key, raw, off, ptr); err != nil {
			return err
		}
	}
	if _, err := p.dec.Token(); err != nil {
		return p.decodeErr(err, p.dec.InputOffset(), "/")
	}
	end := p.dec.InputOffset()
	if _, err := p.dec.Token(); !errors.Is(err, io.EOF) {
		return p.fail(end, "/", "something follows the end of the trajectory: an ATIF file is one object (is this JSONL?)")
	}
	for _, k := range []string{"schema_version", "session_id", "agent", "steps"} {
		if !seen[k] {
			return p.fail(p.dec.InputOffset(), "/"+k, "the trajectory has no %q, which ATIF requires", k)
		}
	}
	return nil
}

func (p *atif) member(key string, raw json.RawMessage, off int64, ptr string) error {
	b := p.b
	switch key {
	case "schema_version":
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return p.fail(off, ptr, "the schema version is %s, not a string", describe(raw))
		}
		minor, ok := strings.CutPrefix(v, "ATIF-v1.")
		if !ok {
			if strings.HasPrefix(v, "ATIF-v") {
				return p.fail(off, ptr, "%q is a version of ATIF this Loupe does not read (it reads v1.0 to v1.4)", v)
			}
			return p.fail(off, ptr, "%q is not an ATIF schema version (such as \"ATIF-v1.4\")", v)
		}
		p.version = v
		if minor > "4" && len(minor) == 1 {
			return b.notice(time.Time{}, CodeKept, fmt.Sprintf("The trajectory is %s, newer than ATIF-v1.4, which Loupe reads: what is new in it is kept in the Raw of each step.", v), nil)
		}
	case "session_id":
		if err := json.Unmarshal(raw, &b.meta.SourceID); err != nil {
			return p.fail(off, ptr, "the session id is %s, not a string", describe(raw))
		}
	case "agent":
		var a struct {
			Name      string `json:"name"`
			Version   string `json:"version"`
			ModelName string `json:"model_name"`
		}
		if err := decodeAs(raw, &a); err != nil {
			return p.fail(off, ptr, "%v", err)
		}
		if a.Name == "" {
			return p.fail(off, ptr+"/name", "the agent has no name")
		}
		b.meta.Agent = strings.TrimSpace(a.Name + " " + a.Version)
		if a.ModelName != "" {
			b.meta.Model = a.ModelName
		}
	case "notes":
		var s string
		_ = json.Unmarshal(raw, &s)
		return b.notice(time.Time{}, CodeKept, "The trajectory's notes: "+s, raw)
	case "final_metrics":
		return b.notice(time.Time{}, CodeKept, "The trajectory's final metrics, as it gives them.", raw)
	case "extra":
		if bytes.Equal(bytes.TrimSpace(raw), []byte("{}")) {
			return nil
		}
		return b.notice(time.Time{}, CodeKept, "The trajectory's extra, as it gives it.", bigRaw(raw))
	default:
		return b.unknown(time.Time{}, "The trajectory", fmt.Sprintf("a member %q", key), bigRaw(raw))
	}
	return nil
}

func (p *atif) readSteps(ptr string) error {
	off := p.dec.InputOffset()
	t, err := p.dec.Token()
	if err != nil {
		return p.decodeErr(err, off, ptr)
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		return p.fail(off, ptr, "the steps are not a list")
	}
	for i := 0; p.dec.More(); i++ {
		at := fmt.Sprintf("%s/%d", ptr, i)
		off := p.dec.InputOffset()
		var raw json.RawMessage
		if err := p.dec.Decode(&raw); err != nil {
			return p.decodeErr(err, off, at)
		}
		if err := p.step(raw, at); err != nil {
			return passOn(err, func(err error) error { return p.fail(off, at, "%v", err) })
		}
	}
	_, err = p.dec.Token()
	if err != nil {
		return p.decodeErr(err, p.dec.InputOffset(), ptr)
	}
	return nil
}

func (p *atif) step(raw json.RawMessage, at string) error {
	b := p.b
	if len(raw) == 0 || raw[0] != '{' {
		return fmt.Errorf("a step is an object, and this is %s", describe(raw))
	}
	var s atStep
	if err := decodeAs(raw, &s); err != nil {
		return err
	}
	p.steps++
	if s.StepID == nil {
		return fmt.Errorf(`the step has no "step_id"`)
	}
	t, err := parseTime(s.Timestamp)
	if err != nil {
		return err
	}
	var msg string
	if len(s.Message) > 0 {
		if text, _, err := textOf(s.Message); err != nil {
			return fmt.Errorf("message: %w", err)
		} else {
			msg = text
		}
	}
	switch s.Source {
	case "user":
		if err := b.user(t, msg, raw); err != nil {
			return err
		}
	case "system":
		b.system = joinText(b.system, msg)
	case "agent":
		r := trace.ModelResponse{Content: msg, Thinking: s.ReasoningContent, Raw: raw}
		if s.Metrics != nil {
			r.Metrics = llm.Metrics{PromptEvalCount: s.Metrics.Prompt, EvalCount: s.Metrics.Completion}
		}
		for i, c := range s.ToolCalls {
			if c.ID == "" || c.Name == "" {
				return fmt.Errorf(`tool_calls/%d: a tool call has its "tool_call_id" and "function_name"`, i)
			}
			args := bytes.TrimSpace(c.Arguments)
			switch {
			case len(args) == 0 || bytes.Equal(args, []byte("null")):
				args = []byte("{}")
			case args[0] != '{':
				return fmt.Errorf("tool_calls/%d/arguments: the arguments are %s, and ATIF has an object", i, describe(args))
			}
			r.ToolCalls = append(r.ToolCalls, call(c.ID, c.Name, json.RawMessage(args)))
		}
		if err := b.answer(t, s.ModelName, r); err != nil {
			return err
		}
	case "":
		return fmt.Errorf(`the step has no "source" (system, user or agent)`)
	default:
		return fmt.Errorf("source %q is not one of ATIF's: system, user or agent", s.Source)
	}
	if s.Observation != nil {
		for i, res := range s.Observation.Results {
			content, _, err := textOf(res.Content)
			if err != nil {
				return fmt.Errorf("observation/results/%d/content: %w", i, err)
			}
			switch {
			case res.SourceCallID != nil && *res.SourceCallID != "":
				if err := b.result(t, *res.SourceCallID, content, false, nil, nil); err != nil {
					return err
				}
			case len(res.Subagent) > 0:
				if err := b.notice(t, CodeKept, fmt.Sprintf("Step %d handed work to a sub-agent, whose trajectory is its own file: %s", *s.StepID, content), res.Subagent); err != nil {
					return err
				}
			default:
				if err := b.notice(t, CodeKept, fmt.Sprintf("Step %d observed, with no call: %s", *s.StepID, content), nil); err != nil {
					return err
				}
			}
		}
	}
	extra, err := extraKeys(raw, atStepKeys...)
	if err != nil {
		return err
	}
	if len(extra) > 0 {
		kept, _ := json.Marshal(extra)
		names := make([]string, 0, len(extra))
		for k := range extra {
			names = append(names, k)
		}
		slices.Sort(names)
		return b.unknown(t, fmt.Sprintf("Step %d (%s)", *s.StepID, at), fmt.Sprintf("fields ATIF v1.4 does not have (%s)", strings.Join(names, ", ")), bigRaw(kept))
	}
	return nil
}
