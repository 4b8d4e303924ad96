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
