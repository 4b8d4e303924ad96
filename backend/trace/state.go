package trace

// RunState is where a session's last run stands, read from its log.
type RunState struct {
	// Open is true until the run's run_end.
	Open  bool
	Run   int
	Round int
	// Paused is the checkpoint an open run waits at, or nil.
	Paused *Checkpoint
}

// StateOf reads where the log's last run stands.
func StateOf(events []Event) RunState {
	var st RunState
	for _, e := range events {
		switch e.Kind {
		case KindUserMessage:
			st = RunState{Open: true, Run: e.Run}
		case KindRunEnd:
			st.Open, st.Paused = false, nil
		case KindModelRequest:
			st.Round = e.Round
		case KindCheckpoint:
			cp, err := Decode[Checkpoint](e)
			if err != nil {
				continue
			}
			if cp.State == Paused {
				st.Paused = &cp
				// A pause before a request comes before the request is
				// recorded: its round is the one about to be sent.
				st.Round = e.Round
				if cp.Point == PointBeforeRequest {
					st.Round = e.Round - 1
				}
			} else {
				st.Paused = nil
			}
		}
	}
	return st
}
