package gen_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
	"github.com/toolcat/toolcat/gen"
)

// dataModeFiles counts the files of files whose validator is a data-mode
// one, and those with one-pass code.
func dataModeFiles(files map[string][]byte) (data, code int) {
	for _, b := range files {
		if bytes.Contains(b, []byte("return runtime.DataPassFor(")) {
			data++
		}
		if bytes.Contains(b, []byte("runtime.OnePass(")) {
			code++
		}
	}
	return data, code
}

func TestValidatorModes(t *testing.T) {
	cat := loadString(t, cacheCatalog)
	for _, c := range []struct {
		mode       gen.ValidatorMode
		data, code int
	}{
		{gen.ValidatorsAuto, 0, 3},
		{gen.ValidatorsCode, 0, 3},
		{gen.ValidatorsData, 3, 0},
	} {
		files, err := gen.Generate(cat, gen.WithValidators(c.mode))
		if err != nil {
			t.Fatal(err)
		}
		if data, code := dataModeFiles(files); data != c.data || code != c.code {
			t.Errorf("%v: %d data-mode and %d code validators, want %d and %d", c.mode, data, code, c.data, c.code)
		}
		if c.mode == gen.ValidatorsData {
			f := string(files["list_orders_gen.go"])
			for _, want := range []string{
				"func listOrdersValidator(*runtime.Meta) (runtime.Validator, error) {\n\treturn runtime.DataPassFor((*ListOrdersArgs)(nil), &listOrdersArgsDesc)\n}",
				"var listOrdersArgsDesc = runtime.StructDesc{",
				`Enum: []string{"open", "shipped"}`,
			} {
				if !strings.Contains(f, want) {
					t.Errorf("data mode: list_orders_gen.go lacks %q:\n%s", want, f)
				}
			}
			if strings.Contains(f, "regexp") || strings.Contains(f, "func scan") {
				t.Errorf("data mode: list_orders_gen.go has validator code:\n%s", f)
			}
		}
	}
}

// auto is data above AutoDataTools tools.
func TestValidatorsAuto(t *testing.T) {
	for _, n := range []int{gen.AutoDataTools, gen.AutoDataTools + 1} {
		cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: catalogtest.YAML(n)})
		if err != nil {
			t.Fatal(err)
		}
		files, err := gen.Generate(cat)
		if err != nil {
			t.Fatal(err)
		}
		data, code := dataModeFiles(files)
		if want := n > gen.AutoDataTools; (data == n && code == 0) != want || (code == n && data == 0) == want {
			t.Errorf("%d tools under auto: %d data-mode and %d code validators", n, data, code)
		}
	}
}

// A change of mode renders the tool files again, though the cache has
// the other mode's.
func TestValidatorModeCacheKey(t *testing.T) {
	cat := loadString(t, cacheCatalog)
	for _, withNames := range []bool{false, true} {
		c := &mapCache{files: map[string][]byte{}}
		var cache gen.Cache = c
		if withNames {
			c.names = map[string][]string{}
			cache = namesCache{c}
		}
		for i, mode := range []gen.ValidatorMode{gen.ValidatorsCode, gen.ValidatorsData, gen.ValidatorsCode, gen.ValidatorsData} {
			c.reset()
			files, err := gen.Generate(cat, gen.WithCache(cache), gen.WithValidators(mode))
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := gen.Generate(cat, gen.WithValidators(mode))
			if err != nil {
				t.Fatal(err)
			}
			for name, b := range fresh {
				if !bytes.Equal(files[name], b) {
					t.Errorf("run %d (%v, names cache %v): %s differs from a run without cache", i, mode, withNames, name)
				}
			}
			if i < 2 && len(c.hits) != 0 {
				t.Errorf("run %d (%v): the first run in this mode took %v from the cache", i, mode, c.hits)
			}
			if i >= 2 && len(c.hits) != 3 {
				t.Errorf("run %d (%v): %d files from the cache, want 3", i, mode, len(c.hits))
			}
		}
	}
}

func TestParseValidatorMode(t *testing.T) {
	for _, s := range []string{"auto", "code", "data"} {
		m, err := gen.ParseValidatorMode(s)
		if err != nil || m.String() != s {
			t.Errorf("%q: %v, %v", s, m, err)
		}
	}
	if _, err := gen.ParseValidatorMode("fast"); err == nil || !strings.Contains(err.Error(), "auto, code or data") {
		t.Errorf("fast: %v", err)
	}
}

