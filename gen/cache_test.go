package gen_test

import (
	"bytes"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/gen"
)

// mapCache is a Cache in memory that counts what it is asked.
type mapCache struct {
	mu         sync.Mutex
	files      map[string][]byte // name + key → data
	hits, puts []string
	// names, when not nil, makes it a NamesCache.
	names      map[string][]string
	namesAsked int
	namesHits  int
}

// namesCache is a mapCache that is a NamesCache.
type namesCache struct{ *mapCache }

func (c namesCache) GetNames(key string) ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.namesAsked++
	n, ok := c.names[key]
	if ok {
		c.namesHits++
	}
	return n, ok
}

func (c namesCache) PutNames(key string, names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.names[key] = names
}

func (c *mapCache) Get(name, key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.files[name+" "+key]
	if ok {
		c.hits = append(c.hits, name)
	}
	return b, ok
}

func (c *mapCache) Put(name, key string, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files[name+" "+key] = data
	c.puts = append(c.puts, name)
}

func (c *mapCache) reset() { c.hits, c.puts, c.namesAsked, c.namesHits = nil, nil, 0, 0 }

const cacheCatalog = `package: shop
tools:
  get_order:
    description: Gets an order by id. Use when the user names an order.
    args:
      type: object
      additionalProperties: false
      required: [order_id]
      properties:
        order_id: {type: string, description: The order's id.}
  cancel_order:
    description: Cancels an order. Use when the user asks to cancel one.
    has_side_effects: true
    risk: medium
    args:
      type: object
      additionalProperties: false
      required: [order_id]
      properties:
        order_id: {type: string, description: The order's id.}
  list_orders:
    description: Lists the orders of the account. Use when the user asks for them.
    args:
      type: object
      additionalProperties: false
      properties:
        status: {type: string, enum: [open, shipped], description: Which orders.}
`

