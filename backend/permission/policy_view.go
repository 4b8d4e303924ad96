package permission

import (
	"path"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// CommandGuard says what a confined command may do with each path of the
// workspace, for the sandbox to enforce with read-only and hiding mounts.
// It is the OS side of the same rules the policy applies to the file
// tools: protected paths (.git/config, hooks, .env*, .loupe/, and those of
// every repository and submodule in the workspace) are read-only, and paths
// a deny rule names for every tool or for run_command are hidden. This
// holds whatever a command does that the classifier cannot see (inline
// interpreter code, a script, a glob), because the kernel enforces it.
//
// Ask rules on paths are not enforced here: a command cannot stop to ask
// per file, so such paths stay writable for commands the user approved.
func (p Policy) CommandGuard() sandbox.PathGuard {
	protected := slices.DeleteFunc(p.protectedPaths(), func(pr protectedPath) bool { return pr.toolsOnly || pr.viewCovers })
	files := slices.DeleteFunc(slices.Clone(protected), func(pr protectedPath) bool { return pr.notDirs })
	var denied []*pathPattern
	for _, r := range p.ruleSet().deny {
		if r.path != nil && r.appliesTo(RunCommand) {
			denied = append(denied, r.path)
		}
	}
	return func(rel string, isDir bool) sandbox.Access {
		for _, pp := range denied {
			if pp.match(rel) {
				return sandbox.Hidden
			}
		}
		list := protected
		if isDir {
			list = files
		}
		if _, ok := protectedBy(list, rel); ok {
			return sandbox.ReadOnly
		}
		if isGitDirFile(rel) {
			return sandbox.ReadOnly
		}
		return sandbox.Writable
	}
}

// isGitDirFile reports the files inside a repository (a .git directory, or
// one of its submodules' or worktrees') that git reads settings or commands
// from: a command that wrote them could make git run code the next time
// the user runs it.
func isGitDirFile(rel string) bool {
	i := strings.Index("/"+rel, "/.git/")
	if i < 0 {
		return false
	}
	inside := rel[i+len(".git/"):]
	if gitSettings[inside] {
		return true
	}
	// A submodule's repository is .git/modules/NAME (NAME may hold
	// slashes), a worktree's .git/worktrees/NAME: their settings are
	// judged by name, whatever the depth.
	if strings.HasPrefix(inside, "modules/") || strings.HasPrefix(inside, "worktrees/") {
		return gitSettings[path.Base(inside)] || strings.HasSuffix(inside, "/info/attributes")
	}
	return false
}

// gitSettings are the files and directories of a repository, relative to
// it, that hold settings, hooks or pointers git follows.
var gitSettings = map[string]bool{
	"config": true, "config.worktree": true, "hooks": true, "commondir": true, "gitdir": true, "info/attributes": true,
}
