package main

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// The tables and the goals, from the samples.

func perRound(d time.Duration, n int) float64 {
	return float64(d) / float64(time.Millisecond) / float64(n)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func medianOf(ss []sample, f func(sample) float64) float64 {
	xs := make([]float64, len(ss))
	for i, s := range ss {
		xs[i] = f(s)
	}
	return median(xs)
}

// report prints the tables and the goals.
func report(w io.Writer, ls []length, allocs bool) {
	wall := func(n int) func(sample) float64 { return func(s sample) float64 { return perRound(s.wall, n) } }
	cpu := func(n int) func(sample) float64 { return func(s sample) float64 { return perRound(s.cpu, n) } }
	fakeCPU := func(n int) func(sample) float64 { return func(s sample) float64 { return perRound(s.fakeCPU, n) } }
	rss := func(s sample) float64 { return float64(s.rssKB) / 1024 }

	// spread is "median (min–max)" of ms/round.
	spread := func(ss []sample, n int) string {
		xs := make([]float64, len(ss))
		for i, s := range ss {
			xs[i] = perRound(s.wall, n)
		}
		return fmt.Sprintf("%.2f (%.2f–%.2f)", median(xs), slices.Min(xs), slices.Max(xs))
	}
	ref := medianOf(ls[0].loupe, wall(ls[0].rounds))
	fmt.Fprintf(w, "\nms/round is the whole process's wall time divided by the rounds: the median of the runs (the fastest and slowest in parentheses).\n\n")
	fmt.Fprintf(w, "| rounds | runs | peer ms/round | loupe ms/round | loupe / peer | loupe vs %d rounds | peer peak RSS MB | loupe peak RSS MB |\n", ls[0].rounds)
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|")
	goal1, goal2 := true, true
	for _, l := range ls {
		p := medianOf(l.peer, wall(l.rounds))
		lo := medianOf(l.loupe, wall(l.rounds))
		goal1 = goal1 && lo <= p
		if l.rounds == ls[len(ls)-1].rounds {
			goal2 = lo <= 1.5*ref
		}
		fmt.Fprintf(w, "| %d | %d + %d | %s | %s | %.2f× | %.2f× | %.0f | %.0f |\n", l.rounds, len(l.peer), len(l.loupe),
			spread(l.peer, l.rounds), spread(l.loupe, l.rounds), lo/p, lo/ref, medianOf(l.peer, rss), medianOf(l.loupe, rss))
	}
	fmt.Fprintf(w, "\nCPU time per round (user + system, ms) of each client, and of the fake Ollama while it served that client:\n\n")
	fmt.Fprintln(w, "| rounds | peer CPU | loupe CPU | fake CPU (peer runs) | fake CPU (loupe runs) |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|")
	for _, l := range ls {
		fmt.Fprintf(w, "| %d | %.2f | %.2f | %.2f | %.2f |\n", l.rounds, medianOf(l.peer, cpu(l.rounds)),
			medianOf(l.loupe, cpu(l.rounds)), medianOf(l.peer, fakeCPU(l.rounds)), medianOf(l.loupe, fakeCPU(l.rounds)))
	}
	goal3 := ""
	if allocs {
		fmt.Fprintf(w, "\nLoupe's heap allocations, one in-process `loupe run` per length; \"marginal\" is per round added since the previous length:\n\n")
		fmt.Fprintln(w, "| rounds | KB/round | allocs/round | marginal KB/round | marginal allocs/round |")
		fmt.Fprintln(w, "|---:|---:|---:|---:|---:|")
		var margins []float64
		for i, l := range ls {
			mb, ma := "–", "–"
			if i > 0 {
				dr := float64(l.rounds - ls[i-1].rounds)
				kb := float64(l.allocBytes-ls[i-1].allocBytes) / 1024 / dr
				margins = append(margins, kb)
				mb = fmt.Sprintf("%.0f", kb)
				ma = fmt.Sprintf("%.0f", float64(l.allocs-ls[i-1].allocs)/dr)
			}
			fmt.Fprintf(w, "| %d | %.0f | %.0f | %s | %s |\n", l.rounds, float64(l.allocBytes)/1024/float64(l.rounds),
				float64(l.allocs)/float64(l.rounds), mb, ma)
		}
		if len(margins) >= 2 {
			ok := margins[len(margins)-1] <= 1.5*margins[0]
			goal3 = fmt.Sprintf("- allocations per round do not grow with the history (marginal KB/round of the last step at most 1.5× the first's): %s (%.1f×)\n",
				metWord(ok), margins[len(margins)-1]/margins[0])
		}
	}
	fmt.Fprintf(w, "\nGoals:\n")
	fmt.Fprintf(w, "- Loupe's time per round at most the peer's at every length: %s\n", metWord(goal1))
	fmt.Fprintf(w, "- Loupe's time per round at %d rounds at most 1.5× its time at %d: %s\n", ls[len(ls)-1].rounds, ls[0].rounds, metWord(goal2))
	fmt.Fprint(w, goal3)
}

func metWord(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}
