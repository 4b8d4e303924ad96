package store

import (
	"fmt"
	"testing"

	"github.com/loupe-dev/loupe/backend/trace"
)

// BenchmarkAppend measures one durable Append (BEGIN IMMEDIATE, two writes,
// COMMIT with fsync under synchronous=FULL) to a session that already holds
// 10 or 10,000 events. The two figures should be about the same: the cost
// of an append must not grow with the session's length.
func BenchmarkAppend(b *testing.B) {
	payload := trace.New(trace.KindToolResult, 1, 1, trace.ToolResult{
		CallID: "call_1", Name: "read_file", Content: "package main\n\nfunc main() {}\n", Bytes: 29,
	}).Payload
	for _, prefill := range []int{10, 10_000} {
		b.Run(fmt.Sprintf("events=%d", prefill), func(b *testing.B) {
			s := openTemp(b)
			ctx := b.Context()
			sess := mustCreate(b, s, Session{})
			e := trace.Event{SessionID: sess.ID, Kind: trace.KindToolResult, Run: 1, Round: 1, Payload: payload}
			prefillLog(b, s, e, prefill)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Append(ctx, e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// prefillLog appends n copies of e in one transaction, as Append would one
// by one, without an fsync per event.
func prefillLog(b *testing.B, s *Store, e trace.Event, n int) {
	ctx := b.Context()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	st := s.appendStmts(ctx, tx)
	for range n {
		if _, err := s.appendTx(ctx, st, e); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
