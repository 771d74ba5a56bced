package catalog

import (
	"errors"
	"reflect"
	"testing"
)

// The loader must answer any input with a catalog or an ErrorList of
// positioned errors, never a panic. Seeds are in testdata/fuzz.

func fuzzLoad(f *testing.F, name string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cat, err := LoadFiles(File{Name: name, Data: data})
		if err == nil {
			if cat == nil {
				t.Fatal("nil catalog without error")
			}
			return
		}
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error %T is not a non-empty ErrorList: %v", err, err)
		}
		for _, e := range list {
			if e.Pos.File != name || e.Pos.Line < 1 || e.Pos.Col < 1 {
				t.Fatalf("error without a position in %s: %q at %+v", name, e.Msg, e.Pos)
			}
		}
	})
}

func FuzzLoadYAML(f *testing.F) {
	fuzzLoad(f, "f.yaml",
		"tools:\n  list_items:\n    description: Lists items.\n",
		"tools:\n  - name: a_b\n    description: x\n    args: {type: object, properties: {n: {type: integer}}}\n",
		"package: x\nservices: {db: {description: d}}\n",
		"version: \"1.0\"\ntools:\n  - name: a_b\n    description: x\n  - name: a_b\n    risk: no\n",
		"tools:\n  a_b: {description: x, risk: low, risk: high}\n  a_b: {description: y}\n",
		"a: &a [1]\nb: *a\n<<: {c: 1}\n",
		"tools: {a: {description: x, risk: high, max_retries: 3, errors: {not_found: {suggestion: s}}}}\n",
		"tools:\n    list_items:\n        description: x\n       risk: low\n",
		"tools:\n  - name: a_b\n    description: |\n      text\n     more\n   risk: low\n",
		"tools:\n  a_b: {description: \"x\n    y\", args: [1,\n  2]}\n\t risk: low\n",
		"a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n",
		"tools:\n  a_b:\n    description: x\n    queries: [\"\", 3, \" \", \"ééé\", [q]]\n",
	)
}

func FuzzLoadJSON(f *testing.F) {
	fuzzLoad(f, "f.json",
		`{"tools": {"list_items": {"description": "Lists items."}}}`,
		`{"tools": [{"name": "a_b", "description": "x", "examples": [{"args": {}}]}]}`,
		`{"package": "x", "suppress": [{"rule": "A", "reason": "b"}]}`,
		`[1, {"a": null}]`,
	)
}

func FuzzLoadCUE(f *testing.F) {
	fuzzLoad(f, "f.cue",
		"package tools\ntools: list_items: description: \"Lists items.\"\n",
		"tools: [string]: {owner: \"x\"}\ntools: a_b: {description: \"y\", sla_ms: 5}\n",
		"import \"strings\"\npackage: strings.ToLower(\"X\")\n",
		"import \"list\"\ntools: {for i in list.Range(0, 3, 1) for j in [1, 2] {\"t\\(i)_\\(j)\": {description: \"x\"}}}\n",
		"#D: {a: 1} | {b: 1}\nx: #D & ({c: 1} | *{d: 1}) & (1 | 2)\n",
		"import \"strings\"\ntitle: strings.Repeat(\"ab\", 3)\n",
		"import \"list\"\na: \"x\"\nb: a + \"\\(a)\" * 2\nc: list.Concat([[1], list.Range(0, n, 1)])\nn: 2 * 3\n",
	)
}

// FuzzLoadInParts checks that a YAML catalog evaluated in parts loads as
// it does whole: the same catalog, or the same errors.
func FuzzLoadInParts(f *testing.F) {
	for _, s := range []string{
		"tools:\n  a_b: {description: x}\n  c_d: {description: y, risk: high}\n  e_f: {descriptoin: z}\n",
		"package: p\nservices: {db: {}}\ntools:\n  - name: a_b\n    description: x\n  - name: c_d\n    errors: {not_found: {suggestion: 1}}\n",
		"tools:\n  a: {description: x, args: {type: object}}\n  b: 5\n  c: {description: y, examples: [{args: {n: 1}}]}\nsuppress: [{rule: X}]\n",
	} {
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		files := []File{{Name: "f.yaml", Data: data}}
		whole, werr := loadInParts(1, files...)
		parts, perr := loadInParts(int(n%7)+2, files...)
		if (werr == nil) != (perr == nil) || werr != nil && werr.Error() != perr.Error() {
			t.Fatalf("errors whole:\n%v\nin parts:\n%v", werr, perr)
		}
		if !reflect.DeepEqual(whole, parts) {
			t.Fatal("the catalog in parts differs from the catalog whole")
		}
	})
}
