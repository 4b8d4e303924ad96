package settings_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
)

func open(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "loupe.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Before anything is saved the defaults hold; what is saved is read back
// as it was, in a real database that is opened again.
func TestSavedSettingsAreReadBack(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loupe.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := settings.Load(ctx, st)
	if err != nil || got.MaxRounds != settings.Defaults().MaxRounds || got.Tools == nil || got.Rules == nil {
		t.Fatalf("before saving: %+v %v", got, err)
	}
	s := settings.Defaults()
	s.MaxRounds, s.PermissionMode = 7, permission.ModeAuto
	s.Rules = []permission.Rule{{Effect: permission.EffectDeny, Path: ".env*"}}
	if err := settings.Save(ctx, st, s); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st2, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	got, err = settings.Load(ctx, st2)
	if err != nil || got.MaxRounds != 7 || got.PermissionMode != permission.ModeAuto || len(got.Rules) != 1 || got.Rules[0].Path != ".env*" {
		t.Fatalf("read back %+v %v", got, err)
	}
}

// Bad settings are refused with what is wrong, and nothing is saved.
func TestBadSettingsAreRefusedAndNotSaved(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	s := settings.Defaults()
	s.MaxRounds, s.Temperature, s.SystemPrompt = 0, 3, "{{.Workspace"
	err := settings.Save(ctx, st, s)
	if err == nil {
		t.Fatal("bad settings were saved")
	}
	for _, want := range []string{"round cap", "temperature", "system prompt"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not name the %s: %v", want, err)
		}
	}
	if got, _ := settings.Load(ctx, st); got.MaxRounds != settings.Defaults().MaxRounds {
		t.Fatalf("a refused save changed the settings: %+v", got)
	}
}

// The system prompt names the workspace it runs in.
func TestPromptForAWorkspace(t *testing.T) {
	got, err := settings.Defaults().PromptFor("/home/me/project")
	if err != nil || !strings.Contains(got, "working in the folder /home/me/project.") {
		t.Fatalf("prompt = %q, %v", got, err)
	}
}

// The Ollama host is saved normalised, as Ollama reads OLLAMA_HOST, and
// read back so from a database opened again; emptying it saves "".
func TestOllamaHostRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loupe.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := settings.Load(ctx, st); got.OllamaHost != "" {
		t.Fatalf("default Ollama host = %q, want empty", got.OllamaHost)
	}
	s := settings.Defaults()
	s.OllamaHost = " localhost:11500 "
	if err := settings.Save(ctx, st, s); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := settings.Load(ctx, st)
	if err != nil || got.OllamaHost != "http://localhost:11500" {
		t.Fatalf("read back Ollama host %q, %v; want http://localhost:11500", got.OllamaHost, err)
	}
	got.OllamaHost = ""
	if err := settings.Save(ctx, st, got); err != nil {
		t.Fatal(err)
	}
	if got, _ := settings.Load(ctx, st); got.OllamaHost != "" {
		t.Errorf("after emptying: %q", got.OllamaHost)
	}
}

// A host that cannot be used is refused, saying why and what to type, and
// what was saved before stays.
func TestBadOllamaHostIsRefused(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	good := settings.Defaults()
	good.OllamaHost = "http://gpu-box:11434"
	if err := settings.Save(ctx, st, good); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ host, why string }{
		{"ftp://gpu-box", `scheme must be http or https, not "ftp"`},
		{"gpu-box:70000", "port must be a number from 1 to 65535"},
		{"gpu box", "space"},
	} {
		s := good
		s.OllamaHost = tt.host
		err := settings.Save(ctx, st, s)
		if err == nil {
			t.Errorf("%q was saved", tt.host)
			continue
		}
		for _, want := range []string{tt.host, tt.why, "type http:// or https://, a host name or IP address and an optional port", "localhost:11434", "leave it empty"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("refusing %q: %q does not say %q", tt.host, err, want)
			}
		}
	}
	if got, _ := settings.Load(ctx, st); got.OllamaHost != "http://gpu-box:11434" {
		t.Errorf("after refusals the saved host is %q", got.OllamaHost)
	}
}

// --host wins over the setting, the setting over OLLAMA_HOST, and that
// over the default; each names what else is given.
func TestChooseHost(t *testing.T) {
	set := func(h string) settings.Settings { s := settings.Defaults(); s.OllamaHost = h; return s }
	for _, tt := range []struct {
		name, flag, setting, env string
		want                     settings.HostChoice
	}{
		{"nothing", "", "", "", settings.HostChoice{Host: "http://127.0.0.1:11434", From: settings.HostFromDefault}},
		{"env", "", "", "box:1", settings.HostChoice{Host: "http://box:1", From: settings.HostFromEnv, Env: "http://box:1"}},
		{"listen-all env", "", "", "0.0.0.0", settings.HostChoice{Host: "http://127.0.0.1:11434", From: settings.HostFromEnv, Env: "http://127.0.0.1:11434"}},
		{"setting beats env", "", "http://set:2", "box:1", settings.HostChoice{Host: "http://set:2", From: settings.HostFromSetting, Env: "http://box:1"}},
		{"flag beats both", "flag:3", "http://set:2", "box:1", settings.HostChoice{Host: "http://flag:3", From: settings.HostFromFlag, Flag: "http://flag:3", Env: "http://box:1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OLLAMA_HOST", tt.env)
			if got := settings.ChooseHost(tt.flag, set(tt.setting)); got != tt.want {
				t.Errorf("ChooseHost(%q, %q) with OLLAMA_HOST=%q = %+v, want %+v", tt.flag, tt.setting, tt.env, got, tt.want)
			}
		})
	}
}

// Settings saved before the rescue settings existed read as the defaults
// for them: recovering text calls on, a repeat limit of 3. A limit out of
// range is refused.
func TestRescueSettingsDefaultOn(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	if err := st.PutSetting(ctx, "settings", map[string]any{"max_rounds": 9}); err != nil {
		t.Fatal(err)
	}
	got, err := settings.Load(ctx, st)
	if err != nil || got.MaxRounds != 9 || !got.RecoverTextCalls || got.RepeatLimit != 3 {
		t.Fatalf("loaded %+v %v", got, err)
	}
	s := settings.Defaults()
	s.RepeatLimit = 1
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "repeat limit") {
		t.Fatalf("validate = %v", err)
	}
}
