package trace

import "strings"

// A sub-agent's nested run is written to its session's log among its
// parent's events, each marked with the sub-run it belongs to (Event.Agent):
// the id of the task call that started it, and for a sub-agent of a
// sub-agent that id after its parent's, "c1/c2". Every reading of a run
// (its history, where it stands, its open calls) takes its own events only.

// Own returns the events of one run's loop: agent "" is the session's own,
// a task call's path that sub-agent's. It returns events itself when every
// event is of that loop (a log without sub-agents costs nothing).
func Own(events []Event, agent string) []Event {
	all := true
	for _, e := range events {
		if e.Agent != agent {
			all = false
			break
		}
	}
	if all {
		return events
	}
	out := make([]Event, 0, len(events))
	for _, e := range events {
		if e.Agent == agent {
			out = append(out, e)
		}
	}
	return out
}

// Loop returns the events of the loop the log's first event is of: a
// session's log begins with its own loop's message, a sub-agent's events
// (Own) with the sub-agent's. Readings of where a run stands take it, so
// that they read the session's log and a sub-agent's alike.
func Loop(events []Event) []Event {
	if len(events) == 0 {
		return events
	}
	return Own(events, events[0].Agent)
}

// SubAgent is the sub-run id of the sub-agent a task call starts, in the
// run whose sub-run id is parent ("" for the session's own loop).
func SubAgent(parent, callID string) string {
	if parent == "" {
		return callID
	}
	return parent + "/" + callID
}

// SubAgents lists the sub-runs the log holds, in the order they began.
func SubAgents(events []Event) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range events {
		if e.Agent != "" && !seen[e.Agent] {
			seen[e.Agent] = true
			out = append(out, e.Agent)
		}
	}
	return out
}

// Depth is how deep a sub-run is: 0 for the session's own loop, 1 for a
// sub-agent it started, and so on.
func Depth(agent string) int {
	if agent == "" {
		return 0
	}
	return strings.Count(agent, "/") + 1
}

// Waiting is where the log's open run waits for the user: the pause of a
// sub-agent stepped into (the deepest that waits), else its own loop's
// state (StateOf), with the sub-run it is of ("" for the session's own).
func Waiting(events []Event) (string, RunState) {
	main := StateOf(events)
	if !main.Open {
		return "", main
	}
	subs := SubAgents(events)
	for i := len(subs) - 1; i >= 0; i-- {
		if st := StateOf(Own(events, subs[i])); st.Open && (st.Paused != nil || len(st.Asking) > 0) {
			return subs[i], st
		}
	}
	return "", main
}
