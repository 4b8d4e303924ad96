package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// This file finds the files of the working tree that git runs as programs
// because a setting names them, so the view makes them read-only: a
// command that rewrote one would have the user's next git run what it
// wrote. Settings are read from every file git reads for the repository
// (settingsRead: the system's, the user's, the repository's, config.worktree,
// and all they include), since any of them can name a program of the
// working tree (a relative core.hooksPath in ~/.gitconfig names a folder
// of every repository).

// runsPrograms are the last words of setting names under which git runs a
// program or takes hooks from a folder (git-config(1)): core.fsmonitor,
// core.hooksPath, core.sshCommand, core.pager, core.editor,
// sequence.editor, core.askPass, core.gitProxy, diff.external,
// diff.<driver>.command/textconv, merge.<driver>.driver,
// filter.<driver>.clean/smudge/process, credential.helper, gpg.program,
// gpg.<format>.program, mergetool/difftool.<tool>.cmd/path,
// interactive.diffFilter, web.browser, browser.<tool>.cmd,
// remote.<name>.uploadpack/receivepack/proxy, uploadpack.packObjectsHook,
// core.alternateRefsCommand, sendemail.smtpServer/toCmd/ccCmd,
// imap.tunnel, instaweb.httpd, init.templateDir (whose hooks `git init`
// and `git clone` copy into the new repository), trailer.<key>.command.
var runsPrograms = []string{
	"fsmonitor", "hookspath", "sshcommand", "pager", "editor", "askpass", "gitproxy",
	"external", "textconv", "command", "cmd", "program", "helper", "driver",
	"clean", "smudge", "process", "path", "packobjectshook", "uploadpack", "receivepack",
	"difffilter", "browser", "proxycommand", "update", "proxy", "smtpserver", "tunnel",
	"httpd", "templatedir",
}

// runsProgram says whether a setting has git run a program or take hooks
// from a folder. alias.<name> ("!" runs a shell) and pager.<command> are
// named by what they are for, so any of them counts.
func runsProgram(kv configEntry) bool {
	if isIncludeKey(kv.key) {
		return false
	}
	if strings.HasPrefix(kv.key, "alias.") || strings.HasPrefix(kv.key, "pager.") {
		return true
	}
	last := kv.key[strings.LastIndexByte(kv.key, '.')+1:]
	for _, w := range runsPrograms {
		if strings.HasSuffix(last, w) {
			return true
		}
	}
	return false
}

// programPaths is what the settings git reads for one repository have git
// run in the workspace.
type programPaths struct {
	// paths are the existing files and folders (where they lead), for
	// the view to make read-only; links the symlinks on their way.
	paths, links []string
	// folders are the hooks folders the settings name in the workspace
	// (core.hooksPath, init.templateDir), there or not yet: git runs
	// what is put in them. The file tools ask before writing anything
	// under them.
	folders []includeTarget
	// missing are those of folders that are not there yet: the view
	// holds an empty read-only folder in their place for the command's
	// time, so that it cannot make one and fill it.
	missing []includeTarget
	// files are the program files a command line names by a path (a
	// word with a "/"), there or not yet, and any existing file a word
	// names: the file tools ask before writing them.
	files []includeTarget
	// away are the hooks folders the settings name in the workspace
	// that symbolic links there lead out of it: nothing outside is held,
	// so the check after the round looks at the links (newHooksFolders).
	away []includeTarget
	// self: a hooks folder the settings name is the workspace itself
	// (HooksFolderOf).
	self bool
	// read are the settings files read (there or not), for FactsOf to
	// tell when they change.
	read []string
}

// folderSettings are the settings whose value is a folder git takes
// programs from: core.hooksPath (githooks(5): the hooks git runs) and
// init.templateDir (git-init(1), TEMPLATE DIRECTORY: its hooks/ is copied
// into every repository git init and git clone make, and run there).
// git-config(1) names no other setting whose folder holds programs.
func holdsFolder(key string) bool {
	return key == "core.hookspath" || key == "init.templatedir"
}

