package otlp

import (
	"bytes"
	"fmt"
	"io"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// WriteJSONL writes the traces as OTLP JSON Lines, the OpenTelemetry file
// exporter's format: each line one ExportTraceServiceRequest in the OTLP
// JSON encoding (hex ids, nanosecond times as strings). A trace per line
// keeps a line to one run, so a reader can take a long session run by run.
func WriteJSONL(w io.Writer, ts []ptrace.Traces) error {
	var m ptrace.JSONMarshaler
	for _, td := range ts {
		b, err := m.MarshalTraces(td)
		if err != nil {
			return fmt.Errorf("otlp: encode traces: %w", err)
		}
		// The encoder writes no newline inside a value (strings escape
		// theirs), so one line is one request.
		if bytes.IndexByte(b, '\n') >= 0 {
			return fmt.Errorf("otlp: encoded traces hold a newline")
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// SpanCount is how many spans the traces hold.
func SpanCount(ts []ptrace.Traces) int {
	n := 0
	for _, td := range ts {
		n += td.SpanCount()
	}
	return n
}
