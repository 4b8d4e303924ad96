package main

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
)

// commandNeedsFile is a file the window's type check reads and nothing
// runs: for each field a kind of command needs, a command without it,
// which must not type-check (svelte-check fails on an unused
// @ts-expect-error), beside each kind with all it needs, which must.
const commandNeedsFile = "frontend/src/lib/types/go.needs.ts"

func commandNeeds() []byte {
	var b strings.Builder
	b.WriteString(`// Generated from session.Needs by ` + "`go test . -run TestWindowTypes -update`" + `: do not edit.
// Each command below the first list leaves out a field its kind needs (Do
// refuses it): the type check fails if the window's Command type lets it.
import type { Command } from './go';

const v = undefined as never;

/** Each kind with every field it needs. */
export const complete: Command[] = [
`)
	var lacking strings.Builder
	for _, c := range session.CommandValues() {
		needs := session.Needs(c)
		b.WriteString("  { do: '" + c.Kind() + "'" + fieldsOf(needs, "") + " },\n")
		for _, n := range needs {
			lacking.WriteString("\n// @ts-expect-error " + c.Kind() + " needs " + n + "\n")
			lacking.WriteString("export const " + c.Kind() + "_without_" + n + ": Command = { do: '" + c.Kind() + "'" + fieldsOf(needs, n) + " };\n")
		}
	}
	b.WriteString("];\n")
	b.WriteString(lacking.String())
	return []byte(b.String())
}

// fieldsOf writes names, but for the one left out, as fields of any value.
func fieldsOf(names []string, without string) string {
	var b strings.Builder
	for _, n := range names {
		if n != without {
			b.WriteString(", " + n + ": v")
		}
	}
	return b.String()
}

// The fields a command needs are one list, session.Needs: Do refuses a
// command of each kind with any one of them empty, saying which, before
// it looks anything up; and the window's types require each of them, so
// the window cannot send such a command (go.needs.ts shows the type check
// refusing it).
func TestWindowTypesOfCommands(t *testing.T) {
	generated(t, commandNeedsFile, commandNeeds())
	ts, err := windowTypes()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "loupe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := session.NewManager(st, nil, permission.NewBroker(), nil)
	defer m.Close()
	ctx := context.Background()
	some := 0
	for _, c := range session.CommandValues() {
		needs := session.Needs(c)
		want := regexp.MustCompile(`(?m)^  ` + c.Kind() + `: \[` + regexp.QuoteMeta(quoted(needs)) + `\],$`)
		if !want.Match(ts) {
			t.Errorf("COMMAND_REQUIRED.%s is not %v", c.Kind(), needs)
		}
		iface := string(ts)
		start := strings.Index(iface, "export interface "+commandTypeName(c.Kind())+" {\n")
		if start < 0 {
			t.Fatalf("no %s in the window's types", commandTypeName(c.Kind()))
		}
		iface = iface[start:]
		iface = iface[:strings.Index(iface, "\n}")]
		for _, n := range needs {
			some++
			// The TypeScript field: required, and not null.
			if !regexp.MustCompile(`(?m)^  ` + n + `: [^|]+;$`).MatchString(iface) {
				t.Errorf("%s.%s is needed in Go but optional or nullable in the window's types:\n%s", c.Kind(), n, iface)
			}
			// Do: refused, naming the field, whatever else is given.
			without := filled(c, n)
			_, err := m.Do(ctx, without)
			var mf *session.MissingField
			if !errors.As(err, &mf) || mf.Field != n || mf.Kind != c.Kind() {
				t.Errorf("%s without %s: Do says %v, want a refusal for the missing %s", c.Kind(), n, err, n)
			}
		}
		if len(needs) > 0 {
			// With all it needs, the command gets past the check (to the
			// session, which is not there).
			if _, err := m.Do(ctx, filled(c, "")); err == nil || errors.As(err, new(*session.MissingField)) {
				t.Errorf("%s with every field it needs: %v, want the session not found", c.Kind(), err)
			}
		}
	}
	if some < 10 {
		t.Fatalf("only %d needed fields: the need tags are not read", some)
	}
}

// filled is command c with every field it needs set (a session that does
// not exist), but the one named without.
func filled(c session.Command, without string) session.Command {
	v := reflect.New(reflect.TypeOf(c)).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !session.Needed(f) || name == without {
			continue
		}
		switch fv := v.Field(i); fv.Kind() {
		case reflect.String:
			fv.SetString("nope")
		case reflect.Int, reflect.Int64:
			fv.SetInt(1)
		case reflect.Pointer:
			fv.Set(reflect.New(f.Type.Elem()))
		default:
			panic("filled: a needed " + f.Type.String())
		}
	}
	return v.Interface().(session.Command)
}