func loadString(t *testing.T, src string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.LoadFiles(catalog.File{Name: "catalog.yaml", Data: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// A cached run gives the same bytes as a fresh one, renders only the tool
// files whose inputs changed, and always renders the common files.
func TestCache(t *testing.T) {
	t.Run("files", func(t *testing.T) { testCache(t, false) })
	t.Run("files and names", func(t *testing.T) { testCache(t, true) })
}

func testCache(t *testing.T, withNames bool) {
	c := &mapCache{files: map[string][]byte{}}
	var cache gen.Cache = c
	if withNames {
		c.names = map[string][]string{}
		cache = namesCache{c}
	}
	generate := func(src string, opts ...gen.Option) map[string][]byte {
		t.Helper()
		files, err := gen.Generate(loadString(t, src), opts...)
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	check := func(src string, wantHits, wantPuts []string) {
		t.Helper()
		c.reset()
		cached := generate(src, gen.WithCache(cache))
		fresh := generate(src)
		for _, name := range slices.Sorted(maps.Keys(fresh)) {
			if !bytes.Equal(cached[name], fresh[name]) {
				t.Errorf("%s differs between a cached and a fresh run", name)
			}
		}
		slices.Sort(c.hits)
		slices.Sort(c.puts)
		wantHits, wantPuts = slices.Sorted(slices.Values(wantHits)), slices.Sorted(slices.Values(wantPuts))
		if !slices.Equal(c.hits, wantHits) || !slices.Equal(c.puts, wantPuts) {
			t.Errorf("cache hits %v, puts %v; want %v, %v", c.hits, c.puts, wantHits, wantPuts)
		}
		// A tool whose file comes from the cache had its validator's
		// names from there too.
		if withNames && c.namesHits < len(wantHits) {
			t.Errorf("%d tools had their validator's names from the cache, %d their file", c.namesHits, len(wantHits))
		}
	}
	all := []string{"cancel_order_gen.go", "get_order_gen.go", "list_orders_gen.go"}
	check(cacheCatalog, nil, all)
	check(cacheCatalog, all, nil)

	// A changed description: that tool only.
	edited := strings.Replace(cacheCatalog, "Gets an order by id.", "Gets one order by its id.", 1)
	check(edited, []string{"cancel_order_gen.go", "list_orders_gen.go"}, []string{"get_order_gen.go"})

	// Another package: every file.
	check(strings.Replace(edited, "package: shop", "package: store", 1), nil, all)

	// A new tool whose type name takes one list_orders had: list_orders
	// gets another name, so its file is rendered again.
	collides := edited + `  list_orders_args_status:
    description: Lists the statuses an order can have. Use when the user asks.
    args: {type: object, additionalProperties: false, properties: {}}
`
	check(collides, []string{"cancel_order_gen.go", "get_order_gen.go"}, []string{"list_orders_args_status_gen.go", "list_orders_gen.go"})

	// A new tool whose implementation type takes the name of
	// get_order's binding, or of a variable of its validator: get_order's
	// file is rendered again, with the name it gets instead.
	for _, name := range []string{"get_order_tool", "get_order_args_object"} {
		added := collides + "  " + name + `:
    description: Named like a helper of get_order. Use when asked.
`
		check(collides, []string{"cancel_order_gen.go", "get_order_gen.go", "list_orders_args_status_gen.go", "list_orders_gen.go"}, nil)
		check(added, []string{"cancel_order_gen.go", "list_orders_args_status_gen.go", "list_orders_gen.go"}, []string{"get_order_gen.go", name + "_gen.go"})
	}
}

// Every field of a catalog entry that a tool's file is made from is in the
// file's cache key: changing it renders the file again. A field added to
// catalog.Tool must be placed in one list or the other.
func TestCacheKeyCoversTool(t *testing.T) {
	inFile := []string{"Name", "OriginalName", "Description", "Category", "Version", "Owner", "Risk",
		"HasSideEffects", "SideEffect", "Idempotent", "IdempotencyRequired", "SupportsDryRun", "Revertible",
		"ReturnsUntrusted", "CapabilityRequired", "Exposure", "Autonomy", "MaxRetries", "SLAms", "MaxResultBytes",
		"Dependencies", "FallbackTool", "AdditionalArgs", "IdempotencyKey", "Args", "Result", "Errors", "Queries", "RenamedFrom"}
	// Used by the conformance test and lint only, which the cache does
	// not hold.
	notInFile := []string{"DependencyPos", "QueryPos", "RenamedFromPos", "Examples", "Suppress", "Pos", "FieldPos"}

	typ := reflect.TypeFor[catalog.Tool]()
	for f := range typ.Fields() {
		if !slices.Contains(inFile, f.Name) && !slices.Contains(notInFile, f.Name) {
			t.Errorf("catalog.Tool.%s is new: add it to the cache key of gen, or say here why tool files do not use it", f.Name)
		}
	}
	other := loadString(t, `package: p
services:
  db: {description: The database.}
tools:
  other_tool:
    description: Other.
    dependencies: [db]
    queries: [how many orders are there]
    result: {type: object, properties: {n: {type: integer}}}
    args: {type: object, properties: {q: {type: string}}}
    errors: {not_found: {suggestion: Look elsewhere.}}
    renamed_from: [old_tool]
`).Tools[0]
	for _, name := range append(inFile, notInFile...) {
		c := &mapCache{files: map[string][]byte{}}
		cat := loadString(t, cacheCatalog)
		if _, err := gen.Generate(cat, gen.WithCache(c)); err != nil {
			t.Fatal(err)
		}
		tool := cat.Tool("get_order")
		v := reflect.ValueOf(tool).Elem().FieldByName(name)
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Int:
			v.SetInt(v.Int() + 1)
		default:
			// Pointers, slices, maps and structs: the other tool's.
			v.Set(reflect.ValueOf(other).Elem().FieldByName(name))
		}
		c.reset()
		if _, err := gen.Generate(cat, gen.WithCache(c)); err != nil {
			t.Fatal(err)
		}
		// A new name is a new file too.
		rendered := slices.Contains(c.puts, "get_order_gen.go") || name == "Name" && !slices.Contains(c.hits, "get_order_gen.go")
		if want := slices.Contains(inFile, name); rendered != want {
			t.Errorf("after a change of %s, get_order_gen.go rendered again: %v, want %v", name, rendered, want)
		}
	}
}
