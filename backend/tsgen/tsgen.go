// Package tsgen writes TypeScript declarations of Go types as
// encoding/json encodes them, so that the window's types are the Go
// types: a field renamed, retyped or removed in Go changes the generated
// file, and the TypeScript that reads it stops compiling.
//
// The rules are encoding/json's: a field's name is its json tag (or its Go
// name), "-" and unexported fields are left out, anonymous struct fields
// without a tag are flattened, omitempty and omitzero make a field
// optional (unless Require says the field is needed), a nil pointer,
// slice or map encodes as null. time.Time is a
// string (RFC 3339), time.Duration a number (nanoseconds),
// json.RawMessage any JSON value. A named string type whose package
// declares constants of it becomes the union of their values. Doc
// comments of types and fields are carried over.
package tsgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Gen collects root types and writes their declarations, and those of
// every named type they reach.
type Gen struct {
	module, root string // the module path and its folder on disk

	rename map[reflect.Type]string // names given with Name
	names  map[reflect.Type]string // the types declared so far
	decls  map[string]reflect.Type // TS name → the type declared under it
	queue  []reflect.Type
	pkgs   map[string]*pkgInfo
	extra  []string // declarations added by Raw, written first
	need   func(reflect.StructField) bool
	err    error
}

// New returns a generator for the types of the module at path module,
// whose source is in folder root (read for constants and comments).
func New(module, root string) *Gen {
	return &Gen{module: module, root: root, rename: map[reflect.Type]string{}, names: map[reflect.Type]string{}, decls: map[string]reflect.Type{}, pkgs: map[string]*pkgInfo{}}
}

// Name declares the type of v under name instead of its Go name (two
// packages' types of one name, or a name the window already uses).
func (g *Gen) Name(v any, name string) {
	g.rename[typeOf(v)] = name
}

// Require declares the struct fields need reports as required and not
// null, whatever their omitempty: fields of what the window sends that the
// Go side refuses to go without (it encodes them only when set, but
// decodes nothing without them).
func (g *Gen) Require(need func(reflect.StructField) bool) { g.need = need }

// Add declares the type of v (a value or a nil pointer to one) and every
// named type it reaches.
func (g *Gen) Add(vs ...any) {
	for _, v := range vs {
		g.nameOf(typeOf(v))
	}
}

// Raw adds a declaration written by hand in TypeScript (a type the Go
// side has no value of, such as a map from kind to payload built from Go
// values).
func (g *Gen) Raw(ts string) { g.extra = append(g.extra, ts) }

// Consts declares the untyped string constants of the package of v whose
// names start with prefix as a constant object named name (keys: the
// rest of each constant's name, first letter lowered, in source order)
// and their values as the union type typeName.
func (g *Gen) Consts(name, typeName string, v any, prefix string) {
	t := typeOf(v)
	var b strings.Builder
	fmt.Fprintf(&b, "/** The constants %s.%s*. */\nexport const %s = {\n", filepath.Base(t.PkgPath()), prefix, name)
	n := 0
	for _, c := range g.pkg(t.PkgPath()).untyped {
		rest, ok := strings.CutPrefix(c.name, prefix)
		if !ok || rest == "" || rest[0] < 'A' || rest[0] > 'Z' {
			continue
		}
		fmt.Fprintf(&b, "  %s: %s,\n", strings.ToLower(rest[:1])+rest[1:], strconv.Quote(c.value))
		n++
	}
	if n == 0 {
		g.fail(fmt.Errorf("tsgen: %s has no constant %s…", t.PkgPath(), prefix))
	}
	fmt.Fprintf(&b, "} as const;\nexport type %s = (typeof %s)[keyof typeof %s];", typeName, name, name)
	g.Raw(b.String())
}

