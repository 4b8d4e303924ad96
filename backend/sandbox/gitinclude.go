package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/loupe-dev/loupe/backend/hands"
)

// This file finds every file git reads as settings because a settings
// file includes it (include.path, includeIf.<condition>.path): git takes
// what an included file says as its own settings, so a program one names
// runs on the user's next git as if .git/config named it. It follows what
// git follows (git-config(1), "Includes"; config.c handle_path_include):
//
//   - the settings of every repository in the workspace or above it, of
//     any layout (.git folders, bare repositories, a submodule's folder, a
//     linked worktree's folder and the repository its commondir names,
//     config.worktree), and the user's and the system's settings;
//   - included files that include more, however deep (git stops at ten
//     levels; following all of them is more, never less) and in cycles;
//   - every condition, true now or not (gitdir:, gitdir/i:, onbranch:,
//     hasconfig:remote.*.url:): a branch switch or a new remote makes it
//     true later;
//   - paths as git expands them: "~/" and "~user/" from the home folder,
//     relative ones from the folder of the file that includes them, and
//     through symlinks as the kernel resolves them;
//   - files that do not exist yet: git reads them once they do.

// maxIncludedFiles bounds how many settings files are read while
// following includes (git itself stops at ten levels).
const maxIncludedFiles = 4096

// includeTarget is one file some settings include.
type includeTarget struct {
	// path is where git opens it, symlinks on the way resolved as the
	// kernel does; a part that does not exist is kept as written,
	// lexically cleaned.
	path string
	// given is the path as the settings spell it, made absolute and
	// cleaned lexically (what a file tool naming it would say).
	given string
	// missingDirs are the folders on the way that do not exist, in the
	// order the kernel would walk them (a ".." after one needs it to
	// exist, so it counts).
	missingDirs []string
	// blocker is an existing entry on the way that is not a folder: the
	// file cannot be opened until it is replaced by one.
	blocker string
	// links are the symlinks on the way.
	links []string
}

// includes follows the include settings of a set of settings files.
type includes struct {
	read    map[string]bool
	targets map[string]includeTarget
	order   []string
}

// gitSettingsFiles are the files git reads settings from for the git
// directory dir: its config, its config.worktree (read when the
// repository sets extensions.worktreeConfig; taken always, since a setting
// can turn it on), and those of the common directory its commondir names.
func gitSettingsFiles(dir string) []string {
	out := []string{filepath.Join(dir, "config"), filepath.Join(dir, "config.worktree")}
	if c, _, ok := readPointer(filepath.Join(dir, "commondir")); ok {
		out = append(out, filepath.Join(c, "config"), filepath.Join(c, "config.worktree"))
	}
	return out
}

