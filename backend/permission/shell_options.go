package permission

import "strings"

// This file reads the options of ordinary commands, as far as finding
// the ones that write files or run programs needs (shell_writers.go).

// optSpec describes a command's options. Only options that take a value
// need listing: any other option is a flag. Listing an option as taking
// a value when it does not could hide the option after it, so the lists
// hold only what the command's manual says.
type optSpec struct {
	withArg string   // short options that take a value (attached or the next word)
	optArg  string   // short options whose value, if any, is attached (sed -i[SUFFIX])
	long    []string // long options that take a value: --x v or --x=v
	optLong []string // long options whose value, if any, is attached with =
}

// opt is one option found on a command line.
type opt struct {
	at   int    // index of its word in the command's words
	name string // "-o", or the long name as written ("--out" for --output)
	// key is the word's text up to and including the option: "-o",
	// "-uo" (in a cluster), "--output".
	key    string
	val    word // its value, if it has one
	hasVal bool
	valAt  int // index of the word holding the value (at when attached)
}

// is reports whether o is one of names. A long name matches as written
// or abbreviated, as GNU getopt allows (--out for --output).
func (o opt) is(names ...string) bool {
	for _, n := range names {
		if o.name == n || strings.HasPrefix(n, "--") && len(o.name) > 2 && strings.HasPrefix(n, o.name) && strings.HasPrefix(o.name, "--") {
			return true
		}
	}
	return false
}

// longName finds the long option given (as written or abbreviated) in list.
func longName(given string, list []string) (string, bool) {
	for _, n := range list {
		if n == given {
			return n, true
		}
	}
	if len(given) <= 2 {
		return "", false
	}
	for _, n := range list {
		if strings.HasPrefix(n, given) {
			return n, true
		}
	}
	return "", false
}

// scanOpts reads GNU-style options from args (args[0] is the command's
// word at index off). It returns the options and the indices of the other
// words (operands). Options may follow operands, as GNU tools allow; "--"
// ends them. A word whose text is not known before it runs is counted as
// an operand: allow rules never match such a word anyway.
func scanOpts(args []word, off int, spec optSpec) (opts []opt, operands []int) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.text
		at := off + i
		switch {
		case w.kind == wDyn || t == "-" || !strings.HasPrefix(t, "-"):
			operands = append(operands, at)
		case t == "--":
			for j := i + 1; j < len(args); j++ {
				operands = append(operands, off+j)
			}
			return opts, operands
		case strings.HasPrefix(t, "--"):
			name, val, hasVal := strings.Cut(t, "=")
			o := opt{at: at, name: name, key: name, valAt: -1}
			if hasVal {
				o.val, o.hasVal, o.valAt = word{text: val, kind: w.kind}, true, at
			} else if _, ok := longName(name, spec.long); ok && i+1 < len(args) {
				i++
				o.val, o.hasVal, o.valAt = args[i], true, off+i
			}
			opts = append(opts, o)
		default:
			for j := 1; j < len(t); j++ {
				f := t[j]
				o := opt{at: at, name: "-" + string(f), key: t[:j+1], valAt: -1}
				switch {
				case strings.IndexByte(spec.withArg, f) >= 0:
					if j+1 < len(t) {
						o.val, o.hasVal, o.valAt = word{text: t[j+1:], kind: w.kind}, true, at
					} else if i+1 < len(args) {
						i++
						o.val, o.hasVal, o.valAt = args[i], true, off+i
					}
					opts = append(opts, o)
					j = len(t)
				case strings.IndexByte(spec.optArg, f) >= 0:
					if j+1 < len(t) {
						o.val, o.hasVal, o.valAt = word{text: t[j+1:], kind: w.kind}, true, at
					}
					opts = append(opts, o)
					j = len(t)
				default:
					opts = append(opts, o)
				}
			}
		}
	}
	return opts, operands
}
