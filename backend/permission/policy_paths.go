package permission

import (
	"errors"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/loupe-dev/loupe/backend/hands"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/tools"
)

// This file places a call's paths in the workspace (through symlinks)
// and says which of them are protected.

// paths is a call's paths placed in the workspace.
type paths struct {
	rel     []string // lexical, workspace-relative
	alias   []string // the same seen through symlinks, when different
	outside []string // as given, for paths that lead out of the workspace
}

func (ps paths) all() []string { return append(append([]string{}, ps.rel...), ps.alias...) }

func (p Policy) place(list []string) paths {
	var ps paths
	var ws *tools.Workspace
	if p.Workspace != "" && len(list) > 0 {
		// One handle on the workspace for all of the call's paths; if it
		// cannot be opened, paths are placed lexically only (the tools
		// cannot open it either).
		if w, err := tools.OpenWorkspace(p.Workspace); err == nil {
			ws = w
			defer w.Close()
		}
	}
	for _, q := range list {
		rel, alias, ok := p.placeOne(ws, q)
		if !ok {
			ps.outside = append(ps.outside, q)
			continue
		}
		ps.rel = append(ps.rel, rel)
		if alias != "" && alias != rel {
			ps.alias = append(ps.alias, alias)
		}
	}
	return ps
}

// placeOne makes q workspace-relative. alias is where q really leads, as
// the tools resolve it (tools.Workspace.Resolve: every symlink followed
// the way opening q follows it; the part that does not exist kept as
// given), when the workspace is open.
func (p Policy) placeOne(ws *tools.Workspace, q string) (rel, alias string, ok bool) {
	q = cleanPath(q)
	if path.IsAbs(q) || filepath.IsAbs(filepath.FromSlash(q)) {
		if p.Workspace == "" {
			return "", "", false
		}
		r, ok := p.relTo(filepath.FromSlash(q))
		if !ok {
			return "", "", false
		}
		q = r
	}
	if q == ".." || strings.HasPrefix(q, "../") {
		return "", "", false
	}
	if ws == nil {
		return q, "", true
	}
	r, err := ws.Resolve(q)
	switch {
	case errors.Is(err, tools.ErrOutsideWorkspace):
		return "", "", false // a symlink leads out
	case err != nil:
		// The tool cannot open it either (a file on the way is not a
		// directory, a symlink loop): it will fail the same way.
		return q, "", true
	}
	return q, r.Real, true
}

// relTo makes an absolute path relative to the workspace, as given or
// with its symlinks resolved.
func (p Policy) relTo(abs string) (string, bool) {
	bases := []string{p.Workspace}
	if real, err := filepath.EvalSymlinks(p.Workspace); err == nil {
		bases = append(bases, real)
	}
	for _, b := range bases {
		r, err := filepath.Rel(b, abs)
		if err != nil {
			continue
		}
		r = filepath.ToSlash(r)
		if r != ".." && !strings.HasPrefix(r, "../") && !filepath.IsAbs(r) {
			return r, true
		}
	}
	return "", false
}

// Built-in protected paths: changing them always asks, in every mode.
var builtinProtected = []string{
	"**/.git/config",
	"**/.git/config.worktree",
	"**/.git/hooks",
	"**/.git/modules/**/config", // submodules' repositories
	"**/.git/modules/**/hooks",
	// Settings and pointers git follows (sandbox.GitOwnFile), in a .git
	// folder and in its linked worktrees' and submodules' folders, also
	// before they exist.
	"**/.git/{commondir,gitdir,info/attributes}",
	"**/.git/worktrees/*/{config.worktree,commondir,gitdir}",
	// A worktrees/NAME folder without a commondir is a repository of
	// its own to git (once it has a HEAD): its config and hooks are
	// read as any repository's.
	"**/.git/worktrees/*/{config,hooks}",
	"**/.git/modules/**/{config.worktree,commondir,info/attributes}",
	".env*",
	"/.loupe", // workspace settings: the model must not trust itself
}

