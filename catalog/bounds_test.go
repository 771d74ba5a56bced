package catalog

import (
	"math"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"cuelang.org/go/cue/parser"
	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/catalog/catalogtest"
)

// loadHostile loads testdata/hostile/name and returns its errors and the
// bytes allocated meanwhile.
func loadHostile(t *testing.T, name string) ([]string, uint64) {
	t.Helper()
	path := filepath.Join("testdata", "hostile", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	_, err = LoadFiles(File{Name: name, Data: data})
	goruntime.ReadMemStats(&after)
	if err == nil {
		t.Fatalf("%s loads", name)
	}
	return errorLines(t, err), after.TotalAlloc - before.TotalAlloc
}

func TestYAMLAliasBomb(t *testing.T) {
	got, alloc := loadHostile(t, "alias_bomb.yaml")
	want := []string{`alias_bomb.yaml:6:8: YAML aliases expand the file by more than 100000 nodes; repeat less through aliases, or write the catalog in CUE`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	// Unbounded, the file's 9^9 strings take gigabytes.
	t.Logf("allocated %d KiB", alloc>>10)
	if alloc > 40<<20 {
		t.Errorf("loading allocated %d MiB, want under 40", alloc>>20)
	}
}

func TestYAMLAliasBudget(t *testing.T) {
	list := func(n int) string { return "a: &a [" + strings.Repeat("1, ", n) + "1]\n" }
	tests := []struct {
		desc string
		src  string
		ok   bool
	}{
		{"a small file may add 100,000 nodes", list(40_000) + "b: *a\nc: *a\n", true},
		{"a small file may not add more", list(40_000) + "b: *a\nc: *a\nd: *a\n", false},
		{"a larger file may add as many nodes as it holds", list(150_000) + "b: *a\n", true},
		{"a larger file may not add more", list(150_000) + "b: *a\nc: *a\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			_, errs := parseYAML("t.yaml", []byte(tt.src))
			if tt.ok && len(errs) > 0 || !tt.ok && len(errs) != 1 {
				t.Errorf("errors: %v", errs)
			}
		})
	}
}

// The CUE shapes whose evaluation explodes are refused before evaluation,
// each once, at the expression.
func TestCUEBounds(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"range.cue", []string{
			`range.cue:5:9: comprehension over 10000000 values; a catalog may iterate at most 10000 times`,
		}},
		{"range_by_reference.cue", []string{
			`range_by_reference.cue:6:9: comprehension over 10000000 values; a catalog may iterate at most 10000 times`,
		}},
		{"nested_comprehensions.cue", []string{
			`nested_comprehensions.cue:7:3: comprehension over 200 values, 40000 with the comprehensions around it; a catalog may iterate at most 10000 times`,
		}},
		{"disjunctions.cue", []string{
			`disjunctions.cue:3:4: 4194304 alternatives: the disjunctions unified in this expression multiply; a catalog may combine at most 1024`,
		}},
		{"disjunction_definitions.cue", []string{
			`disjunction_definitions.cue:8:4: 2048 alternatives: the disjunctions unified in this expression multiply; a catalog may combine at most 1024`,
		}},
		{"disjunction_fields.cue", []string{
			`disjunction_fields.cue:13:1: 2048 alternatives: the disjunctions of the 11 declarations of x up to here multiply; a catalog may combine at most 1024`,
		}},
		{"growth.cue", []string{
			`growth.cue:28:6: this string is 33554432 bytes long; a catalog may make strings of at most 16777216`,
			`growth.cue:70:6: this string is 33554432 bytes long; a catalog may make strings of at most 16777216`,
			`growth.cue:112:6: this string is 33554432 bytes long; a catalog may make strings of at most 16777216`,
			`growth.cue:143:6: this list has 16384 values; a catalog may make lists of at most 10000`,
			`growth.cue:175:9: comprehension over 10000000 values; a catalog may iterate at most 10000 times`,
		}},
		{"builtins.cue", []string{
			`builtins.cue:8:8: this string is 2000000000 bytes long; a catalog may make strings of at most 16777216`,
			`builtins.cue:11:55: list.Repeat makes a list of 1000 values, 100000 with the comprehensions around it; a catalog may make at most 10000`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, _ := loadHostile(t, tt.file)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// A catalog of 5,000 tools made by a comprehension, with defaults and
// disjunctions, is within the bounds.
func TestCUEBoundsAllowLargeCatalogs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "hostile", "within_bounds.cue"))
	if err != nil {
		t.Fatal(err)
	}
	l := newLoader()
	f, err := parser.ParseFile("within_bounds.cue", data)
	if err != nil {
		t.Fatal(err)
	}
	l.lines["within_bounds.cue"] = newLineIndex("within_bounds.cue", data)
	s := l.checkCUEBounds(f)
	if len(l.errs) > 0 {
		t.Fatalf("refused: %v", l.errs)
	}
	if s == nil || s.what != "a comprehension" || s.pos.String() != "within_bounds.cue:9:1" {
		t.Errorf("suspect %+v, want the comprehension of tools at 9:1", s)
	}
	// The format's own definitions, the CUE users see most.
	f, err = parser.ParseFile(formatFile, formatSource)
	if err != nil {
		t.Fatal(err)
	}
	if l.checkCUEBounds(f); len(l.errs) > 0 {
		t.Fatalf("the format is refused: %v", l.errs)
	}
}

