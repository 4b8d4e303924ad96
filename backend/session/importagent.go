package session

// ImportFrom is the import of any file Loupe takes: its own export
// (Import) or another agent's session, converted by backend/interop and
// stored by the same path, in one transaction, a stream read once.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/loupe-dev/loupe/backend/interop"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// ImportOptions are what an import of another agent's file needs that the
// file may not say.
type ImportOptions struct {
	// Workspace is the session's folder when the file names none (an
	// ATIF trajectory): a fork works there.
	Workspace string
}

// ImportFrom reads the file r holds, in format from (interop.Loupe,
// ClaudeCode, Codex, ATIF; "" tells it from the file), and stores it as
// Import does: whole or not at all, how saying what to do with a session
// the database has already. A session of another agent keeps its source
// and its id there, and is read-only; importing the same one again is a
// *ClashError as for a Loupe export.
func ImportFrom(ctx context.Context, st *store.Store, r io.Reader, from, how string, opt ImportOptions) (ImportResult, error) {
	switch how {
	case ImportKeepID, ImportAsNew, ImportSkip:
	default:
		return ImportResult{}, fmt.Errorf("import: unknown choice %q for a session that is there already", how)
	}
	br := interop.NewReader(r)
	guessed := false
	if from == "" {
		f, err := interop.Detect(br)
		if err != nil {
			// None that Loupe knows: its own importer says what is wrong
			// as of a Loupe export, and that it is none of the others.
			f, guessed = interop.Loupe, true
		}
		from = f
	}
	if from == interop.Loupe {
		res, err := Import(ctx, st, br, how)
		var ie *ImportError
		if guessed && errors.As(err, &ie) {
			ie.Problem += " (nor is it a Claude Code or Codex CLI session, or an ATIF trajectory)"
		}
		return res, err
	}
	known := false
	for _, s := range interop.Sources {
		known = known || s == from
	}
	if !known {
		return ImportResult{}, fmt.Errorf("import: %q is not a format Loupe imports (it reads %v)", from, interop.Formats)
	}
	p := &agentImport{ctx: ctx, st: st, how: how, opt: opt}
	res, err := p.read(from, br)
	if p.im != nil {
		p.im.Rollback() // after a Commit, nothing
	}
	if errors.Is(err, errSkipped) {
		return p.res, nil
	}
	return res, err
}

// agentImport stores what a converter makes (an interop.Sink).
type agentImport struct {
	ctx     context.Context
	st      *store.Store
	how     string
	opt     ImportOptions
	im      *store.Import
	id      string // the id the file's session is known by here
	clashed bool
	last    string // how the last run ended
	events  int
	res     ImportResult
}

// agentID is the id a session imported from another agent is stored
// under: the same for the same session, so that a second import of it
// is noticed.
func agentID(source, id string) string {
	sum := sha256.Sum256([]byte(source + "\x00" + id))
	return hex.EncodeToString(sum[:8])
}

func (p *agentImport) workspace(m interop.Meta) string {
	if m.Workspace != "" {
		return m.Workspace
	}
	return p.opt.Workspace
}

func (p *agentImport) Start(m interop.Meta) error {
	in := store.Session{Title: m.Title, Workspace: p.workspace(m), Model: m.Model, CreatedAt: m.Created, UpdatedAt: m.Created, Source: m.Source, SourceID: m.SourceID}
	if m.SourceID != "" {
		p.id = agentID(m.Source, m.SourceID)
		taken, err := p.st.Exists(p.ctx, p.id)
		if err != nil {
			return err
		}
		switch {
		case !taken:
			in.ID = p.id
		case p.how == ImportSkip:
			s, err := p.st.GetSession(p.ctx, p.id)
			if err != nil {
				return err
			}
			p.res = ImportResult{Session: Summary{Session: s}, Skipped: true}
			return errSkipped
		case p.how == ImportKeepID:
			// Read to the end all the same: a file that could not be
			// imported anyway says so, rather than asking what to do.
			p.clashed = true
		}
	}
	var err error
	p.im, err = p.st.BeginImport(p.ctx, in, "")
	if errors.Is(err, store.ErrExists) {
		return p.clash()
	}
	return err
}

func (p *agentImport) Event(e trace.Event) error {
	if err := p.ctx.Err(); err != nil {
		return err
	}
	if e.Kind == trace.KindRunEnd {
		end, err := trace.Decode[trace.RunEnd](e)
		if err != nil {
			return err
		}
		p.last = end.Reason
	}
	if err := p.im.Event(e); err != nil {
		return err
	}
	p.events++
	return nil
}

func (p *agentImport) clash() error {
	s, err := p.st.GetSession(p.ctx, p.id)
	if err != nil {
		return err
	}
	return &ClashError{ID: s.ID, Title: s.Title}
}

func (p *agentImport) read(from string, r *bufio.Reader) (ImportResult, error) {
	meta, err := interop.Convert(from, r, p, time.Now())
	if err != nil {
		return ImportResult{}, err
	}
	if p.im == nil {
		return ImportResult{}, fmt.Errorf("not imported: the %s file holds no event; nothing was written", interop.SourceName(from))
	}
	in := store.Session{Title: meta.Title, Workspace: p.workspace(meta), Model: meta.Model, CreatedAt: meta.Created, Source: meta.Source, SourceID: meta.SourceID}
	if in.Title == "" {
		in.Title = "Imported from " + interop.SourceName(from)
	}
	if err := p.im.Describe(in); err != nil {
		return ImportResult{}, err
	}
	if _, err := p.im.Finish(meta.Updated, p.last); err != nil {
		return ImportResult{}, err
	}
	if p.clashed {
		return ImportResult{}, p.clash()
	}
	if err := p.im.Commit(); err != nil {
		return ImportResult{}, err
	}
	sum, err := summaryOf(p.ctx, p.st, p.im.ID())
	if err != nil {
		return ImportResult{}, err
	}
	return ImportResult{Session: sum, Events: p.events}, nil
}

// ReadOnlyError is a change asked of a session imported from another
// agent, which is read-only: a fork of it goes on in Loupe.
type ReadOnlyError struct {
	Title, Source string
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("“%s” was imported from %s and is read-only: fork it to continue on a local model", e.Title, interop.SourceName(e.Source))
}

// readOnly refuses a change of session s when it is imported.
func readOnly(s store.Session) error {
	if s.Source == "" {
		return nil
	}
	return &ReadOnlyError{Title: s.Title, Source: s.Source}
}