type protectedPath struct {
	pattern string
	pp      *pathPattern
	exact   string
	// toolsOnly: not read-only for commands (CommandGuard).
	toolsOnly bool
	// notDirs: it protects what is not a folder only; a folder of the
	// name is judged by what it holds (CommandGuard is told which).
	notDirs bool
	// viewCovers: the sandbox's view makes it read-only on its own, so
	// the command guard need not judge it.
	viewCovers bool
	// is, when set, judges a path by what the workspace holds: git's own
	// files of a git directory of any layout. It asks look (p.on) what
	// is there: Loupe's own process passes what it holds open.
	is func(look hands.Look, rel string) bool
	// why, when set and not empty, is said instead of pattern: the list
	// could not be made whole, and is protects every path.
	why func() string
	// unseen, when set, says why the walk that makes the list could not
	// see the whole workspace ("" when it could).
	unseen func() string
}

// newRepositoryHead protects, from the file tools only, a HEAD in a folder
// that is not a git directory yet, wherever the folder is: a folder is a
// repository once it has a HEAD (with objects and refs), so a file tool
// writing one could finish a repository whose settings it wrote before,
// which git would then run. Inside a git directory too (.git/x,
// .git/logs/x, .git/worktrees/NEW, .git/modules/m/x, sub/.git/x): a
// folder there is as much a repository to git once it has a HEAD, and a
// .git file or a submodule sends git into it. Commands are not held to it
// (git writes HEAD); what they make is checked after the round
// (sandbox.Sweep).
func (p Policy) newRepositoryHead() protectedPath {
	ws := p.Workspace
	return protectedPath{pattern: "a HEAD makes its folder a git repository", toolsOnly: true, is: func(look hands.Look, rel string) bool {
		rel = path.Clean(rel)
		if path.Base(rel) != "HEAD" {
			return false
		}
		return !gitDirAt(ws, look, path.Dir(rel))
	}}
}

// gitPointerFile protects every entry named .git that is not a folder (a
// submodule's lib/.git, a linked worktree's wt/.git, the workspace's own
// when it is one, and one not there yet): its "gitdir:" line sends git to
// a repository elsewhere, whose settings and hooks git then takes, so a
// file tool writing one could have the user's git run a repository it laid
// out. The same entry makes such a file read-only to commands
// (CommandGuard); a .git folder is judged by what it holds.
func (p Policy) gitPointerFile() protectedPath {
	ws := p.Workspace
	return protectedPath{pattern: "a .git file sends git to the repository it names", notDirs: true, is: func(look hands.Look, rel string) bool {
		rel = path.Clean(rel)
		if path.Base(rel) != ".git" {
			return false
		}
		fi, err := on(ws, look).Lstat(rel)
		return err != nil || !fi.IsDir()
	}}
}

// repositoryInTheMaking protects, from the file tools only, what would
// finish a git repository in a folder that has begun to be one (it holds a
// HEAD, as a command can leave it without it being a git directory yet): git's own files there (its config, hooks)
// and the parts a repository is made of (HEAD, objects/, refs/). Otherwise
// a command could leave half a repository and file tools, which the
// check after a round does not follow, could write its config and then
// finish it, so that the user's next git would run what the config names.
// The workspace itself counts as such a folder too.
func (p Policy) repositoryInTheMaking() protectedPath {
	ws := p.Workspace
	return protectedPath{pattern: "files that would make a git repository of a folder that has begun to be one", toolsOnly: true, is: func(look hands.Look, rel string) bool {
		rel = path.Clean(rel)
		for d := path.Dir(rel); ; d = path.Dir(d) {
			tail := rel
			if d != "." {
				tail = strings.TrimPrefix(rel, d+"/")
			}
			first, _, _ := strings.Cut(tail, "/")
			if (sandbox.GitOwnFile(tail) || first == "HEAD" || first == "objects" || first == "refs") && begunRepository(on(ws, look), d) {
				return true
			}
			if d == "." {
				return false
			}
		}
	}}
}

