package session

import (
	"context"
	"log"
	"time"

	"github.com/loupe-dev/loupe/backend/otlp"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
)

// ExportTimeout bounds the send of a finished run's trace: a collector
// that does not answer in this time is taken as down.
const ExportTimeout = 5 * time.Second

// CodeExportFailed is the notice of a finished run whose trace the OTLP
// collector of Settings did not take (the trace leaves it out).
const CodeExportFailed = otlp.CodeExportFailed

// exportRun sends the trace of the run that ended with end (that run
// only) to the collector Settings names, in the background, within
// ExportTimeout. The run's outcome is what its log says whatever comes of
// it; a collector that is down or refuses gets one notice on the session,
// and the log keeps the run for loupe export to send again.
func (m *Manager) exportRun(id string, end trace.Event, x settings.OTLPExport) {
	m.exports.Add(1)
	go func() {
		defer m.exports.Done()
		ctx, cancel := context.WithTimeout(context.Background(), ExportTimeout)
		defer cancel()
		_, err := PushOTLP(ctx, m.store, id, otlp.Options{Run: end.Run, NoContent: x.NoContent}, x.Endpoint, x.Protocol, m.model.HTTPClient())
		if err != nil {
			m.exportFailed(id, end, err)
		}
	}()
}

// exportClosed sends the trace of a run that recovery closed (its process
// was gone) as exportRun sends that of a run that ended here, when
// Settings asks for it.
func (m *Manager) exportClosed(ctx context.Context, id string, end trace.Event) {
	set, err := settings.Load(ctx, m.store)
	if err != nil {
		log.Printf("loupe: session %s: run %d's trace was not sent: the settings cannot be read: %v", id, end.Run, err)
		return
	}
	if x := set.OTLP(); x.On() {
		m.exportRun(id, end, x)
	}
}

// WaitExports waits for the traces of finished runs still being sent,
// each at most ExportTimeout: what loupe run does before it exits, and
// Close.
func (m *Manager) WaitExports() { m.exports.Wait() }

// exportFailed says on the session that a run's trace was not sent: in
// the process's log, and as a notice the timeline shows. The notice goes
// with the run that ended, or with the session's open run if another has
// begun since (a run's events stay together).
func (m *Manager) exportFailed(id string, end trace.Event, err error) {
	log.Printf("loupe: session %s: run %d's trace was not sent: %v", id, end.Run, err)
	ctx := context.Background()
	run, round := end.Run, end.Round
	if s, gerr := m.store.GetSession(ctx, id); gerr == nil && s.OpenRun != 0 && s.OpenRun != run {
		run, round = s.OpenRun, 0
		if evs, rerr := m.store.RunEvents(ctx, id, run); rerr == nil && len(evs) > 0 {
			round = evs[len(evs)-1].Round
		}
	}
	e := trace.New(trace.KindNotice, run, round, trace.Notice{Code: CodeExportFailed,
		Message: "The trace of this run was not sent: " + err.Error() + ". Nothing is lost: the run is kept here, and loupe export " + id +
			" --otlp-endpoint URL sends it again. Settings names the collector finished runs go to."})
	e.SessionID = id
	if _, aerr := (recorder{store: m.store, sink: m.sink}).Append(ctx, e); aerr != nil {
		log.Printf("loupe: session %s: saying so on the session failed too: %v", id, aerr)
	}
}