// A catalog split into packages resolves auto once, for the whole
// catalog: every package of a 301-tool catalog gets data-mode validators,
// though each category holds far fewer than 300 tools.
func TestValidatorsAutoSplit(t *testing.T) {
	for _, c := range []struct {
		mode gen.ValidatorMode
		n    int
		want gen.ValidatorMode
	}{
		{gen.ValidatorsAuto, gen.AutoDataTools, gen.ValidatorsCode},
		{gen.ValidatorsAuto, gen.AutoDataTools + 1, gen.ValidatorsData},
		{gen.ValidatorsCode, 10000, gen.ValidatorsCode},
		{gen.ValidatorsData, 1, gen.ValidatorsData},
	} {
		if got := c.mode.Resolve(c.n); got != c.want {
			t.Errorf("%v.Resolve(%d) = %v, want %v", c.mode, c.n, got, c.want)
		}
	}
	cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: catalogtest.YAML(gen.AutoDataTools + 1)})
	if err != nil {
		t.Fatal(err)
	}
	parts, err := gen.SplitByCategory(cat)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) < 2 {
		t.Fatalf("%d packages: the synthetic catalog has several categories", len(parts))
	}
	mode := gen.ValidatorsAuto.Resolve(len(cat.Tools))
	for _, p := range parts {
		files, err := gen.Generate(p.Catalog, gen.WithValidators(mode))
		if err != nil {
			t.Fatal(err)
		}
		if data, code := dataModeFiles(files); code != 0 || data != len(p.Catalog.Tools) {
			t.Errorf("package %s (%d tools): %d data-mode and %d code validators", p.Package, len(p.Catalog.Tools), data, code)
		}
	}
}

// nestedCatalog has objects nested two deep, in a property and in the
// items of an array, and a tool whose implementation type takes the name
// the descriptor of create_event's location would ask for.
const nestedCatalog = `{"package": "events", "tools": {
  "create_event": {"description": "Creates an event. Use when the user asks for one.", "args": {
    "type": "object", "additionalProperties": false, "required": ["title"],
    "properties": {
      "title": {"type": "string", "description": "The title."},
      "location": {"type": "object", "additionalProperties": false, "description": "Where.", "properties": {
        "room": {"type": "string", "description": "The room."},
        "building": {"type": "object", "description": "The building.", "properties": {"name": {"type": "string", "description": "Its name."}}}}},
      "attendees": {"type": "array", "description": "Who.", "items": {"type": "object", "properties": {"email": {"type": "string", "description": "Their email."}}}}}}},
  "create_event_args_location_desc": {"description": "Lists nothing. Use when the tests need the name.", "args": {"type": "object", "properties": {}}}}}`

// Each object nested in the arguments has a descriptor of its own, a
// package variable the field points to, named after its Go type: or,
// when that name is taken, by the name given instead.
func TestDataDescNested(t *testing.T) {
	if !checkCompiles(t, []byte(nestedCatalog), gen.WithValidators(gen.ValidatorsData)) {
		t.Fatal("the catalog does not load")
	}
	cat, err := catalog.LoadFiles(catalog.File{Name: "catalog.json", Data: []byte(nestedCatalog)})
	if err != nil {
		t.Fatal(err)
	}
	files, err := gen.Generate(cat, gen.WithValidators(gen.ValidatorsData))
	if err != nil {
		t.Fatal(err)
	}
	f := string(files["create_event_gen.go"])
	for _, want := range []string{
		"var createEventArgsDesc = runtime.StructDesc{",
		`{Key: "location", Field: 1, Kind: runtime.KindStruct, Struct: &createEventArgsLocationDesc2, Defaults: true}`,
		"var createEventArgsLocationDesc2 = runtime.StructDesc{",
		"Struct: &createEventArgsLocationBuildingDesc, Defaults: true}",
		"var createEventArgsLocationBuildingDesc = runtime.StructDesc{",
		"Item: &runtime.FieldDesc{Kind: runtime.KindStruct, Struct: &createEventArgsAttendeesItemDesc}",
		"var createEventArgsAttendeesItemDesc = runtime.StructDesc{",
	} {
		if !strings.Contains(f, want) {
			t.Errorf("create_event_gen.go lacks %q:\n%s", want, f)
		}
	}
	if strings.Contains(f, "&runtime.StructDesc{") {
		t.Errorf("create_event_gen.go has a nested descriptor literal:\n%s", f)
	}
}