// Methods declares an interface named name with the exported methods of
// v (a pointer, for its whole method set) as Wails binds them: each takes
// the method's parameters, under their names in the source, and returns a
// Promise of its result (void for none or an error alone; an error after
// a result is the promise's rejection). The types of the parameters and
// results are declared too.
func (g *Gen) Methods(name string, v any) {
	t := reflect.TypeOf(v)
	base := typeOf(v)
	info := g.pkg(base.PkgPath())
	var b strings.Builder
	where := strings.TrimPrefix(strings.TrimPrefix(base.PkgPath(), g.module), "/")
	if where == "" {
		where = "main"
	}
	fmt.Fprintf(&b, "/** The methods of %s.%s the window calls (bound by Wails). */\nexport interface %s {\n", filepath.Base(where), base.Name(), name)
	errType := reflect.TypeOf((*error)(nil)).Elem()
	for i := range t.NumMethod() {
		m := t.Method(i)
		key := base.Name() + "." + m.Name
		if doc := info.funcDocs[key]; doc != "" {
			fmt.Fprintf(&b, "  /** %s */\n", comment(doc, "  "))
		}
		names := info.params[key]
		var params []string
		for j := 1; j < m.Type.NumIn(); j++ {
			pn := fmt.Sprintf("arg%d", j)
			if j-1 < len(names) && names[j-1] != "" && names[j-1] != "_" {
				pn = names[j-1]
			}
			ts, null := g.expr(m.Type.In(j))
			if null {
				ts += " | null"
			}
			params = append(params, pn+": "+ts)
		}
		res := "void"
		outs := m.Type.NumOut()
		if outs > 0 && m.Type.Out(outs-1) == errType {
			outs--
		}
		switch outs {
		case 0:
		case 1:
			ts, null := g.expr(m.Type.Out(0))
			if null {
				ts += " | null"
			}
			res = ts
		default:
			g.fail(fmt.Errorf("tsgen: %s returns %d values: Wails binds a result and an error at most", key, m.Type.NumOut()))
		}
		fmt.Fprintf(&b, "  %s(%s): Promise<%s>;\n", m.Name, strings.Join(params, ", "), res)
	}
	b.WriteString("}")
	g.Raw(b.String())
}

// NameOf is the TypeScript name of the type of v once added.
func (g *Gen) NameOf(v any) string { return g.nameOf(typeOf(v)) }

