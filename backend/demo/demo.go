// Package demo is Loupe's built-in scripted model: no AI, no Ollama. It
// plays one small coding task through the real loop, so a newcomer can
// watch and step through a whole session with nothing installed: it
// lists a little shell project, reads it, runs its failing test, fixes the
// bug, runs the test again and answers. The calls are real (real tools,
// real permissions, real events); only the model's side is a script, and
// the script reads what came back (a denied command, a failed edit, a
// folder that is not its project) and answers accordingly.
//
// The package knows llm only (and hands, for the files of its copies):
// the session wires it in where the Ollama client would be.
package demo

import (
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/loupe-dev/loupe/backend/hands"
)

// Name is the model name the demo is chosen by (`loupe run --model demo`,
// the window's model picker). Ollama lists its own models with a tag
// ("demo:latest"), so this name does not hide one of them.
const Name = "demo"

// Label is how the demo is named wherever a person sees it: it is not a
// model, and must not pass for one.
const Label = "Demo (scripted, no AI)"

// ContextLength is the context the demo says it has: it sets num_ctx
// (capped by Settings) as a real model's would.
const ContextLength = 8192

// Task is the message the demo is started with.
const Task = "The tests fail. Find out why and fix it."

// Is reports whether a session's model is the demo.
func Is(model string) bool { return model == Name }

//go:embed project
var project embed.FS

// NewWorkspace copies the demo project into a new temporary folder and
// returns its path: each demo gets a fresh copy, so a fixed bug is broken
// again next time, and nothing of the user's is touched.
func NewWorkspace() (string, error) {
	dir, err := newDir()
	if err != nil {
		return "", fmt.Errorf("copying the demo project: %w (is the temporary folder writable? set TMPDIR to one that is)", err)
	}
	if err := CopyProject(dir); err != nil {
		_ = RemoveCopy(dir)
		return "", err
	}
	return dir, nil
}

// newDir makes a new folder in the temporary folder, its name of a fixed
// length (os.MkdirTemp's vary): the path is in the system prompt, and the
// prompt's size should not change from one demo to the next.
func newDir() (string, error) {
	for range 10 {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		dir := filepath.Join(os.TempDir(), "loupe-demo-"+hex.EncodeToString(b[:]))
		err := os.Mkdir(dir, 0o700)
		if !errors.Is(err, fs.ErrExist) {
			return dir, err
		}
	}
	return "", errors.New("no free name for a new folder")
}

// copyName is how NewWorkspace names its folders.
var copyName = regexp.MustCompile(`^loupe-demo-[0-9a-f]{12}$`)

// IsCopy reports whether dir is a folder NewWorkspace made: named as it
// names them, right in the temporary folder.
func IsCopy(dir string) bool {
	if !copyName.MatchString(filepath.Base(dir)) {
		return false
	}
	parent, tmp := filepath.Dir(filepath.Clean(dir)), filepath.Clean(os.TempDir())
	if parent == tmp {
		return true
	}
	real, err := filepath.EvalSymlinks(tmp)
	return err == nil && parent == real
}

// CopyProject writes the demo project's files into dir, through the
// layer that follows no link (dir may already hold what a run left).
func CopyProject(dir string) error {
	root, err := hands.Open(dir, nil)
	if err != nil {
		return fmt.Errorf("copying the demo project: %w", err)
	}
	defer root.Close()
	return fs.WalkDir(project, "project", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel("project", p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			sub, err := root.MkdirAll(rel)
			if err != nil {
				return fmt.Errorf("copying the demo project: %w", err)
			}
			return sub.Close()
		}
		b, err := project.ReadFile(p)
		if err != nil {
			return err
		}
		if err := root.WriteFile(rel, b); err != nil {
			return fmt.Errorf("copying the demo project: %w", err)
		}
		return nil
	})
}

// RemoveCopy removes a folder NewWorkspace made, and everything in it,
// through the layer that follows no link: a link a run left in the copy
// (to the user's home, to another project) is removed as a link, and
// what it points at stays. Any other folder is left alone.
func RemoveCopy(dir string) error {
	if !IsCopy(dir) {
		return fmt.Errorf("%s is not a copy of the demo project; not removed", dir)
	}
	parent, err := hands.Open(filepath.Dir(filepath.Clean(dir)), nil)
	if err != nil {
		return err
	}
	defer parent.Close()
	return parent.RemoveAll(filepath.Base(dir))
}

// ProjectFile is a file of the demo project as shipped (before any fix).
func ProjectFile(name string) (string, error) {
	b, err := project.ReadFile("project/" + name)
	return string(b), err
}
