package gen

import (
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime"
)

// checkCatalog has a tool whose descriptors hold a nested object, a
// pattern, a list and an object default, which the check decodes into
// the Go type laid out as the Args struct.
const checkCatalog = `package: shop
tools:
  find_orders:
    description: Finds orders. Use when the user asks for some.
    args:
      type: object
      additionalProperties: false
      properties:
        code: {type: string, pattern: "^[A-Z]+$", description: The order code.}
        tags: {type: array, items: {type: string}, description: Tags.}
        window:
          type: object
          description: When.
          properties:
            days: {type: integer, minimum: 1, description: How many days.}
          default: {days: 7}
`

// A descriptor that runtime.DataPass refuses is an error of generation,
// naming the tool and what does not fit; the descriptors gen makes pass.
func TestCheckDescs(t *testing.T) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "catalog.yaml", Data: []byte(checkCatalog)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		desc  string
		spoil func(top *runtime.StructDesc)
		want  string // "" for no error
	}{
		{"as made", func(*runtime.StructDesc) {}, ""},
		{"a field the struct lacks", func(top *runtime.StructDesc) { top.Fields[0].Field = 9 }, "field 9"},
		{"a kind the Go type does not fit", func(top *runtime.StructDesc) { top.Fields[0].Kind = runtime.KindBool }, "does not fit"},
		{"a pattern Go does not compile", func(top *runtime.StructDesc) { top.Fields[0].String.PatternSource = "(" }, "pattern"},
		{"a list without its items", func(top *runtime.StructDesc) { top.Fields[1].Item = nil }, "item"},
		{"a default that does not decode", func(top *runtime.StructDesc) { top.Fields[2].Default = `{"days": "x"}` }, "default"},
	} {
		m, err := buildModel(cat, true, nil, ValidatorsData)
		if err != nil {
			t.Fatal(err)
		}
		tm := m.tools[0]
		if tm.v == nil || !tm.v.data {
			t.Fatalf("%s has no data-mode validator", tm.t.Name)
		}
		c.spoil(&tm.v.descs[0].sd)
		err = checkDescs(tm, tm.v)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.desc, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "find_orders")):
			t.Errorf("%s: error %v, want one naming find_orders and %q", c.desc, err, c.want)
		}
	}
}
