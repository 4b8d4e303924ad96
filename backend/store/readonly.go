package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// OpenReadOnly opens the database at path for reading only, as `loupe
// export` needs: it writes, creates and migrates nothing there. A missing
// file is refused (ErrNoDatabase), and so is every file Open refuses, by
// the same checks of its raw header and WAL.
//
// SQLite cannot open a WAL database in place without writing: a mode=ro
// connection creates the -wal and -shm of a database closed cleanly and
// rebuilds or updates the index in the -shm of one left open; immutable=1
// writes nothing but ignores the WAL, where the newest commits may be.
// So the store reads a private copy of the main file and its -wal (and a
// -journal, had a rollback-mode Loupe left one), made in a temporary
// folder that Close removes; the -shm, only an index of the WAL, is left
// out, and SQLite rebuilds it in the copy. A copy of an older schema is
// migrated by the same migrations Open runs, so what is read is what Open
// would show, while the file itself stays as an older Loupe left it.
//
// The copy costs a read of the whole file. Another process writing the
// database meanwhile is noticed by comparing the files before and after
// (see copyDatabase). Writes through the store fail: its connections are
// read-only too.
func OpenReadOnly(path string) (*Store, error) {
	migs, err := loadMigrations()
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return nil, &OpenError{Path: abs, Err: ErrNoDatabase}
	} else if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if err := checkFiles(abs, len(migs)); err != nil {
		return nil, err
	}

	tmp, err := os.MkdirTemp("", "loupe-read-*") // 0700: sessions hold code and prompts
	if err != nil {
		return nil, fmt.Errorf("store: copy %s for reading: %w", abs, err)
	}
	fail := func(err error) (*Store, error) {
		os.RemoveAll(tmp)
		// Errors about the copy name the file the user gave.
		var oe *OpenError
		if errors.As(err, &oe) {
			oe.Path = abs
		}
		return nil, err
	}
	cp := filepath.Join(tmp, filepath.Base(abs))
	if err := copyDatabase(abs, cp); err != nil {
		return fail(err)
	}
	// The copy is checked again and migrated by SQLite, as Open would do
	// to the file (nothing to do when it is current). Closing that store
	// checkpoints the copy's WAL into the copy.
	mig, err := open(cp, migs)
	if err != nil {
		return fail(err)
	}
	if err := mig.Close(); err != nil {
		return fail(fmt.Errorf("store: open %s: %w", abs, err))
	}
	s, err := openCopy(cp, abs, len(migs))
	if err != nil {
		return fail(err)
	}
	s.tmp = tmp
	return s, nil
}

// checkFiles is Open's look at the files of the database at abs before
// SQLite touches them: its raw header and, where the newest page 1 may
// be, its WAL.
func checkFiles(abs string, known int) error {
	h, exists, err := readHeader(abs)
	if err != nil {
		return err
	}
	if exists {
		if err := h.check(abs, known); err != nil {
			return err
		}
	}
	if h, inWAL, err := readWALHeader(abs); err != nil {
		return err
	} else if inWAL {
		if err := h.check(abs, known); err != nil {
			return err
		}
	}
	return nil
}

// openCopy opens the migrated copy cp of the database at abs with
// read-only connections only. Its "writer" is one too, so that the
// statements Store prepares there exist and any write fails ("attempt to
// write a readonly database") instead of changing a copy Close throws
// away.
func openCopy(cp, abs string, known int) (*Store, error) {
	ctx := context.Background()
	s := &Store{path: abs, now: time.Now}
	ro := dsn(cp, "mode=ro", busyTimeout)
	var err error
	if s.r, err = sql.Open("sqlite", ro); err != nil {
		return nil, fmt.Errorf("store: open %s for reading: %w", abs, err)
	}
	n := max(2, runtime.NumCPU())
	s.r.SetMaxOpenConns(n)
	s.r.SetMaxIdleConns(n)
	if s.w, err = sql.Open("sqlite", ro); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open %s for reading: %w", abs, err)
	}
	s.w.SetMaxOpenConns(1)
	if err := checkSQLiteHeader(ctx, s.r, abs, known); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.prepareStatements(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	return s, nil
}

// copiedSuffixes are the files of a database that hold its content: the
// main file, its write-ahead log, and the rollback journal a database in
// that mode may have left.
var copiedSuffixes = [...]string{"", "-wal", "-journal"}

// copyAttempts bounds how often copyDatabase starts again because another
// process wrote the database while it was being copied.
const copyAttempts = 5

// copyDatabase copies the files of the database at src that exist to dst
// (the same names), opening the originals only to read them. A process
// with the database open may write it meanwhile: append to the WAL,
// checkpoint it into the main file, start the log again or remove it. The
// main file is copied first and the WAL after it, so pages a checkpoint
// writes during the copy are in the WAL's copy too, which SQLite reads
// over the main file's: the copy is one committed state as long as the
// log was not started again or removed in between. That changes the WAL's
// header (its salts) or its presence; which files exist, their size, time
// and identity, and the WAL's header are taken before and after, and the
// copy is made again, a little later, when they differ, and refused after
// copyAttempts tries.
func copyDatabase(src, dst string) error {
	for attempt := range copyAttempts {
		time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
		before, err := stampOf(src)
		if err != nil {
			return err
		}
		for _, suffix := range copiedSuffixes {
			if err := copyFile(src+suffix, dst+suffix); err != nil {
				return err
			}
		}
		after, err := stampOf(src)
		if err != nil {
			return err
		}
		if before.same(after) {
			return nil
		}
	}
	return fmt.Errorf("store: %s kept changing while it was copied for reading; try again", src)
}

// stamp is the state of the files of a database, as far as a copy of
// them cares: for each of copiedSuffixes its FileInfo (nil if missing),
// and the WAL's header.
type stamp struct {
	files  [len(copiedSuffixes)]fs.FileInfo
	walHdr []byte
}

func stampOf(path string) (stamp, error) {
	var st stamp
	for i, suffix := range copiedSuffixes {
		fi, err := os.Stat(path + suffix)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return st, fmt.Errorf("store: %w", err)
		}
		st.files[i] = fi
	}
	f, err := os.Open(path + "-wal")
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	h := make([]byte, 32)
	n, err := io.ReadFull(f, h)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return st, fmt.Errorf("store: read %s-wal: %w", path, err)
	}
	st.walHdr = h[:n]
	return st, nil
}

func (a stamp) same(b stamp) bool {
	for i, fa := range a.files {
		fb := b.files[i]
		if (fa == nil) != (fb == nil) {
			return false
		}
		if fa != nil && (!os.SameFile(fa, fb) || fa.Size() != fb.Size() || !fa.ModTime().Equal(fb.ModTime())) {
			return false
		}
	}
	return bytes.Equal(a.walHdr, b.walHdr)
}

// copyFile copies src to a new file dst, readable only by the user; a
// missing src is skipped, and one removed meanwhile is as if missing.
func copyFile(src, dst string) error {
	os.Remove(dst) // left by an attempt that started again
	in, err := os.Open(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("store: copy %s for reading: %w", src, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("store: copy %s for reading: %w", src, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("store: copy %s for reading: %w", src, err)
	}
	return nil
}
