package settings_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/settings"
)

// Named hosts are saved with their addresses normalised and read back in
// a real database; a session's host is read back from what it stores.
func TestHostProfilesRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	s := settings.Defaults()
	s.Hosts = []settings.HostProfile{{Name: " gpu-box ", URL: "10.0.0.5:11434"}, {Name: "lab.lan", URL: "https://lab.lan"}}
	if err := settings.Save(ctx, st, s); err != nil {
		t.Fatal(err)
	}
	got, err := settings.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	want := []settings.HostProfile{{Name: "gpu-box", URL: "http://10.0.0.5:11434"}, {Name: "lab.lan", URL: "https://lab.lan:443"}}
	if len(got.Hosts) != 2 || got.Hosts[0] != want[0] || got.Hosts[1] != want[1] {
		t.Fatalf("read back %+v, want %+v", got.Hosts, want)
	}
	for _, tt := range []struct{ in, ref string }{
		{"", ""}, {"local", ""}, {"GPU-BOX", "gpu-box"}, {"lab.lan", "lab.lan"},
		{"http://10.0.0.9:11434", "http://10.0.0.9:11434"}, {"10.0.0.9:1234", "http://10.0.0.9:1234"},
	} {
		ref, err := got.HostRef(tt.in)
		if err != nil || ref != tt.ref {
			t.Errorf("HostRef(%q) = %q, %v; want %q", tt.in, ref, err, tt.ref)
		}
	}
	if tgt, err := got.Target("gpu-box"); err != nil || tgt.Name != "gpu-box" || tgt.URL != "http://10.0.0.5:11434" {
		t.Errorf("Target(gpu-box) = %+v, %v", tgt, err)
	}
	if tgt, err := got.Target(""); err != nil || tgt != (settings.Target{}) {
		t.Errorf("Target(\"\") = %+v, %v; want the local host", tgt, err)
	}
	if _, err := got.HostRef("gpubox"); err == nil || !strings.Contains(err.Error(), `"gpubox"`) || !strings.Contains(err.Error(), "gpu-box") {
		t.Errorf("an unknown name: %v; want it named, with the names there are", err)
	}
	got.Hosts = got.Hosts[1:]
	if _, err := got.Target("gpu-box"); err == nil || !strings.Contains(err.Error(), `"gpu-box"`) || !strings.Contains(err.Error(), "Settings") {
		t.Errorf("a removed host: %v; want what to do", err)
	}
}

// Names that clash, that an address could be taken for, or the local
// host's own name, and addresses that cannot be used, are refused with
// what is wrong, and nothing is saved.
func TestBadHostProfilesAreRefused(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		hosts []settings.HostProfile
		want  string
	}{
		{[]settings.HostProfile{{Name: "", URL: "http://a:1"}}, "no name"},
		{[]settings.HostProfile{{Name: "local", URL: "http://a:1"}}, "local host"},
		{[]settings.HostProfile{{Name: "a", URL: "http://a:1"}, {Name: "A", URL: "http://b:1"}}, "two Ollama hosts"},
		{[]settings.HostProfile{{Name: "http://x", URL: "http://a:1"}}, "only letters"},
		{[]settings.HostProfile{{Name: "box", URL: ""}}, "no address"},
		{[]settings.HostProfile{{Name: "box", URL: "ftp://box"}}, "box: "},
	} {
		st := open(t)
		s := settings.Defaults()
		s.Hosts = tt.hosts
		err := settings.Save(ctx, st, s)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.hosts, err, tt.want)
		}
		if got, _ := settings.Load(ctx, st); len(got.Hosts) != 0 {
			t.Errorf("%+v was saved", tt.hosts)
		}
	}
}
