package mcp

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkServerStart is the time from a run's start to its servers'
// tools listed (process start, initialize, tools/list), and the time to
// stop them (stdin closed, the process group gone): for 1 and 5 of the
// in-repo Go server and for the everything server under node.
func BenchmarkServerStart(b *testing.B) {
	everything := npmServer(b, "server-everything")
	cases := []struct {
		name    string
		servers func(n int) Servers
	}{
		{"go", func(n int) Servers {
			s := Servers{}
			for i := range n {
				s[fmt.Sprintf("s%d", i)] = Server{Command: faultBin}
			}
			return s
		}},
		{"node-everything", func(n int) Servers {
			s := Servers{}
			for i := range n {
				s[fmt.Sprintf("s%d", i)] = Server{Command: "node", Args: []string{everything, "stdio"}}
			}
			return s
		}},
	}
	for _, c := range cases {
		for _, n := range []int{1, 5} {
			b.Run(fmt.Sprintf("%s/servers=%d", c.name, n), func(b *testing.B) {
				dir, logs := b.TempDir(), b.TempDir()
				var stop time.Duration
				for b.Loop() {
					p := NewPool(c.servers(n), Options{Dir: dir, LogDir: logs})
					if ns := p.Start(context.Background()); len(ns) > 0 {
						b.Fatalf("%+v", ns)
					}
					t0 := time.Now()
					p.Close()
					stop += time.Since(t0)
				}
				b.ReportMetric(float64((b.Elapsed()-stop).Milliseconds())/float64(b.N), "start-ms")
				b.ReportMetric(float64(stop.Milliseconds())/float64(b.N), "stop-ms")
			})
		}
	}
}