func typeOf(v any) reflect.Type {
	t, ok := v.(reflect.Type)
	if !ok {
		t = reflect.TypeOf(v)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func (g *Gen) fail(err error) {
	if g.err == nil {
		g.err = err
	}
}

var (
	timeType = reflect.TypeOf(time.Time{})
	durType  = reflect.TypeOf(time.Duration(0))
	rawType  = reflect.TypeOf(json.RawMessage(nil))
)

// declared reports whether t gets a declaration of its own.
func (g *Gen) declared(t reflect.Type) bool {
	if t.Name() == "" || !strings.HasPrefix(t.PkgPath(), g.module) {
		return false
	}
	switch t.Kind() {
	case reflect.Struct:
		return true
	case reflect.String:
		return len(g.pkg(t.PkgPath()).consts[t.Name()]) > 0
	}
	return false
}

func (g *Gen) nameOf(t reflect.Type) string {
	if n, ok := g.names[t]; ok {
		return n
	}
	if !g.declared(t) {
		g.fail(fmt.Errorf("tsgen: %s has no declaration of its own", t))
		return t.String()
	}
	n := t.Name()
	if r, ok := g.rename[t]; ok {
		n = r
	}
	if other, ok := g.decls[n]; ok && other != t {
		g.fail(fmt.Errorf("tsgen: %s and %s are both %s: name one with Gen.Name", other, t, n))
	}
	g.names[t], g.decls[n] = n, t
	g.queue = append(g.queue, t)
	return n
}

// expr is the TypeScript type of t; nullable says whether Go may encode
// null for it (a nil pointer, slice or map).
func (g *Gen) expr(t reflect.Type) (ts string, nullable bool) {
	switch {
	case t == timeType:
		return "string", false
	case t == durType:
		return "number", false
	case t == rawType:
		return "JsonValue", false
	}
	if _, ok := g.names[t]; ok || g.declared(t) {
		return g.nameOf(t), false
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean", false
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number", false
	case reflect.String:
		return "string", false
	case reflect.Interface:
		return "unknown", true
	case reflect.Pointer:
		inner, _ := g.expr(t.Elem())
		return inner, true
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string", true // base64
		}
		inner, null := g.expr(t.Elem())
		if null || strings.Contains(inner, "|") {
			inner = "(" + inner + (map[bool]string{true: " | null"}[null]) + ")"
		}
		return inner + "[]", true
	case reflect.Array:
		inner, _ := g.expr(t.Elem())
		return inner + "[]", false
	case reflect.Map:
		inner, null := g.expr(t.Elem())
		if null {
			inner += " | null"
		}
		return "Record<string, " + inner + ">", true
	case reflect.Struct:
		// An anonymous struct: written in place.
		var b strings.Builder
		b.WriteString("{ ")
		for _, f := range g.fields(t) {
			fmt.Fprintf(&b, "%s; ", f.line)
		}
		b.WriteString("}")
		return b.String(), false
	}
	g.fail(fmt.Errorf("tsgen: cannot write %s (%s)", t, t.Kind()))
	return "unknown", false
}

type field struct {
	doc  string
	line string
}

// fields are the JSON fields of struct t, in order, embedded structs
// flattened as encoding/json does.
func (g *Gen) fields(t reflect.Type) []field {
	var out []field
	seen := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		info := g.pkg(t.PkgPath())
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := f.Type
			if f.Anonymous && name == "" {
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			ts, nullable := g.expr(ft)
			if hasOpt(opts, "string") {
				ts = "string"
			}
			optional := hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero")
			if g.need != nil && g.need(f) {
				optional, nullable = false, false
			}
			if nullable && !optional {
				ts += " | null"
			}
			key := name
			if !isIdent(key) {
				key = strconv.Quote(key)
			}
			if optional {
				key += "?"
			}
			out = append(out, field{doc: info.fieldDocs[t.Name()+"."+f.Name], line: key + ": " + ts})
		}
	}
	walk(t)
	return out
}