// includedSettings protects the files that any settings git reads for a
// repository in or above the workspace include (include.path, includeIf,
// nested, whatever the condition, existing or not: sandbox.GitFacts.Included):
// git reads them as its own settings. They come from sandbox.FactsOf,
// once per list, when a path is first judged against it (a read judges
// none); FactsOf walks the workspace only when something they were worked
// out from may have changed. The sandbox's view finds them itself from its
// own walk (and makes the missing ones so that it can cover them), so the
// command guard skips this one.
func (p Policy) includedSettings(facts func() sandbox.GitFacts) protectedPath {
	var once sync.Once
	files := map[string]bool{}
	var unseen string
	load := func() {
		f := facts()
		for _, inc := range f.Included {
			files[inc] = true
		}
		unseen = unseenWhy("files git reads as settings", f.Unseen)
	}
	return protectedPath{pattern: "a file the repository's settings include", viewCovers: true, is: func(_ hands.Look, rel string) bool {
		once.Do(load)
		return files[path.Clean(rel)]
	}, unseen: func() string { once.Do(load); return unseen }}
}

// unseenWorkspace protects, from the file tools, every path when the walk
// for the files git reads as settings (inc, includedSettings) could not
// see the whole workspace (a folder Loupe cannot list that git can enter,
// more entries than Loupe checks): any file could be one, or a program git
// runs (the same walk). Commands are not judged by it: the view makes a
// folder Loupe cannot list read-only to them.
func unseenWorkspace(inc protectedPath) protectedPath {
	return protectedPath{pattern: "the workspace could not be checked whole", toolsOnly: true,
		is: func(hands.Look, string) bool { return inc.unseen() != "" }, why: inc.unseen}
}

// unseenWhy is what a protected path says when the walk that makes its
// list could not see the whole workspace: every write asks, since the file
// could be any of them. "" when err is nil.
func unseenWhy(what string, err error) string {
	if err == nil {
		return ""
	}
	return "Loupe could not check the whole workspace for " + what + " (" + err.Error() + "), so every file it writes could be one"
}

// sequencerState protects, from the file tools, what git keeps of a
// rebase, cherry-pick or revert under way in a git directory of any
// layout (sandbox.SequencerFile): the todo list's exec lines run on the
// user's `git rebase --continue`. Commands may write it (git does, as it
// rebases); what one leaves there is checked after the round.
func (p Policy) sequencerState() protectedPath {
	ws := p.Workspace
	return protectedPath{pattern: "git's record of a rebase under way (its exec lines run on git rebase --continue)", toolsOnly: true, is: func(look hands.Look, rel string) bool {
		rel = path.Clean(rel)
		for d := path.Dir(rel); ; d = path.Dir(d) {
			tail := rel
			if d != "." {
				tail = strings.TrimPrefix(rel, d+"/")
			}
			if sandbox.SequencerFile(tail) && (path.Base(d) == ".git" || gitDirAt(ws, look, d)) {
				return true
			}
			if d == "." {
				return false
			}
		}
	}}
}

// programsOfSettings protects, from the file tools, what a setting has git
// run in the working tree: a program file a command line names
// (core.fsmonitor = tools/w.sh) and everything in a hooks folder the
// settings name (core.hooksPath = .githooks, init.templateDir), there or
// not yet, from any settings file git reads for a repository of the
// workspace (sandbox.FactsOf). Written by a file tool, it would run on the
// user's next git. The view holds the same paths for commands itself
// (read-only, and an empty folder where a hooks folder is not there yet).
func (p Policy) programsOfSettings(facts func() sandbox.GitFacts) protectedPath {
	var once sync.Once
	var files map[string]bool
	var folders []string
	return protectedPath{pattern: "a program or hooks folder a git setting names", viewCovers: true, is: func(_ hands.Look, rel string) bool {
		once.Do(func() {
			f := facts()
			files = map[string]bool{}
			for _, p := range f.Programs {
				files[p] = true
			}
			folders = f.Folders
		})
		rel = path.Clean(rel)
		if files[rel] {
			return true
		}
		for _, d := range folders {
			if rel == d || strings.HasPrefix(rel, d+"/") {
				return true
			}
		}
		return false
	}}
}

