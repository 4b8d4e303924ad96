//go:build linux

package attacks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/testkit/gguf"
)

// TestWorkspaceProgramsDoNotShadowCommands starts loupe with a PATH that
// finds the workspace's programs first, as users who ran `npm` scripts or
// use direnv have: node_modules/.bin, relative or absolute, or through a
// symlink, and the current folder, as "." or as an empty entry. The
// workspace's "cat" in those places is the model's own code: `cat a.txt`,
// which looks harmless to the classifier and may run without asking, must
// run the system's cat, not it.
func TestWorkspaceProgramsDoNotShadowCommands(t *testing.T) {
	l := newLab(t)
	paths := []struct {
		name string
		path func(ws string) string
	}{
		{"node_modules/.bin relative", func(string) string { return "node_modules/.bin:" + usualPath }},
		{"node_modules/.bin absolute", func(ws string) string { return filepath.Join(ws, "node_modules", ".bin") + ":" + usualPath }},
		{"node_modules/.bin through a symlink", func(ws string) string {
			link := filepath.Join(l.fresh("bin"), "tools")
			if err := os.Symlink(filepath.Join(ws, "node_modules", ".bin"), link); err != nil {
				t.Fatal(err)
			}
			return link + ":" + usualPath
		}},
		{"dot", func(string) string { return ".:" + usualPath }},
		{"an empty entry", func(string) string { return ":" + usualPath }},
		{"an empty entry in the middle", func(string) string { return "/usr/local/bin::/usr/bin:/bin" }},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			m := l.markers("path")
			// The workspace's cat, in node_modules/.bin and at the top,
			// leaves a marker where the sandbox cannot write and one in the
			// workspace, where it can: either means it ran.
			workspace := func() string {
				ws := l.fresh("ws")
				writeFile(t, filepath.Join(ws, "a.txt"), "alpha\n")
				for _, fake := range []string{filepath.Join(ws, "node_modules", ".bin", "cat"), filepath.Join(ws, "cat")} {
					writeFile(t, fake, fmt.Sprintf("#!/bin/sh\ntouch %s %s\nexec /bin/cat \"$@\"\n", m.path("hijacked"), filepath.Join(ws, "hijacked")))
					if err := os.Chmod(fake, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				return ws
			}
			ran := func(ws string) []string {
				got := m.present()
				if _, err := os.Stat(filepath.Join(ws, "hijacked")); err == nil {
					got = append(got, "hijacked (in the workspace)")
				}
				return got
			}
			t.Run("control", func(t *testing.T) {
				ws := workspace()
				out := l.shell(t, ws, "cat a.txt", "PATH="+p.path(ws))
				if len(ran(ws)) == 0 {
					t.Fatalf("run with sh outside Loupe, `cat a.txt` did not run the workspace's cat: fix the attack\n%s", out)
				}
				clearMarkers(t, m)
			})
			for _, md := range modes {
				t.Run(md.name, func(t *testing.T) {
					ws := workspace()
					o := l.run(t, runOpts{workspace: ws, auto: md.auto, env: []string{"PATH=" + p.path(ws)},
						calls: []gguf.Call{runCommand("cat a.txt")}})
					t.Log(o.summary())
					if got := ran(ws); len(got) > 0 {
						t.Errorf("`cat a.txt` ran the workspace's node_modules/.bin/cat (markers %v)", got)
					}
					clearMarkers(t, m)
				})
			}
		})
	}
}
