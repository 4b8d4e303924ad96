package sandbox

import (
	"strings"
	"testing"
)

// every gives each protection a name and the detail given, all active.
func every(detail string) Protections {
	p := Protections{LandlockABI: 6}
	for name, x := range map[string]*Protection{"Writes": &p.Writes, "Network": &p.Network, "Processes": &p.Processes, "Secrets": &p.Secrets, "Sockets": &p.Sockets, "IPC": &p.IPC, "Limits": &p.Limits} {
		*x = Protection{Name: name, Active: true, Detail: strings.ToLower(name) + " " + detail}
	}
	return p
}

func names(ps []Protection) string {
	var out []string
	for _, x := range ps {
		out = append(out, x.Name)
	}
	return strings.Join(out, ",")
}

// The window's Report is the judgement the policy makes: each required
// protection missing on its own makes commands unsandboxed, and says so;
// Limits missing does not.
func TestReportJudgesEachProtection(t *testing.T) {
	ok := every("on").Report()
	if !ok.Sandboxed || len(ok.Missing) != 0 || ok.Why != "" || !strings.HasPrefix(ok.Summary, "commands are sandboxed: writes on; network network on; processes on") {
		t.Fatalf("every protection: %+v", ok)
	}
	if got := names(ok.List); got != "Writes,Secrets,Network,Sockets,IPC,Processes,Limits" {
		t.Errorf("list order %s", got)
	}
	for _, name := range []string{"Writes", "Secrets", "Network", "Sockets", "IPC", "Processes"} {
		p := every("on")
		for _, x := range []*Protection{&p.Writes, &p.Network, &p.Processes, &p.Secrets, &p.Sockets, &p.IPC} {
			if x.Name == name {
				x.Active, x.Detail = false, "not here"
			}
		}
		r := p.Report()
		want := strings.ToLower(name) + ": not here"
		if r.Sandboxed || names(r.Missing) != name || r.Why != want || r.Summary != "commands are not sandboxed: "+want || r.Sandboxed != p.Sandboxed() {
			t.Errorf("%s missing: %+v", name, r)
		}
	}
	p := every("on")
	p.Limits = Protection{Name: "Limits", Detail: "setrlimit failed"}
	if r := p.Report(); !r.Sandboxed || len(r.Missing) != 0 || !strings.HasSuffix(r.Summary, " (limits: setrlimit failed)") {
		t.Errorf("limits missing: %+v", r)
	}
	p = every("on")
	p.Network = Protection{Name: "Network", Detail: "no network namespace"}
	p.Secrets = Protection{Name: "Secrets", Detail: "no mount namespace"}
	if r := p.Report(); names(r.Missing) != "Secrets,Network" || r.Why != "secrets: no mount namespace; network: no network namespace" {
		t.Errorf("two missing: %+v", r)
	}
	// A workspace that allows the network does not expect it blocked.
	if got := words(p.missing(true)); len(got) != 1 || got[0] != "secrets: no mount namespace" {
		t.Errorf("with the network allowed: %q", got)
	}
}
