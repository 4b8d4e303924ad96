package tools

import (
	"context"
	"fmt"
)

// Guard holds a tool to what was decided about its call. Permission is
// decided before a call runs, and a parallel command can turn a path into
// a symlink in between; so a tool that reads or changes a file calls
// Check once it has opened what it will use, with the path it really
// opened (workspace-relative, slash-separated, no symlinks: the file
// itself for a read, the entry the new content is renamed onto for a
// write). A non-nil error refuses the call before anything is read or
// written; its text is for the model.
type Guard interface {
	Check(rel string) error
}

type guardKey struct{}

// WithGuard gives the tools run with ctx the guard of their call. The
// agent passes the one the permission policy made for the call.
func WithGuard(ctx context.Context, g Guard) context.Context {
	return context.WithValue(ctx, guardKey{}, g)
}

// guardOf returns ctx's guard, or nil.
func guardOf(ctx context.Context) Guard {
	g, _ := ctx.Value(guardKey{}).(Guard)
	return g
}

// checkOpened runs ctx's guard, if any, on rel.
func checkOpened(ctx context.Context, rel string) error {
	if g := guardOf(ctx); g != nil {
		return g.Check(rel)
	}
	return nil
}

// changedError reports that a path changed between being resolved and
// being opened (a directory or file on the way was replaced, say by a
// symlink). Nothing was read or written.
type changedError struct {
	path string
	op   string // "read", "written" or "" (not known yet)
}

func (e *changedError) Error() string {
	op := e.op
	if op == "" {
		op = "read or written"
	}
	return fmt.Sprintf("%s changed while Loupe was opening it (something on the way was replaced, for example by a symlink); nothing was %s. Check the path and call again if it is still the file you mean", e.path, op)
}