// begunRepository says whether dir holds a HEAD without necessarily being
// a git directory yet. (A HEAD is what a file tool cannot add to a folder
// without asking, newRepositoryHead; objects/ and refs/ alone are common
// folder names, and a repository needs its HEAD.)
func begunRepository(look hands.Look, dir string) bool {
	_, err := look.Lstat(path.Join(dir, "HEAD"))
	return err == nil
}

// on is what a judgement asks of the workspace ws: look, the folders
// Loupe's own process holds open to change (backend/hands), or, for a
// tool's call (which opens its path itself), the workspace by path.
func on(ws string, look hands.Look) hands.Look {
	if look != nil {
		return look
	}
	return sandbox.PathLook(ws)
}

// gitDirAt says whether the folder rel of the workspace ws is a git
// directory of any layout, as look (on) sees it.
func gitDirAt(ws string, look hands.Look, rel string) bool {
	name := path.Base(rel)
	if rel == "." {
		name = filepath.Base(ws)
	}
	return sandbox.IsGitDirIn(on(ws, look), rel, name)
}

// gitOwnFiles is the protected path of git's own files (settings, hooks,
// pointers: sandbox.GitOwnFile) in every git directory of the workspace
// whatever its name or layout (a bare repository in a folder, a linked
// worktree's folder, a submodule's), and in the workspace itself when it
// is a git directory or lies in one (a workspace opened on a .git folder:
// its "config" is .git/config). The patterns above cover .git folders
// even before they exist; this covers what has another name.
func (p Policy) gitOwnFiles() protectedPath {
	// Where the workspace sits in a git directory, if it does: the
	// workspace itself or a folder above it.
	var above, sub string
	if real, err := filepath.EvalSymlinks(p.Workspace); err == nil {
		for d, s := real, ""; ; {
			if sandbox.IsGitDir(d) {
				above, sub = d, s
				break
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			s = path.Join(filepath.Base(d), s)
			d = parent
		}
	}
	ws := p.Workspace
	return protectedPath{pattern: "a repository's own files (settings, hooks)", is: func(look hands.Look, rel string) bool {
		rel = path.Clean(rel)
		if above != "" && sandbox.GitOwnFile(path.Join(sub, rel)) {
			return true
		}
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			if sandbox.GitOwnFile(strings.TrimPrefix(rel, d+"/")) && gitDirAt(ws, look, d) {
				return true
			}
		}
		return false
	}}
}

// namedGitDirFiles protects, from the file tools, git's own files
// (sandbox.GitOwnFile) and what makes a repository (HEAD, objects/, refs/)
// in every folder of the workspace that a commondir file or a .git file
// names as a git directory (sandbox.GitFacts.Named): git takes the settings
// and hooks of a linked worktree from the folder its commondir names, and
// that folder needs no HEAD of its own, so nothing in it says
// "repository". Finding them walks the workspace (sandbox.FactsOf keeps
// what the walk found while nothing it read changed), so they are asked
// for once per list and only when a path to judge could be one of those
// files (most paths cannot). Commands are not judged by it: the sandbox's view finds
// the same folders in its own walk and makes their files read-only.
func (p Policy) namedGitDirFiles(facts func() sandbox.GitFacts) protectedPath {
	var once sync.Once
	var named map[string]bool
	var unseen string
	return protectedPath{pattern: "git's own files (settings, hooks) of a folder a commondir or a .git file sends git to", toolsOnly: true, why: func() string { return unseen }, is: func(_ hands.Look, rel string) bool {
		rel = path.Clean(rel)
		for d := path.Dir(rel); ; d = path.Dir(d) {
			tail := rel
			if d != "." {
				tail = strings.TrimPrefix(rel, d+"/")
			}
			first, _, _ := strings.Cut(tail, "/")
			if sandbox.GitOwnFile(tail) || first == "HEAD" || first == "objects" || first == "refs" {
				once.Do(func() {
					named = map[string]bool{}
					f := facts()
					for _, n := range f.Named {
						named[n] = true
					}
					unseen = unseenWhy("folders git is sent to as git directories", f.Unseen)
				})
				if named[d] || unseen != "" {
					return true
				}
			}
			if d == "." {
				return false
			}
		}
	}}
}