// userSettingsFiles are the user's and the system's settings files as git
// finds them (git-config(1), "FILES"), each of which can include a file of
// the workspace (includeIf "gitdir:~/work/" path = ~/work/app/.gitconfig).
func userSettingsFiles() []string {
	var out []string
	for _, env := range []string{"GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL"} {
		if v := os.Getenv(env); v != "" && v != "/dev/null" {
			out = append(out, v)
		}
	}
	out = append(out, "/etc/gitconfig")
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		out = append(out, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	return out
}

// follow reads the settings file file and, in turn, every file it
// includes. Files are told apart by where they lead, so a cycle ends.
// file itself is read only when it is not a symlink: a command could have
// made it one (.git/config pointing at a file it wrote).
func (in *includes) follow(file string) {
	in.followFrom(file, filepath.Dir(file))
}

// followUser reads a settings file of the user's or the system's
// (userSettingsFiles), which no command can write, as git opens it: through
// symlinks (a dotfiles manager's ~/.gitconfig, NixOS's /etc/gitconfig),
// with its relative includes taken from the folder it is named in. The file
// counts as a target too: when it lies in the workspace (a dotfiles
// repository opened as one), it is protected as an included file is.
func (in *includes) followUser(file string) {
	if in.read == nil {
		in.read, in.targets = map[string]bool{}, map[string]includeTarget{}
	}
	t := resolveAsKernel(file)
	if _, seen := in.targets[t.path]; !seen {
		in.targets[t.path] = t
		in.order = append(in.order, t.path)
	}
	in.followFrom(t.path, resolveAsKernel(filepath.Dir(file)).path)
}

// followFrom reads the settings file at path (not followed if a symlink),
// whose relative includes are taken from the folder dir, and what it
// includes, in turn.
func (in *includes) followFrom(file, dir string) {
	if in.read == nil {
		in.read, in.targets = map[string]bool{}, map[string]includeTarget{}
	}
	type settingsFile struct{ path, dir string }
	queue := []settingsFile{{file, dir}}
	for len(queue) > 0 && len(in.read) < maxIncludedFiles {
		f := queue[0]
		queue = queue[1:]
		if in.read[f.path] {
			continue
		}
		in.read[f.path] = true
		entries, err := readGitConfig(f.path)
		if err != nil {
			continue // not there (yet), or not a file git could read either
		}
		for _, kv := range entries {
			if !isIncludeKey(kv.key) || kv.noValue || kv.value == "" {
				continue
			}
			p, ok := expandIncludePath(kv.value)
			if !ok {
				continue
			}
			if !filepath.IsAbs(p) {
				// git: relative to the folder of the including file as
				// it opened it; the kernel resolves the "..", through
				// symlinks.
				p = f.dir + "/" + p
			}
			t := resolveAsKernel(p)
			if _, seen := in.targets[t.path]; !seen {
				in.targets[t.path] = t
				in.order = append(in.order, t.path)
			}
			// What it includes is relative to the folder git opened it
			// in: the folder of its last component, which may itself
			// be a symlink to a file elsewhere.
			dir := resolveAsKernel(p[:strings.LastIndexByte(p, '/')+1]).path
			queue = append(queue, settingsFile{t.path, dir})
		}
	}
}

// isIncludeKey says whether a setting's name makes git read another file
// as settings: include.path, and includeIf.<condition>.path whatever the
// condition (an unknown condition is false to git today; counting it is
// more, never less).
func isIncludeKey(key string) bool {
	if key == "include.path" {
		return true
	}
	rest, ok := strings.CutPrefix(key, "includeif.")
	return ok && strings.HasSuffix(rest, ".path") && len(rest) > len(".path")
}

// expandIncludePath expands an include path as git's interpolate_path
// does: "~" and "~/…" from HOME, "~user/…" from that user's home folder.
// "%(prefix)/…" names git's own installation, never the workspace.
func expandIncludePath(v string) (string, bool) {
	if strings.HasPrefix(v, "%(prefix)/") {
		return "", false
	}
	if !strings.HasPrefix(v, "~") {
		return v, true
	}
	name, rest, _ := strings.Cut(v[1:], "/")
	var home string
	if name == "" {
		home = os.Getenv("HOME")
	} else if u, err := user.Lookup(name); err == nil {
		home = u.HomeDir
	}
	if home == "" {
		return "", false
	}
	if rest == "" && !strings.Contains(v, "/") {
		return home, true
	}
	return home + "/" + rest, true
}

// resolveAsKernel places the absolute path p as the kernel's open would:
// component by component, following symlinks (at most 40, as the kernel),
// ".." from where the walk stands. What does not exist is kept as written.
func resolveAsKernel(p string) includeTarget {
	t := includeTarget{given: filepath.Clean(p)}
	cur := "/"
	rest := strings.Split(p, "/")
	hops := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			// Not there: the kernel walks the rest through folders a
			// command would have to make.
			t.path = lexicalRest(next, rest, &t.missingDirs)
			return t
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if hops++; hops > 40 {
				t.path = filepath.Join(append([]string{next}, rest...)...)
				return t
			}
			target, err := os.Readlink(next)
			if err != nil {
				t.path = filepath.Join(append([]string{next}, rest...)...)
				return t
			}
			t.links = append(t.links, next)
			if filepath.IsAbs(target) {
				cur = "/"
			}
			rest = append(strings.Split(target, "/"), rest...)
			continue
		}
		if !fi.IsDir() && len(rest) > 0 {
			t.blocker = next
			t.path = filepath.Join(append([]string{next}, rest...)...)
			return t
		}
		cur = next
	}
	t.path = cur
	return t
}

// lexicalRest walks the components rest from the missing entry first,
// noting each folder the kernel would need on the way, and returns where
// the walk ends.
func lexicalRest(first string, rest []string, dirs *[]string) string {
	cur := first
	for _, c := range rest {
		switch c {
		case "", ".":
			continue
		case "..":
			*dirs = append(*dirs, cur)
			cur = filepath.Dir(cur)
			continue
		}
		*dirs = append(*dirs, cur)
		cur = filepath.Join(cur, c)
	}
	return cur
}

// settingsRead returns the settings git reads for the git directory dir:
// the repository's own files (gitSettingsFiles), the user's and the
// system's (userSettingsFiles), and every file they include, in turn; and
// the settings files it read (or looked for): what changes them changes
// the settings.
func settingsRead(dir string) ([]configEntry, []string) {
	var in includes
	var out []configEntry
	for _, f := range gitSettingsFiles(dir) {
		in.follow(f)
	}
	for _, f := range userSettingsFiles() {
		in.followUser(f)
	}
	read := make([]string, 0, len(in.read))
	for f := range in.read {
		read = append(read, f)
		entries, _ := readGitConfig(f)
		out = append(out, entries...)
	}
	return out, read
}