func hasOpt(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// Write returns the declarations, in order of name, with header first.
func (g *Gen) Write(header string) ([]byte, error) {
	// Declaring a type may reach more: take the queue until it is empty.
	type decl struct{ name, text string }
	var decls []decl
	for len(g.queue) > 0 {
		t := g.queue[0]
		g.queue = g.queue[1:]
		decls = append(decls, decl{g.names[t], g.declare(t)})
	}
	if g.err != nil {
		return nil, g.err
	}
	sort.Slice(decls, func(i, j int) bool { return decls[i].name < decls[j].name })
	var b bytes.Buffer
	b.WriteString(header)
	for _, x := range g.extra {
		b.WriteString("\n" + x + "\n")
	}
	for _, d := range decls {
		b.WriteString("\n" + d.text)
	}
	return b.Bytes(), nil
}

func (g *Gen) declare(t reflect.Type) string {
	info := g.pkg(t.PkgPath())
	name := g.names[t]
	var b strings.Builder
	where := strings.TrimPrefix(strings.TrimPrefix(t.PkgPath(), g.module), "/")
	if where == "" {
		where = "main"
	}
	doc := info.typeDocs[t.Name()]
	fmt.Fprintf(&b, "/** %s.%s", filepath.Base(where), t.Name())
	if doc != "" {
		b.WriteString(": " + comment(doc, ""))
	}
	b.WriteString(" */\n")
	if t.Kind() == reflect.String {
		vals := info.consts[t.Name()]
		quoted := make([]string, len(vals))
		for i, v := range vals {
			quoted[i] = strconv.Quote(v)
		}
		fmt.Fprintf(&b, "export type %s = %s;\n", name, strings.Join(quoted, " | "))
		return b.String()
	}
	fmt.Fprintf(&b, "export interface %s {\n", name)
	for _, f := range g.fields(t) {
		if f.doc != "" {
			fmt.Fprintf(&b, "  /** %s */\n", comment(f.doc, "  "))
		}
		fmt.Fprintf(&b, "  %s;\n", f.line)
	}
	b.WriteString("}\n")
	return b.String()
}

// comment makes a Go doc comment one JSDoc text.
func comment(doc, indent string) string {
	doc = strings.TrimSpace(strings.ReplaceAll(doc, "*/", "*\\/"))
	lines := strings.Split(doc, "\n")
	if len(lines) == 1 {
		return lines[0]
	}
	for i, l := range lines {
		if l == "" {
			lines[i] = indent + " *"
		} else if i > 0 {
			lines[i] = indent + " * " + l
		}
	}
	return strings.Join(lines, "\n")
}

type constant struct{ name, value string }

// pkgInfo is what the source of one package says that reflect cannot:
// the constants of its named types and the comments.
type pkgInfo struct {
	consts    map[string][]string // type name → its string constants' values, in source order
	untyped   []constant          // the untyped string constants, in source order
	typeDocs  map[string]string
	fieldDocs map[string]string   // "Type.Field" → doc
	funcDocs  map[string]string   // "Type.Method" → doc
	params    map[string][]string // "Type.Method" → its parameters' names
}

func (g *Gen) pkg(path string) *pkgInfo {
	if p, ok := g.pkgs[path]; ok {
		return p
	}
	p := &pkgInfo{consts: map[string][]string{}, typeDocs: map[string]string{}, fieldDocs: map[string]string{}, funcDocs: map[string]string{}, params: map[string][]string{}}
	g.pkgs[path] = p
	if !strings.HasPrefix(path, g.module) {
		return p
	}
	dir := filepath.Join(g.root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(path, g.module), "/")))
	entries, err := os.ReadDir(dir)
	if err != nil {
		g.fail(err)
		return p
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			g.fail(err)
			return p
		}
		p.read(f)
	}
	return p
}

func (p *pkgInfo) read(f *ast.File) {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			p.readMethod(fd)
			continue
		}
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		switch gd.Tok {
		case token.CONST:
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				id, ok := vs.Type.(*ast.Ident)
				if vs.Type == nil {
					for i, v := range vs.Values {
						if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING && i < len(vs.Names) {
							if s, err := strconv.Unquote(lit.Value); err == nil {
								p.untyped = append(p.untyped, constant{vs.Names[i].Name, s})
							}
						}
					}
				}
				if !ok {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil {
							p.consts[id.Name] = append(p.consts[id.Name], s)
						}
					}
				}
			}
		case token.TYPE:
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				if doc != nil {
					p.typeDocs[ts.Name.Name] = doc.Text()
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fl := range st.Fields.List {
					text := ""
					if fl.Doc != nil {
						text = fl.Doc.Text()
					} else if fl.Comment != nil {
						text = fl.Comment.Text()
					}
					for _, n := range fl.Names {
						if text != "" {
							p.fieldDocs[ts.Name.Name+"."+n.Name] = text
						}
					}
				}
			}
		}
	}
}

// readMethod keeps a method's doc and its parameters' names.
func (p *pkgInfo) readMethod(fd *ast.FuncDecl) {
	if fd.Recv == nil || len(fd.Recv.List) != 1 {
		return
	}
	rt := fd.Recv.List[0].Type
	if st, ok := rt.(*ast.StarExpr); ok {
		rt = st.X
	}
	id, ok := rt.(*ast.Ident)
	if !ok {
		return
	}
	key := id.Name + "." + fd.Name.Name
	if fd.Doc != nil {
		p.funcDocs[key] = fd.Doc.Text()
	}
	var names []string
	for _, f := range fd.Type.Params.List {
		if len(f.Names) == 0 {
			names = append(names, "")
		}
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
	}
	p.params[key] = names
}