// programsOf finds the files and folders under ws that the
// settings git reads for the repository r have git run: a hooks folder
// (core.hooksPath = .husky, ~/proj/.githooks, relative to the working
// tree, where git runs hooks), and every word of a command line that names
// an existing file (core.fsmonitor = sh tools/fsmon.sh holds
// tools/fsmon.sh; "!" and quotes taken off, "~/" and "$HOME/" expanded as
// git or the shell would). A relative word is taken from the top of the
// working tree (where git runs hooks, filters, fsmonitor and "!" aliases)
// and from the workspace. A hooks folder named "_" (how husky lays out its
// hooks: "_/h" runs the scripts beside it) counts with its parent.
//
// A program or folder reached through symlinks of the workspace
// (node_modules/.bin/x) is held where it leads, and the links on the way
// are returned as links, for the view to hold as they are: a link made
// read-only would be refused, and one left writable could be pointed at a
// file of the command's own.
func programsOf(r gitRepo, ws string) programPaths {
	var pp programPaths
	top := worktreeOf(r)
	// A bare repository runs its hooks in its git directory; a .git
	// folder's, a .git file's and a linked worktree's in their working
	// tree.
	bare := r.pointer == "" && filepath.Base(r.gitDir) != ".git" && !isWorktreeGitDir(r.gitDir)
	note := func(p string, folder, named bool) {
		p = filepath.Clean(p)
		if folder && filepath.Base(p) == "_" {
			p = filepath.Dir(p)
		}
		// Resolved first: a path outside (~/bin/mon) can lead in.
		t := resolveAsKernel(p)
		if rel, ok := within(ws, t.path); folder && ok && rel == "." {
			pp.self = true
		}
		if rel, ok := within(ws, t.path); !ok || rel == "." {
			if rel, ok := within(ws, t.given); folder && ok && rel != "." && len(t.links) > 0 {
				pp.away = append(pp.away, t)
			}
			return
		}
		if !exists(t.path) {
			switch {
			case folder:
				pp.folders = append(pp.folders, t)
				pp.missing = append(pp.missing, t)
			case named:
				pp.files = append(pp.files, t)
			}
			return
		}
		fi, err := os.Lstat(t.path)
		if err == nil && !folder && fi.IsDir() {
			return // a word naming a folder (cd tools) is not a program
		}
		if folder {
			pp.folders = append(pp.folders, t)
		} else {
			pp.files = append(pp.files, t)
		}
		for _, l := range t.links {
			if rel, ok := within(ws, l); ok && rel != "." {
				pp.links = append(pp.links, l)
			}
		}
		pp.paths = append(pp.paths, t.path)
	}
	entries, read := settingsRead(r.gitDir)
	pp.read = read
	for _, kv := range entries {
		if kv.value == "" || !runsProgram(kv) {
			continue
		}
		if holdsFolder(kv.key) {
			// A path-valued setting: git expands "~" (interpolate_path);
			// relative is from where the hooks run: the top of the
			// working tree, the git directory in a bare repository.
			p, ok := expandHome(kv.value)
			if !ok {
				continue
			}
			if filepath.IsAbs(p) {
				note(p, true, true)
				continue
			}
			if !bare {
				note(filepath.Join(top, p), true, true)
			}
			// A bare repository runs its hooks in the git directory; a
			// folder there that exists is held in any repository.
			if g := filepath.Join(r.gitDir, p); bare || exists(g) {
				note(g, true, true)
			}
			continue
		}
		for _, w := range commandWords(kv.value) {
			p, ok := expandHome(w)
			if !ok || p == "" {
				continue
			}
			named := strings.Contains(w, "/")
			if filepath.IsAbs(p) {
				note(p, false, named)
				continue
			}
			note(filepath.Join(top, p), false, named)
			note(filepath.Join(ws, p), false, named)
		}
	}
	return pp
}

// expandHome expands a leading "~", "~user" (as git's interpolate_path
// and the shell do) or "$HOME"/"${HOME}" (as the shell does).
func expandHome(p string) (string, bool) {
	for _, v := range []string{"$HOME", "${HOME}"} {
		if p == v || strings.HasPrefix(p, v+"/") {
			home := os.Getenv("HOME")
			if home == "" {
				return "", false
			}
			return home + p[len(v):], true
		}
	}
	return expandIncludePath(p)
}

// commandWords splits a command line as a shell would, roughly: at blanks
// and at the shell's operators, with quotes and backslashes taken out, and
// also at "=" (an assignment or an option's value, --hook=tools/x) and
// after a leading "!" (git's alias). It is meant to find every word that
// could name a file; splitting more finely only finds more.
func commandWords(v string) []string {
	v = strings.TrimPrefix(strings.TrimSpace(v), "!")
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v):
			i++
			cur.WriteByte(v[i])
		case c == '\'' || c == '"' || c == '`':
			// Quotes join what they hold into the word; their contents
			// are split too (sh -c 'tools/x'), which finds more.
			flush()
		case strings.IndexByte(" \t\n\r;&|()<>={}!", c) >= 0:
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	// A quoted name with blanks in it ("tools/my hook.sh") as one word.
	for _, q := range []string{"'", "\""} {
		parts := strings.Split(v, q)
		for i := 1; i < len(parts)-1; i += 2 {
			if w := strings.TrimSpace(parts[i]); w != "" {
				words = append(words, w)
			}
		}
	}
	return words
}