// includeTargets follows the includes of the settings of every git
// directory of repos (found in the workspace ws, with the repositories the
// .git files there point at, inside or not), of the repositories above ws,
// and of the user and the system.
func includeTargets(ws string, repos map[string]gitRepo) []includeTarget {
	out, _ := includeTargetsRead(ws, repos)
	return out
}

// includeTargetsRead is includeTargets, with the settings files it read
// (or looked for).
func includeTargetsRead(ws string, repos map[string]gitRepo) ([]includeTarget, []string) {
	var in includes
	var dirs []string
	for _, r := range repos {
		if r.gitDir != "" {
			dirs = append(dirs, r.gitDir)
		}
	}
	above, _ := reposAbove(ws)
	for _, r := range above {
		dirs = append(dirs, r.gitDir)
	}
	for _, d := range dirs {
		for _, f := range gitSettingsFiles(d) {
			in.follow(f)
		}
	}
	for _, f := range userSettingsFiles() {
		in.followUser(f)
	}
	out := make([]includeTarget, 0, len(in.order))
	for _, p := range in.order {
		out = append(out, in.targets[p])
	}
	read := make([]string, 0, len(in.read))
	for f := range in.read {
		read = append(read, f)
	}
	return out, read
}

// includedReadOnly lists what the view makes read-only so that no file
// git reads as included settings can be written, created or renamed into
// place by a command: each included file in the workspace (an empty one is
// made first where none is, with the folders on its way: git reads an
// empty file as no settings, and a mount needs something to cover), and an
// entry on the way that is not a folder (replaced by one, it would let the
// file be made). links are the symlinks on the way, which the view holds
// as they are; made is what was made, for the caller to remove once no
// command runs (placeholder.go). The folders above all of them are pinned
// by the plan, so none can be renamed away and remade. Everything is made
// inside the workspace's held handle, never through a link.
func includedReadOnly(root *hands.Root, ws string, repos map[string]gitRepo) (readOnly, links []string, made []placeholder, err error) {
	for _, t := range includeTargets(ws, repos) {
		// A link of the workspace on the way matters also when it leads
		// out now: pointed back in, it would have git read a file there.
		for _, l := range t.links {
			if r, ok := within(ws, l); ok && r != "." {
				links = append(links, l)
			}
		}
		ro, m, herr := holdPath(root, ws, t, false)
		made = append(made, m...)
		if herr != nil {
			return nil, nil, made, herr
		}
		readOnly = append(readOnly, ro...)
	}
	return readOnly, links, made, nil
}

// holdPath is what the view makes read-only to hold the path t names in
// the workspace ws (a file when !dir, a folder when dir), so that a
// command can neither make it nor change it: the path itself, made empty
// first when it is not there (with the folders missing on its way, each
// of which is read-only too where the path leaves it again by ".."), or
// the entry on the way that is not a folder. made is what it made. A path
// that cannot be held is an error: the command would be free to make it.
func holdPath(root *hands.Root, ws string, t includeTarget, dir bool) (readOnly []string, made []placeholder, err error) {
	rel, ok := relIn(ws, t.path)
	if !ok {
		return nil, nil, nil
	}
	if t.blocker != "" {
		if _, ok := within(ws, t.blocker); ok {
			readOnly = append(readOnly, t.blocker)
		}
		return readOnly, nil, nil
	}
	if !exists(t.path) && root != nil {
		for _, d := range t.missingDirs {
			r, ok := relIn(ws, d)
			if !ok {
				continue
			}
			m, _ := holdDirs(root, r)
			made = append(made, m...)
			if _, above := within(d, t.path); !above {
				// A folder the walk leaves again by "..": as a link,
				// it would send git elsewhere.
				readOnly = append(readOnly, d)
			}
		}
		if dir {
			m, _ := holdDirs(root, rel)
			made = append(made, m...)
		} else if p, ok := holdFile(root, rel); ok {
			made = append(made, p)
		}
	}
	if !exists(t.path) {
		what := "file some settings include"
		if dir {
			what = "folder a setting has git take hooks from"
		}
		return readOnly, made, fmt.Errorf("sandbox: %s is a %s and is not there; Loupe could not make an empty one to keep commands from making it (something on the way is not a folder Loupe can open); make %s yourself, or change the setting, and run the command again",
			filepath.ToSlash(rel), what, filepath.ToSlash(rel))
	}
	return append(readOnly, t.path), made, nil
}