// linkedGitFiles protects what git's own files of the workspace's
// repository lead to when they are symbolic links (.git/config ->
// ../shared/gitconfig, .git/hooks -> ../scripts/hooks): git reads and runs
// the link's target, so a file tool writing the target writes git's
// settings or hooks. Read once per list (a few lstat calls).
func (p Policy) linkedGitFiles() protectedPath {
	targets := sandbox.LinkedGitFiles(p.Workspace)
	return protectedPath{pattern: "what a git setting or hooks link of the repository leads to", is: func(_ hands.Look, rel string) bool {
		rel = path.Clean(rel)
		for _, t := range targets {
			if rel == t || strings.HasPrefix(rel, t+"/") {
				return true
			}
		}
		return false
	}}
}

// builtinCompiled is builtinProtected compiled, once: every decision on a
// path starts from it.
var builtinCompiled = sync.OnceValue(func() []protectedPath {
	out := make([]protectedPath, 0, len(builtinProtected))
	for _, pat := range builtinProtected {
		pp, err := compilePath(pat, true)
		if err != nil {
			panic(err)
		}
		out = append(out, protectedPath{pattern: pat, pp: pp})
	}
	return out
})

func (p Policy) protectedPaths() []protectedPath {
	builtin := builtinCompiled()
	// The list grows below: a copy, so that the shared one is never
	// written to.
	out := append(make([]protectedPath, 0, len(builtin)+8), builtin...)
	if p.Workspace == "" {
		return out
	}
	// The git layout the walk finds, asked for once per list and only
	// when a path is judged that needs it.
	var once sync.Once
	var f sandbox.GitFacts
	facts := func() sandbox.GitFacts {
		once.Do(func() { f = sandbox.FactsOf(p.Workspace) })
		return f
	}
	inc := p.includedSettings(facts)
	out = append(out, p.gitOwnFiles(), p.gitPointerFile(), p.newRepositoryHead(), p.repositoryInTheMaking(), inc, p.programsOfSettings(facts))
	out = append(out, p.namedGitDirFiles(facts), p.linkedGitFiles(), p.sequencerState(), unseenWorkspace(inc))
	for _, f := range p.ProtectedFiles {
		if f == "" {
			continue
		}
		cands := []string{f}
		if r, err := filepath.EvalSymlinks(f); err == nil {
			cands = append(cands, r)
		}
		for _, cand := range cands {
			if rel, ok := p.relTo(cand); ok {
				for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
					out = append(out, protectedPath{pattern: "Loupe's own file", exact: rel + suffix})
				}
			}
		}
	}
	return out
}

// protectedBy says which protected pattern covers rel, judged by the
// workspace as its path leads to it (a tool's call).
func protectedBy(list []protectedPath, rel string) (string, bool) { return protectedAt(list, nil, rel) }

// protectedAt says which protected pattern covers rel, judged by what look
// finds (nil: by path).
func protectedAt(list []protectedPath, look hands.Look, rel string) (string, bool) {
	for _, pr := range list {
		if pr.pp != nil && pr.pp.match(rel) || pr.exact != "" && strings.EqualFold(pr.exact, rel) || pr.is != nil && pr.is(look, rel) {
			if pr.why != nil {
				if w := pr.why(); w != "" {
					return w, true
				}
			}
			return pr.pattern, true
		}
	}
	return "", false
}

// ProtectedCheck is the protected-path judgement on its own, for what
// Loupe's own process changes in the workspace (backend/hands): the same
// list the policy asks for (the built-in patterns and Loupe's own files
// with their -wal, -shm and -journal when they lie in the workspace),
// compiled once. It takes a clean workspace-relative slash path and says
// which pattern covers it; what it must know of the workspace (is this
// folder a repository, is this .git a file) it asks the hands.Look it is
// given: the folders the change is made in, held open, never a path
// resolved again.
func (p Policy) ProtectedCheck() hands.Protected {
	list := p.protectedPaths()
	return func(look hands.Look, rel string) (string, bool) { return protectedAt(list, look, rel) }
}
