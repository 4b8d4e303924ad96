package settings_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/otlp"
	"github.com/loupe-dev/loupe/backend/settings"
)

// The OTLP endpoint is an http(s) URL or nothing; anything else is
// refused with what to type, and nothing is saved. A good one is saved
// trimmed and read back with its protocol and content choice.
func TestOTLPExportSettingIsValidated(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	for _, bad := range []string{"localhost:4318", "ftp://collector:4318", "http://", "grpc://otel:4317"} {
		s := settings.Defaults()
		s.OTLPEndpoint = bad
		err := settings.Save(ctx, st, s)
		if err == nil || !strings.Contains(err.Error(), "is not an http:// or https:// URL (such as http://localhost:4318)") ||
			!strings.Contains(err.Error(), "leave it empty to send no traces") {
			t.Errorf("endpoint %q: %v", bad, err)
		}
	}
	s := settings.Defaults()
	s.OTLPEndpoint, s.OTLPProtocol = "http://localhost:4318", "grpc"
	if err := settings.Save(ctx, st, s); err == nil || !strings.Contains(err.Error(), `unknown OTLP protocol "grpc"`) {
		t.Errorf("protocol grpc: %v", err)
	}
	if got, _ := settings.Load(ctx, st); got.OTLPEndpoint != "" || got.OTLP().On() {
		t.Fatalf("a refused setting was saved: %+v", got.OTLP())
	}

	s.OTLPEndpoint, s.OTLPProtocol, s.OTLPNoContent = "  https://otel.lan:4318  ", otlp.JSON, true
	if err := settings.Save(ctx, st, s); err != nil {
		t.Fatal(err)
	}
	got, err := settings.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	want := settings.OTLPExport{Endpoint: "https://otel.lan:4318", Protocol: otlp.JSON, NoContent: true}
	if got.OTLP() != want || !got.OTLP().On() {
		t.Errorf("read back %+v, want %+v", got.OTLP(), want)
	}
	if settings.Defaults().OTLP().On() {
		t.Error("the defaults send traces")
	}
}
