package tsgen_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/tsgen"
	"github.com/loupe-dev/loupe/backend/tsgen/testdata/sample"
)

// The generator reads the sample's source from testdata/sample: the
// module root is given as the folder that "…/backend/tsgen" resolves in.
func gen() *tsgen.Gen {
	return tsgen.New("github.com/loupe-dev/loupe/backend/tsgen", ".")
}

func TestFieldsAreWrittenAsEncodingJSONWritesThem(t *testing.T) {
	g := gen()
	g.Add(sample.Outer{})
	out, err := g.Write("")
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{
		"export interface Outer {\n  id: string;\n", // the embedded struct's field, flattened, first
		"  /** Name is documented. */\n  name: string;\n",
		"  opt?: string;\n",
		"  zero?: Inner;\n",
		"  ptr: Inner | null;\n",
		"  opt_ptr?: Inner;\n",
		"  list: Inner[] | null;\n",
		"  opt_list?: string[];\n",
		"  ptrs: (Inner | null)[] | null;\n",
		"  map: Record<string, Color> | null;\n",
		"  when: string;\n",
		"  took: number;\n",
		"  raw: JsonValue;\n",
		"  any: unknown | null;\n",
		"  fixed: number[];\n",
		"  quoted: string;\n",
		"  Untagged: boolean;\n",
		"  inline: { A: boolean; };\n",
		"  \"with-dash\": string;\n",
		"  colors: Record<string, boolean[] | null> | null;\n",
		"export interface Inner {\n  n: number;\n}",
		`export type Color = "red" | "blue";`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	for _, gone := range []string{"Skipped", "hidden", "Base {"} {
		if strings.Contains(got, gone) {
			t.Errorf("%q should not be written:\n%s", gone, got)
		}
	}
}

func TestConstantsAndNames(t *testing.T) {
	g := gen()
	g.Name((*sample.Inner)(nil), "Renamed")
	g.Add(sample.Outer{})
	g.Consts("SHAPES", "Shape", sample.Outer{}, "Shape")
	out, err := g.Write("// head\n")
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if !strings.HasPrefix(got, "// head\n") || !strings.Contains(got, "ptr: Renamed | null;") || strings.Contains(got, "interface Inner") {
		t.Errorf("the name given is not used:\n%s", got)
	}
	if want := "export const SHAPES = {\n  round: \"round\",\n  square: \"square\",\n} as const;\nexport type Shape = (typeof SHAPES)[keyof typeof SHAPES];"; !strings.Contains(got, want) {
		t.Errorf("constants: want %q in:\n%s", want, got)
	}
}

type Inner struct{ X int }

// Two types of one name are an error that says what to do, not a file
// where one silently wins.
func TestTwoTypesOfOneNameAreRefused(t *testing.T) {
	g := gen()
	g.Add(sample.Inner{}, Inner{})
	if _, err := g.Write(""); err == nil || !strings.Contains(err.Error(), "Gen.Name") {
		t.Fatalf("err = %v, want one that says to name one", err)
	}
}

// What has no declaration of its own (a plain slice, a type outside the
// module) cannot be a root.
func TestRootsAreTypesOfTheModule(t *testing.T) {
	for _, v := range []any{time.Time{}, json.RawMessage(nil), []sample.Inner{}} {
		g := gen()
		g.Add(v)
		if _, err := g.Write(""); err == nil {
			t.Errorf("%T: no error", v)
		}
	}
}

func TestConstantsThatDoNotExistAreAnError(t *testing.T) {
	g := gen()
	g.Consts("X", "X", sample.Outer{}, "Nope")
	if _, err := g.Write(""); err == nil {
		t.Fatal("no error")
	}
}

// A bound type's methods are written as Wails calls them: the source's
// parameter names (argN for one without), a Promise of the result with
// the error left to the rejection, void for none.
func TestMethodsAreWrittenAsWailsBindsThem(t *testing.T) {
	g := gen()
	g.Methods("Bound", (*sample.Service)(nil))
	out, err := g.Write("")
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{
		"export interface Bound {\n",
		"  /** Get finds one by id. */\n  Get(id: string, n: number): Promise<Inner>;\n",
		"  List(): Promise<Inner[] | null>;\n",
		"  Ping(): Promise<void>;\n",
		"  Save(arg1: Outer): Promise<void>;\n",
		"export interface Inner {", "export interface Outer {",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

// A field Require names is required and not null, whatever its
// omitempty: the window must send it.
func TestRequiredFieldsAreNeitherOptionalNorNull(t *testing.T) {
	g := gen()
	g.Require(func(f reflect.StructField) bool { return f.Name == "Opt" || f.Name == "OptPtr" || f.Name == "Ptr" })
	g.Add(sample.Outer{})
	out, err := g.Write("")
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{"  opt: string;\n", "  opt_ptr: Inner;\n", "  ptr: Inner;\n", "  opt_list?: string[];\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}
