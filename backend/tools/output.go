package tools

import (
	"context"
	"errors"
	"sync"
	"time"
	"unicode/utf8"
)

// ErrStopped is the cause a call's context is cancelled with when the user
// stops that one call (not the run). A tool that sees it (context.Cause)
// says so in its result; the run goes on.
var ErrStopped = errors.New("stopped by the user")

// Streams of a command's live output.
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
)

// OutputPiece is a stretch of a running call's output from one stream.
type OutputPiece struct {
	Stream string `json:"stream"`
	Text   string `json:"text"`
}

// Output is what a running call's output added since the last Output:
// its pieces in the order they were read, and Omitted, how many bytes it
// has written past what is streamed (a running count, 0 while under the
// cap). It is for live display only: the call's result is the record.
type Output struct {
	Pieces  []OutputPiece `json:"pieces,omitempty"`
	Omitted int           `json:"omitted,omitempty"`
}

// OutputFunc receives a running call's output. It is called from the
// tool's goroutines, never concurrently for one call, and must not block.
type OutputFunc func(Output)

type outputKey struct{}

// WithOutput gives the tools run with ctx a place to show their output
// while they run (the agent passes one per call). Without it they stream
// nothing.
func WithOutput(ctx context.Context, f OutputFunc) context.Context {
	return context.WithValue(ctx, outputKey{}, f)
}

// OutputOf returns ctx's output sink, or nil: a tool that has output to
// show while it runs sends it there.
func OutputOf(ctx context.Context) OutputFunc {
	f, _ := ctx.Value(outputKey{}).(OutputFunc)
	return f
}

// OutputInterval is the least time between two Outputs of one call: a
// command that writes a line a millisecond sends ten updates a second, not
// a thousand. A var so that tests can see it.
var OutputInterval = 100 * time.Millisecond

// outputStream turns the chunks a command's pipes give into Outputs for
// an OutputFunc: at most one per OutputInterval (the first at once, then
// what came in the meantime together), at most limit bytes in all, then
// only the count of what was left out. A chunk may end inside a UTF-8
// sequence; that part waits for the rest, so every piece is whole text.
type outputStream struct {
	send     OutputFunc
	limit    int
	interval time.Duration

	mu      sync.Mutex
	pending []OutputPiece
	sent    int // bytes streamed (or pending) so far
	omitted int
	told    int // omitted as last sent
	carry   [2][]byte
	last    time.Time
	timer   *time.Timer
	closed  bool
}

func newOutputStream(send OutputFunc, limit int) *outputStream {
	return &outputStream{send: send, limit: limit, interval: OutputInterval}
}

// write takes a chunk of stdout or stderr.
func (s *outputStream) write(stderr bool, p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	i := 0
	if stderr {
		i = 1
	}
	data := append(s.carry[i], p...)
	cut := wholeRunes(data)
	s.carry[i] = append([]byte(nil), data[cut:]...)
	s.add(stderr, data[:cut])
	s.schedule()
}

// add keeps text for the next Output, up to the limit.
func (s *outputStream) add(stderr bool, data []byte) {
	if len(data) == 0 {
		return
	}
	room := s.limit - s.sent
	if room < len(data) {
		keep := max(room, 0)
		// Cut at a rune's start, so the kept part is whole text.
		for keep > 0 && keep < len(data) && !utf8.RuneStart(data[keep]) {
			keep--
		}
		s.omitted += len(data) - keep
		data = data[:keep]
	}
	if len(data) == 0 {
		return
	}
	s.sent += len(data)
	stream := StreamStdout
	if stderr {
		stream = StreamStderr
	}
	if n := len(s.pending); n > 0 && s.pending[n-1].Stream == stream {
		s.pending[n-1].Text += string(data)
		return
	}
	s.pending = append(s.pending, OutputPiece{Stream: stream, Text: string(data)})
}

// schedule sends now if the last Output is old enough, else once it is.
func (s *outputStream) schedule() {
	if s.timer != nil {
		return // a send is due already
	}
	wait := s.interval - time.Since(s.last)
	if wait <= 0 {
		s.flush()
		return
	}
	s.timer = time.AfterFunc(wait, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.timer = nil
		if !s.closed {
			s.flush()
		}
	})
}

// flush sends what is pending, if anything. s.mu is held.
func (s *outputStream) flush() {
	if len(s.pending) == 0 && s.omitted == s.told {
		return
	}
	out := Output{Pieces: s.pending, Omitted: s.omitted}
	s.pending, s.told, s.last = nil, s.omitted, time.Now()
	s.send(out)
}

// close sends what is left, an incomplete last rune included, and nothing
// after it.
func (s *outputStream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	for i, c := range s.carry {
		s.add(i == 1, c)
		s.carry[i] = nil
	}
	s.flush()
	s.closed = true
}

// wholeRunes returns how much of p ends on a rune boundary: all of it, or
// up to an incomplete UTF-8 sequence at its end. Bytes that are not UTF-8
// at all are left to the JSON encoder, which replaces them.
func wholeRunes(p []byte) int {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(p); i++ {
		c := p[len(p)-i]
		if c < utf8.RuneSelf {
			return len(p)
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return len(p) - i
			}
			return len(p)
		}
	}
	return len(p)
}
