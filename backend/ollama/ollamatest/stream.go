package ollamatest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// This file renders a reply as Ollama would send it: NDJSON lines, streamed
// or joined into one object, with the reply's delays and faults.

func errorLine(format string, args ...any) string {
	b, _ := json.Marshal(errorBody{Error: fmt.Sprintf(format, args...)})
	return string(b)
}

func (s *Server) now() string {
	s.mu.Lock()
	clock := s.clock
	s.mu.Unlock()
	return clock().UTC().Format(time.RFC3339Nano)
}

// line is one NDJSON line to send: a response stamped with created_at when
// it is sent, or raw bytes.
type line struct {
	resp *ChatResponse
	raw  []byte
}

func (s *Server) render(l line) []byte {
	if l.resp == nil {
		return l.raw
	}
	r := *l.resp
	r.CreatedAt = s.now()
	b, err := json.Marshal(r)
	if err != nil {
		return []byte(errorLine("ollamatest: encode line: %v", err))
	}
	return b
}

// lines turns a reply into the NDJSON lines Ollama would stream.
func (s *Server) lines(req ChatRequest, r Reply, tokens int) ([]line, error) {
	if r.RawLines != nil {
		out := make([]line, len(r.RawLines))
		for i, l := range r.RawLines {
			out[i] = line{raw: []byte(l)}
		}
		return out, nil
	}
	var resps []ChatResponse
	newLine := func(m Message) ChatResponse {
		m.Role = "assistant"
		return ChatResponse{Model: req.Model, Message: m}
	}
	for _, c := range r.Chunks {
		resps = append(resps, newLine(Message{Content: c.Content, Thinking: c.Thinking}))
	}
	var calls []ToolCall
	for i, c := range r.ToolCalls {
		id := c.ID
		if id == "" {
			s.mu.Lock()
			s.nextID++
			id = fmt.Sprintf("call_%08d", s.nextID)
			s.mu.Unlock()
		}
		args := c.Args
		if args == "" {
			args = "{}"
		}
		calls = append(calls, ToolCall{ID: id, Function: ToolCallFunction{Index: i, Name: c.Name, Arguments: json.RawMessage(args)}})
	}
	if len(calls) > 0 {
		if r.SplitToolCalls {
			for _, c := range calls {
				resps = append(resps, newLine(Message{ToolCalls: []ToolCall{c}}))
			}
		} else {
			resps = append(resps, newLine(Message{ToolCalls: calls}))
		}
	}
	done := newLine(Message{})
	done.Done = true
	done.DoneReason = r.DoneReason
	if done.DoneReason == "" {
		done.DoneReason = "stop"
	}
	m := r.Metrics
	if m == nil {
		evals := len(r.Chunks) + len(r.ToolCalls)
		m = &Metrics{
			LoadDuration:       time.Millisecond,
			PromptEvalCount:    tokens,
			PromptEvalDuration: 2 * time.Millisecond,
			EvalCount:          max(1, evals),
			EvalDuration:       time.Duration(max(1, evals)) * time.Millisecond,
		}
		if r.promptTokens > 0 {
			m.PromptEvalCount = r.promptTokens
		}
		m.TotalDuration = m.LoadDuration + m.PromptEvalDuration + m.EvalDuration + time.Millisecond
	}
	done.TotalDuration = int64(m.TotalDuration)
	done.LoadDuration = int64(m.LoadDuration)
	done.PromptEvalCount = m.PromptEvalCount
	done.PromptEvalDuration = int64(m.PromptEvalDuration)
	done.EvalCount = m.EvalCount
	done.EvalDuration = int64(m.EvalDuration)
	resps = append(resps, done)

	out := make([]line, len(resps))
	for i := range resps {
		if _, err := json.Marshal(resps[i]); err != nil {
			return nil, fmt.Errorf("encode line %d: %w", i, err)
		}
		out[i] = line{resp: &resps[i]}
	}
	return out, nil
}

// wait sleeps d, or less if the request or the server ends first. It
// reports whether the full time passed.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.closing:
	}
	return false
}

func (s *Server) stall(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.closing:
	}
}

// abort drops the connection without finishing the response.
func abort(w http.ResponseWriter) {
	http.NewResponseController(w).Flush()
	panic(http.ErrAbortHandler)
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, reply Reply, lines []line) {
	f := reply.Fault
	if f != nil && f.Kind == FaultHTTP {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(f.Status)
		io.WriteString(w, f.Body)
		return
	}
	if !s.wait(r, reply.Load) {
		return
	}
	rc := http.NewResponseController(w)
	wrote := false
	for i := 0; i <= len(lines); i++ {
		if f != nil && min(f.After, len(lines)) == i {
			switch f.Kind {
			case FaultErrorLine:
				if !wrote {
					// Nothing sent yet: Ollama turns the error into a status.
					writeError(w, http.StatusInternalServerError, f.Message)
					return
				}
				w.Write(append([]byte(errorLine("%s", f.Message)), '\n'))
				rc.Flush()
				return
			case FaultCut:
				abort(w)
			case FaultStall:
				s.stall(r)
				return
			}
		}
		if i == len(lines) {
			return
		}
		if i > 0 && !s.wait(r, reply.Delay) {
			return
		}
		if !wrote {
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.WriteHeader(http.StatusOK)
			wrote = true
		}
		if _, err := w.Write(append(s.render(lines[i]), '\n')); err != nil {
			return
		}
		rc.Flush()
	}
}

// whole answers a stream:false request with one JSON object: the lines
// joined the way Ollama's ChatHandler joins them.
func (s *Server) whole(w http.ResponseWriter, r *http.Request, reply Reply, lines []line) {
	if f := reply.Fault; f != nil {
		switch f.Kind {
		case FaultHTTP:
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(f.Status)
			io.WriteString(w, f.Body)
		case FaultErrorLine:
			writeError(w, http.StatusInternalServerError, f.Message)
		case FaultCut:
			abort(w)
		case FaultStall:
			s.stall(r)
		}
		return
	}
	if !s.wait(r, reply.Load+reply.Delay) {
		return
	}
	var final ChatResponse
	var content, thinking strings.Builder
	var calls []ToolCall
	for _, ln := range lines {
		l := s.render(ln)
		var cr ChatResponse
		var e errorBody
		if json.Unmarshal(l, &e) == nil && e.Error != "" {
			writeError(w, http.StatusInternalServerError, e.Error)
			return
		}
		if err := json.Unmarshal(l, &cr); err != nil {
			writeError(w, http.StatusInternalServerError, "ollamatest: raw line is not a chat response: "+err.Error())
			return
		}
		content.WriteString(cr.Message.Content)
		thinking.WriteString(cr.Message.Thinking)
		calls = append(calls, cr.Message.ToolCalls...)
		final = cr
	}
	final.Message.Content = content.String()
	final.Message.Thinking = thinking.String()
	final.Message.ToolCalls = calls
	writeJSON(w, http.StatusOK, final)
}
