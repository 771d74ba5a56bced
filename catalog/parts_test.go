package catalog

import (
	"reflect"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog/catalogtest"
)

// loadInParts is LoadFiles with the catalog evaluated in n parts.
func loadInParts(n int, files ...File) (*Catalog, error) {
	l := newLoader()
	l.parts = n
	l.cueOnly = true // parts are how CUE evaluates a large catalog
	return l.finish(l.load(files))
}

// A catalog evaluated in parts is the catalog evaluated whole: the same
// tools, fields and positions, and the same errors.
func TestLoadInParts(t *testing.T) {
	const a = `package: demo
title: Parts
version: "2.0"
services:
  db: {description: The database.}
suppress:
  - rule: NAME_VERB_NOUN
    reason: legacy names
  - rule: SCHEMA_STRICT_MODE
tools:
  get_a:
    description: Gets a.
    args: {type: object, properties: {id: {type: string}}}
  get_b:
    description: Gets b.
    risk: extreme
  get_c:
    descriptoin: Gets c.
  get_d:
    description: Gets d.
    max_retries: two
    args: {type: objekt}
  get_e:
    description: Gets e.
    dependencies: [db]
    examples:
      - description: one
        args: {id: x}
  get_g: 5
  get_h:
    description: Gets h.
    errors: nope
  get_i:
    description: Gets i.
    errors:
      not_found: {suggestion: 5}
  get_j:
    description: Gets j.
    examples: [{description: 1}]
`
	const b = `tools:
  get_a:
    risk: low
    args: {type: object}
  get_e:
    risk: medium
    args: {type: object}
  get_f:
    description: Gets f.
    fallback_tool: get_a
    errors:
      not_found: {suggestion: Search first., retry_allowed: false}
`
	// get_b written twice: both definitions are checked, in parts too.
	invalid := []File{{Name: "a.yaml", Data: []byte(a + "  get_b:\n    description: Again.\n    risk: wild\n")}, {Name: "b.yaml", Data: []byte(b)}}
	_, whole := loadInParts(1, invalid...)
	if whole == nil {
		t.Fatal("the invalid catalog loaded")
	}
	for _, want := range []string{`a.yaml:16:11`, `unknown field "descriptoin"`, `a.yaml:21:18`, `tools.get_d.args`, `a.yaml:29:10`, `b.yaml:4:5`, `duplicate key "get_b"`, `a.yaml:42:11: tools.get_b.risk: got "wild"`} {
		if !strings.Contains(whole.Error(), want) {
			t.Errorf("errors lack %q:\n%v", want, whole)
		}
	}
	for _, n := range []int{2, 3, 6, 10} {
		if _, err := loadInParts(n, invalid...); err == nil || err.Error() != whole.Error() {
			t.Errorf("%d parts: errors\n%v\nwant\n%v", n, err, whole)
		}
	}

	valid := strings.NewReplacer("risk: extreme", "risk: high", "descriptoin", "description", "max_retries: two", "max_retries: 2", "objekt", "object", "SCHEMA_STRICT_MODE\n", "SCHEMA_STRICT_MODE\n    reason: later\n").Replace(a)
	for _, files := range [][]File{
		{{Name: "a.yaml", Data: []byte(valid[:strings.Index(valid, "  get_g")])}, {Name: "b.yaml", Data: []byte(strings.Replace(b, "    args: {type: object}\n", "", 1))}},
		{{Name: "synthetic.yaml", Data: catalogtest.YAML(300)}},
	} {
		whole, err := loadInParts(1, files...)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{2, 3} {
			parts, err := loadInParts(n, files...)
			if err != nil {
				t.Fatalf("%s in %d parts: %v", files[0].Name, n, err)
			}
			if !reflect.DeepEqual(parts, whole) {
				t.Errorf("%s in %d parts differs from the catalog evaluated whole", files[0].Name, n)
			}
		}
	}
}

// What needs the whole catalog is decided once its parts are merged: the
// catalog's idempotency_key reaches the tools of every part, and an
// original_name is checked against the tools of other parts.
func TestLoadInPartsWholeCatalog(t *testing.T) {
	src := "idempotency_key: argument\ntools:\n" +
		"  a_write: {description: d, has_side_effects: true}\n" +
		"  z_write: {description: d, has_side_effects: true}\n"
	for _, n := range []int{1, 2} {
		c, err := loadInParts(n, File{Name: "c.yaml", Data: []byte(src)})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range c.Tools {
			if tool.IdempotencyKey != IdempotencyKeyArgument {
				t.Errorf("%d parts: %s has idempotency_key %q, want the catalog's", n, tool.Name, tool.IdempotencyKey)
			}
		}
	}
	clash := "tools:\n  a_read: {description: d, original_name: z_read}\n  z_read: {description: d}\n"
	for _, n := range []int{1, 2} {
		if _, err := loadInParts(n, File{Name: "c.yaml", Data: []byte(clash)}); err == nil || !strings.Contains(err.Error(), `original_name "z_read" is the name of tool z_read`) {
			t.Errorf("%d parts: %v, want the original_name clash", n, err)
		}
	}
}

// Repeats are dropped even when other errors at their position come
// between them, and the errors at one position keep their order.
func TestSortUnique(t *testing.T) {
	p, q := Pos{File: "f", Line: 5, Col: 12}, Pos{File: "f", Line: 2, Col: 1}
	var l ErrorList
	for _, msg := range []string{"rule", "reason", "rule", "reason"} {
		l.add(p, "%s", msg)
	}
	l.add(q, "first")
	got := l.sortUnique().Error()
	if want := "f:2:1: first\nf:5:12: rule\nf:5:12: reason"; got != want {
		t.Errorf("sortUnique:\n%s\nwant\n%s", got, want)
	}
}
