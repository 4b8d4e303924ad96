package sandbox

import (
	"bytes"
	"fmt"
)

// This file reads git's config files the way git does (config.c,
// git_parse_source): what Loupe concludes from a setting (that a file is
// included as settings, that a program runs) must be about the value git
// uses, not about text that looks like it. It never runs git on a file a
// command may have written.

// configEntry is one setting of a git config file: its name as git spells
// it for `git config --get` (section and key lowercased, a subsection as
// written: "includeif.gitdir:~/Work/.path"), and its value once quotes,
// escapes and trailing comments are taken out. A key with no "=" (a
// boolean true) has the value "" and noValue set.
type configEntry struct {
	key, value string
	noValue    bool
}

// configScanner walks a config file's bytes as git's get_next_char does:
// "\r\n" reads as "\n", and the end of the file as a last "\n".
type configScanner struct {
	b    []byte
	i    int
	eof  bool
	line int
}

func (s *configScanner) next() byte {
	if s.i >= len(s.b) {
		s.eof = true
		return '\n'
	}
	c := s.b[s.i]
	s.i++
	if c == '\r' && s.i < len(s.b) && s.b[s.i] == '\n' {
		c = '\n'
		s.i++
	}
	if c == '\n' {
		s.line++
	}
	return c
}

// skipLine moves past the end of the line that started as line (after a
// line git rejects), unless its end was read already.
func (s *configScanner) skipLine(line int) {
	for !s.eof && s.line == line {
		if s.next() == '\n' {
			return
		}
	}
}

func isConfigSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isAlpha(c byte) bool       { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isKeyChar(c byte) bool     { return isAlpha(c) || c >= '0' && c <= '9' || c == '-' }
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// parseGitConfig reads the settings of a git config file's bytes. Where
// git would stop with "bad config line", the line is skipped and reading
// goes on: git reads nothing past it (and refuses to run), so what is
// found after it is more than git uses, never less. err names the first
// such line.
func parseGitConfig(b []byte) []configEntry {
	out, _ := parseGitConfigErr(b)
	return out
}

func parseGitConfigErr(b []byte) (out []configEntry, err error) {
	s := &configScanner{b: b}
	if len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		s.i = 3 // a UTF-8 byte order mark, which git skips
	}
	section := ""
	bad := func() {
		if err == nil {
			err = fmt.Errorf("bad config line %d", s.line+1)
		}
	}
	comment := false
	for {
		c := s.next()
		if c == '\n' {
			if s.eof {
				return out, err
			}
			comment = false
			continue
		}
		if comment || isConfigSpace(c) {
			continue
		}
		if c == '#' || c == ';' {
			comment = true
			continue
		}
		start := s.line
		if c == '[' {
			name, ok := s.sectionHeader()
			if !ok || name == "" {
				bad()
				section = ""
				s.skipLine(start)
				continue
			}
			section = name
			continue
		}
		if !isAlpha(c) {
			bad()
			s.skipLine(start)
			continue
		}
		kv, ok := s.keyValue(c)
		if !ok {
			bad()
			s.skipLine(start)
			continue
		}
		if section == "" {
			bad() // git: a key needs a section
			continue
		}
		kv.key = section + "." + kv.key
		out = append(out, kv)
	}
}

// sectionHeader reads what follows "[": "core]", "includeIf \"gitdir:x\"]"
// (the subsection kept as written, with \" and \\ taken as the character
// after the backslash), or the old "[section.sub]" (all lowercased).
func (s *configScanner) sectionHeader() (string, bool) {
	var name []byte
	for {
		c := s.next()
		if s.eof {
			return "", false
		}
		if c == ']' {
			return string(name), true
		}
		if isConfigSpace(c) {
			if c == '\n' {
				return "", false
			}
			for isConfigSpace(c) {
				if c == '\n' {
					return "", false
				}
				c = s.next()
			}
			if c != '"' {
				return "", false
			}
			name = append(name, '.')
			for {
				c = s.next()
				if c == '\n' {
					return "", false
				}
				if c == '"' {
					break
				}
				if c == '\\' {
					if c = s.next(); c == '\n' {
						return "", false
					}
				}
				name = append(name, c)
			}
			if s.next() != ']' {
				return "", false
			}
			return string(name), true
		}
		if !isKeyChar(c) && c != '.' {
			return "", false
		}
		name = append(name, lower(c))
	}
}

// keyValue reads a setting whose name starts with first: the name, then
// nothing (a boolean) or "=" and a value.
func (s *configScanner) keyValue(first byte) (kv configEntry, ok bool) {
	name := []byte{lower(first)}
	c := byte(0)
	for {
		c = s.next()
		if s.eof || !isKeyChar(c) {
			break
		}
		name = append(name, lower(c))
	}
	for c == ' ' || c == '\t' {
		c = s.next()
	}
	kv.key = string(name)
	if c == '\n' {
		kv.noValue = true
		return kv, true
	}
	if c != '=' {
		return kv, false
	}
	v, ok := s.value()
	kv.value = v
	return kv, ok
}

// value reads a value as git's parse_value does: leading and trailing
// blanks outside quotes dropped, inner ones kept; double quotes toggle
// quoting and are taken out; "#" or ";" outside quotes starts a comment;
// \n, \t, \b, \\ and \" are escapes, a backslash at the end of a line
// joins the next, and any other escape, or a quote left open at the end of
// the line, is an error. An unquoted blank inside the value (a tab, a lone
// "\r") reads as a space, and a NUL ends the value: git hands the value on
// as a C string.
func (s *configScanner) value() (string, bool) {
	var v []byte
	quote, comment := false, false
	trim := -1
	for {
		c := s.next()
		if c == '\n' {
			if quote {
				return "", false
			}
			if trim >= 0 {
				v = v[:trim]
			}
			if i := bytes.IndexByte(v, 0); i >= 0 {
				v = v[:i]
			}
			return string(v), true
		}
		if comment {
			continue
		}
		if isConfigSpace(c) && !quote {
			if trim < 0 {
				trim = len(v)
			}
			if len(v) > 0 {
				v = append(v, ' ')
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		trim = -1
		if c == '\\' {
			c = s.next()
			switch c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
			v = append(v, c)
			continue
		}
		if c == '"' {
			quote = !quote
			continue
		}
		v = append(v, c)
	}
}
