package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// Git finds a git directory's settings through two pointer files, and
// Loupe must read them as git does, or it guards one folder while git uses
// another:
//
//   - a commondir file: git strips trailing "\n" and "\r" and nothing else
//     (setup.c, get_common_dir_noenv), so "../common " names a folder whose
//     name ends in a blank;
//   - a .git file: git takes the whole file less trailing "\n" and "\r",
//     and it must start with exactly "gitdir: " (setup.c,
//     read_gitfile_gently); what follows, blanks included, is the path.
//
// Git then resolves the path as the kernel does (strbuf_realpath): a ".."
// after a symbolic link goes up from where the link leads, not from the
// link's folder. pointerText is the one reader of that text, and
// pointerDir the one resolver; every reader of a pointer uses them.

// pointerText returns the path a pointer file of the given name
// ("commondir" or ".git") holds, as git reads it, and false when git would
// take none from it.
func pointerText(name string, b []byte) (string, bool) {
	s := strings.TrimRight(string(b), "\r\n")
	if name == ".git" {
		var ok bool
		if s, ok = strings.CutPrefix(s, "gitdir: "); !ok {
			return "", false
		}
	}
	if s == "" {
		return "", false
	}
	return s, true
}

// pointerDir resolves the path text a pointer file in the folder base
// holds as the kernel would: physically, following symbolic links
// (components that do not exist yet are taken as written). plain says
// whether the text names that folder as written: no blank or control
// character at either end or inside, and no symbolic link on the way, so
// that cleaning it lexically gives the same folder. A pointer that is not
// plain is one git init, clone or worktree never writes: the check after a
// round disarms one a command made, whatever it names.
func pointerDir(base, text string) (dir string, plain bool) {
	p := text
	if !filepath.IsAbs(p) {
		p = base + string(filepath.Separator) + p
	}
	dir = physical(p)
	lexical := filepath.Clean(filepath.Join(physical(base), text))
	if filepath.IsAbs(text) {
		lexical = filepath.Clean(text)
	}
	plain = dir == lexical && !strings.ContainsFunc(text, unicode.IsControl)
	for _, c := range strings.Split(text, string(filepath.Separator)) {
		if c != strings.TrimSpace(c) {
			plain = false // " ../common", "../common ", "a/ b"
		}
	}
	return dir, plain
}

// physical resolves the absolute path p component by component, as the
// kernel does: a symbolic link is replaced by its target (at most 40, as
// the kernel allows), ".." goes up from the folder reached. Components
// that do not exist are taken as written.
func physical(p string) string {
	links := 0
	var walk func(dest, rest string) string
	walk = func(dest, rest string) string {
		for _, c := range strings.Split(rest, string(filepath.Separator)) {
			switch c {
			case "", ".":
				continue
			case "..":
				dest = filepath.Dir(dest)
				continue
			}
			next := filepath.Join(dest, c)
			fi, err := os.Lstat(next)
			if err != nil || fi.Mode()&os.ModeSymlink == 0 || links >= 40 {
				dest = next
				continue
			}
			links++
			t, err := os.Readlink(next)
			if err != nil {
				dest = next
				continue
			}
			if filepath.IsAbs(t) {
				dest = walk("/", t)
			} else {
				dest = walk(dest, t)
			}
		}
		return dest
	}
	return walk("/", p)
}

// readPointer reads the pointer file file (a commondir or a .git file)
// and resolves what it names (pointerDir). ok is false when there is none.
func readPointer(file string) (dir string, plain, ok bool) {
	b, err := readSmall(file)
	if err != nil {
		return "", false, false
	}
	text, ok := pointerText(filepath.Base(file), b)
	if !ok {
		return "", false, false
	}
	dir, plain = pointerDir(filepath.Dir(file), text)
	return dir, plain, true
}
