//go:build !unix

package hands

import (
	"errors"
	"fmt"
	"io/fs"
)

// Elsewhere than Unix the kernel gives no way to open a path without
// following links that this layer relies on: Open says so, and nothing
// is changed.
var errUnsupported = errors.New("Loupe changes workspace files itself only on Linux and other Unix systems")

type Look interface {
	Lstat(rel string) (fs.FileInfo, error)
}

type Protected func(look Look, rel string) (pattern string, ok bool)

type Root struct{ dir string }

func Open(dir string, protected Protected) (*Root, error) {
	return nil, fmt.Errorf("%s: %w", dir, errUnsupported)
}

func (r *Root) Dir() string                                  { return r.dir }
func (r *Root) Is(fs.FileInfo) bool                          { return false }
func (r *Root) ID() (uint64, uint64, error)                  { return 0, 0, errUnsupported }
func (r *Root) Where() (string, error)                       { return "", errUnsupported }
func (r *Root) Close() error                                 { return nil }
func (r *Root) AtClose(func())                               {}
func (r *Root) Protected(string) (string, bool)              { return "", false }
func (r *Root) OpenDir(string) (*Dir, error)                 { return nil, errUnsupported }
func (r *Root) OpenParent(string) (*Dir, string, error)      { return nil, "", errUnsupported }
func (r *Root) MkdirAll(string) (*Dir, error)                { return nil, errUnsupported }
func (r *Root) Lstat(string) (fs.FileInfo, error)            { return nil, errUnsupported }
func (r *Root) ReadFile(string, int64) ([]byte, bool, error) { return nil, false, errUnsupported }
func (r *Root) WriteFile(string, []byte) error               { return errUnsupported }
func (r *Root) RemoveFile(string) error                      { return errUnsupported }
func (r *Root) RemoveAll(string) error                       { return errUnsupported }
func (r *Root) Rename(string, string) error                  { return errUnsupported }

type Dir struct{ rel string }

type Entry struct {
	Name string
	Type fs.FileMode
}

func (d *Dir) Rel() string                                         { return d.rel }
func (d *Dir) Close() error                                        { return nil }
func (d *Dir) OpenDir(string) (*Dir, error)                        { return nil, errUnsupported }
func (d *Dir) Stat() (fs.FileInfo, error)                          { return nil, errUnsupported }
func (d *Dir) Lstat(string) (fs.FileInfo, error)                   { return nil, errUnsupported }
func (d *Dir) Readlink(string) (string, error)                     { return "", errUnsupported }
func (d *Dir) ReadDir() ([]Entry, error)                           { return nil, errUnsupported }
func (d *Dir) ReadFile(string, int64) ([]byte, fs.FileInfo, error) { return nil, nil, errUnsupported }
func (d *Dir) WriteFile(string, []byte, fs.FileMode) error         { return errUnsupported }
func (d *Dir) Remove(string) error                                 { return errUnsupported }
func (d *Dir) RemoveFile(string) error                             { return errUnsupported }
func (d *Dir) RemoveAll(string) error                              { return errUnsupported }
func (d *Dir) Rename(string, *Dir, string) error                   { return errUnsupported }
func (d *Dir) Symlink(string, string) error                        { return errUnsupported }
func (d *Dir) Mkdir(string, fs.FileMode) (*Dir, error)             { return nil, errUnsupported }
func (d *Dir) Root(string, Protected) (*Root, error)               { return nil, errUnsupported }
func (d *Dir) Usage(int) (int64, int, error)                       { return 0, 0, errUnsupported }
func (d *Dir) Free() (int64, error)                                { return 0, errUnsupported }
func (d *Dir) CopyFile(string, *Dir, int64) (int64, error)         { return 0, errUnsupported }

type FoundError struct{ Path, For, Kind, Target string }

func (e *FoundError) Error() string { return e.Path + " is a " + e.Kind }
func (e *FoundError) Link() bool    { return e.Kind == "symbolic link" }

type ProtectedError struct{ Path, Pattern string }

func (e *ProtectedError) Error() string { return e.Path + " is protected (" + e.Pattern + ")" }

type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes", e.Path, e.Limit)
}

const (
	TempPrefix = ".loupe-"
	TempSuffix = ".tmp"
)
