package sandbox

import (
	"context"
	"testing"
)

// What counting a command costs around its start and end: for this
// process only (a runner that names no workspace), and told to every Loupe
// process through the state folder (every confined command), where each
// start reads the others' files under the folder's lock. A confined
// command itself takes milliseconds (BENCHMARKS.md). Beside other
// running commands, each start (and Quiet) judges by place whether their
// folders overlap (a stat of each ancestor): the cost grows with them.
func BenchmarkCommandCounted(b *testing.B) {
	ctx := context.Background()
	ws := b.TempDir()
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	for _, tc := range []struct{ name, ws string }{{"this process only", ""}, {"every Loupe process", ws}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if err := commandStarted(ctx, tc.ws); err != nil {
					b.Fatal(err)
				}
				commandEnded(tc.ws)
			}
		})
	}
	quiet := func(b *testing.B) {
		for b.Loop() {
			release, err := Quiet(ctx, ws)
			if err != nil {
				b.Fatal(err)
			}
			release()
		}
	}
	b.Run("Quiet and release", quiet)
	b.Run("Quiet and release, 10 commands running beside", func(b *testing.B) {
		for range 10 {
			beside := b.TempDir()
			if err := commandStarted(ctx, beside); err != nil {
				b.Fatal(err)
			}
			defer commandEnded(beside)
		}
		quiet(b)
	})
}