// Past its budget, a load returns one error at the field likeliest to
// blame. The input is within the checks made before evaluation and takes a
// fraction of a second to evaluate.
func TestLoadBudget(t *testing.T) {
	src := "package tools\n\nimport \"list\"\n\nn: 300\ntools: {for i in list.Range(0, n, 1) {\"t\\(i)\": {description: \"x\"}}}\n"
	tests := []struct {
		desc string
		b    budget
		want string
	}{
		{"time", budget{time: time.Millisecond, heap: 1 << 40, poll: time.Hour},
			"t.cue:6:1: evaluating the catalog went beyond its time budget (1ms) and may not end; look at a comprehension in this field"},
		{"memory", budget{time: time.Hour, heap: 8 << 20, poll: time.Millisecond},
			"t.cue:6:1: evaluating the catalog went beyond its memory budget (8 MiB) and may not end; look at a comprehension in this field"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			// The heap budget counts growth from the heap at the start:
			// garbage of earlier tests, collected during the load,
			// would hide the growth. 8 MiB is past what the loader
			// allocates before it finds the comprehension (a 1 MiB
			// budget could run out first, on a loaded machine) and a
			// quarter of what evaluating it takes.
			goruntime.GC()
			_, err := newLoader().within(tt.b, []File{{Name: "t.cue", Data: []byte(src)}})
			if diff := cmp.Diff([]string{tt.want}, errorLines(t, err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadBudgetWithoutSuspect(t *testing.T) {
	// A YAML catalog has no CUE to suspect: the error is at the top of the
	// first file.
	b := budget{time: time.Nanosecond, heap: 1 << 40, poll: time.Hour}
	_, err := newLoader().within(b, []File{{Name: "t.yaml", Data: catalogtest.YAML(100)}})
	want := []string{"t.yaml:1:1: evaluating the catalog went beyond its time budget (0s)"}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestBudgetRunPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want the panic of the load", r)
		}
	}()
	defaultBudget.run(0, func() { panic("boom") })
	t.Error("no panic")
}

func TestLoadValueLimit(t *testing.T) {
	src := `package tools

tools: {
	list_items: {description: "x"}
	get_item: {description: "y", examples: [{args: {ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}}]}
}
`
	l := newLoader()
	l.maxValues = 40
	_, err := l.within(defaultBudget, []File{{Name: "t.cue", Data: []byte(src)}})
	want := []string{"t.cue:5:2: tools.get_item: the evaluated catalog holds more than 40 values by here; a catalog may hold at most that many"}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	l = newLoader()
	l.maxValues = 64
	if _, err := l.within(defaultBudget, []File{{Name: "t.cue", Data: []byte(src)}}); err != nil {
		t.Errorf("within the limit: %v", err)
	}
}

func TestCUEBoundsNumbers(t *testing.T) {
	tests := []struct {
		args string
		ok   bool
	}{
		{"0, 10000, 1", true},
		{"-5000, 5000, 1", true},
		{"0, 10001, 1", false},
		{"0, 10M, 1", false},
		{"0, 1e5, 2", false},
		{"0, 1e5, 10", true},
		{"0, n * 2, 1", false},
		{"0, n, 1", true},
		{"100, 0, -1", true},
		{"10000000, 0, -1", false},
		{"0, m, 1", true}, // m is not a number the source knows
	}
	for _, tt := range tests {
		src := "import \"list\"\nn: 10000\nm: string\nx: [for i in list.Range(" + tt.args + ") {i}]\n"
		l := newLoader()
		f, err := parser.ParseFile("t.cue", src)
		if err != nil {
			t.Fatal(err)
		}
		l.lines["t.cue"] = newLineIndex("t.cue", []byte(src))
		l.checkCUEBounds(f)
		if ok := len(l.errs) == 0; ok != tt.ok {
			t.Errorf("list.Range(%s): accepted %v, want %v (%v)", tt.args, ok, tt.ok, l.errs)
		}
	}
}

// The definition behind an error is found once per pattern, not made
// again for every tool: a catalog of 5,000 tools with the same mistake in
// each must report it within its time budget.
func TestDefAtReusesPatternDefinitions(t *testing.T) {
	src := "package tools\n\nimport \"list\"\n\ntools: {for i in list.Range(0, 50, 1) {\"t\\(i)\": {description: \"x\", max_retries: *9 | 0}}}\n"
	l := newLoader()
	l.load([]File{{Name: "t.cue", Data: []byte(src)}})
	if len(l.errs) != 50 {
		t.Fatalf("%d errors, want 50: %v", len(l.errs), l.errs)
	}
	i := 0
	// AllocsPerRun counts every goroutine's allocations, and an earlier
	// test's work past its budget may still be winding down: the least of
	// a few runs is this lookup's.
	allocs := math.Inf(1)
	for range 5 {
		allocs = min(allocs, testing.AllocsPerRun(20, func() {
			i++
			l.defAt([]string{"tools", "t" + strconv.Itoa(i%50), "max_retries"})
		}))
	}
	t.Logf("%.0f allocations per lookup", allocs)
	if allocs > 100 {
		t.Errorf("%.0f allocations per lookup; want a few lookups in cached definitions", allocs)
	}
}
