package validatortest

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/gen"
	"github.com/toolcat/toolcat/internal/gomodtest"
)

// The schema-varying differential test: random argument schemas (see
// randschema_test.go), each compiled by toolcat into a package of its own
// module with a test that compares the generated validators with the
// general one on random arguments (package difftest). Compiling Go is the
// slow part, so the tools of a batch share one package and one test
// binary. go test runs one batch: the regression seeds and a fixed run of
// seeds; make fuzz runs batches of fresh seeds for a while
// (-schemafuzz.time).

var (
	schemaFuzzTime = flag.Duration("schemafuzz.time", 0, "run batches of random schemas for this long instead of the fixed batch")
	schemaFuzzSeed = flag.Uint64("schemafuzz.seed", 0, "run only the tool of this seed (with -run TestDifferentialSchemas)")
	schemaFuzzArgs = flag.Int("schemafuzz.args", 300, "arguments tried per tool")
	// Off by default: struct tags of such names are another change's.
	schemaFuzzOddNames = flag.Bool("schemafuzz.oddnames", true, "give random schemas property names that are no Go identifiers (-schemafuzz.oddnames=false for identifiers only)")
)

// schemaRegressions are the schemas and arguments on which the validators
// once differed, as the random seed that found each made them (a seed
// makes another schema once the generator changes). onePass says that
// the generated validator must be a one-pass one: a regression that falls
// back to the general validator would compare it with itself.
var schemaRegressions = []struct {
	seed         uint64
	onePass      bool
	policy, args string
	calls        []string
}{
	// null passed the one-pass validator of type [T, "null"] beside an
	// enum or a const that null is not in.
	{1796115733340148398, true, "allow", `{"type": "object", "properties": {"count": {"type": ["integer", "null"], "enum": [1, 2]}, "mode": {"type": ["string", "null"], "enum": ["a", "b"]}, "flag": {"type": ["boolean", "null"], "const": true}}}`,
		[]string{`{"count":null}`, `{"mode":null}`, `{"flag":null}`, `{"count":1,"mode":"a","flag":true}`}},
	// The one-pass validator checked bounds, lengths and patterns before
	// const, enum and format, which the general one checks first and
	// reports alone.
	{24, true, "strip", `{"type": "object", "properties": {"x1": {"type": "integer", "const": 2, "maximum": 10, "multipleOf": 2}, "e": {"type": "integer", "enum": [1, 2], "maximum": 5}, "s": {"type": "string", "enum": ["red", "tan"], "maxLength": 3}, "k": {"type": "string", "enum": ["red", "rose"], "pattern": "^r"}, "c": {"type": "string", "const": "ab", "minLength": 2}, "m": {"type": "string", "format": "email", "maxLength": 5}, "p": {"type": "string", "format": "uuid", "pattern": "^1"}}}`,
		[]string{`{"x1":-3}`, `{"x1":12}`, `{"e":7}`, `{"e":1e19}`, `{"e":-1e19}`, `{"s":"green"}`, `{"k":"blue"}`, `{"c":"x"}`, `{"m":"nobody"}`, `{"p":"x"}`, `{"x1":2,"e":1,"s":"red","k":"rose","c":"ab","m":"a@b.c","p":"123e4567-e89b-12d3-a456-426614174000"}`}},
	// Shapes the random schemas do not make: an enum with null (which
	// the general validator checks), a cycle of $refs, a recursive $ref
	// with defaults, date-time defaults (once left to the general
	// validator), defaults nested in defaults.
	{0, false, "", `{"type": "object", "properties": {"v": {"type": ["string", "null"], "enum": ["x", null]}}}`, []string{`{"v":null}`, `{"v":"y"}`}},
	{0, false, "", `{"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}`, []string{`{}`, `{"a":1}`}},
	{0, false, "", `{"type": "object", "properties": {"a": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}, "v": {"type": "integer", "default": 3}}}}}`, []string{`{}`, `{"a":{}}`, `{"a":{"next":{"next":{"v":"x"}}}}`, `{"a":{"next":null}}`}},
	{0, true, "", `{"type": "object", "properties": {"at": {"type": "string", "format": "date-time", "default": "2026-01-02T09:00:00.5+01:00"}, "on": {"type": ["string", "null"], "format": "date-time", "default": "2026-01-02T09:00:00Z"}}}`, []string{`{}`, `{"on":null}`, `{"at":"2026-01-03T00:00:00Z"}`}},
	{0, true, "", `{"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "object", "properties": {"c": {"type": "integer", "default": 1}}, "default": {"c": 2}}}}}}`, []string{`{}`, `{"a":{}}`, `{"a":{"b":{}}}`, `{"a":{"b":null}}`}},
	// Integers a float64 does not hold, in defaults, enums, consts and
	// bounds, once read through a float64 by both validators; keys that
	// fold to a property's name under an open object, once matched to it
	// by the general one.
	{0, true, "allow", `{"type": "object", "properties": {"n": {"type": "integer", "default": 9007199254740993.0}, "o": {"type": "object", "properties": {"m": {"type": "integer"}}, "default": {"m": 9007199254740993}}, "e": {"type": "integer", "enum": [9007199254740993, 9223372036854775807]}, "c": {"type": "integer", "const": 9007199254740993}, "b": {"type": "integer", "minimum": -9007199254740992, "maximum": 4611686018427387904}, "u": {"type": "array", "items": {"type": "integer"}, "uniqueItems": true}, "size": {"type": "integer", "maximum": 10}, "kind": {"type": "string", "enum": ["a"]}}, "additionalProperties": true}`,
		[]string{`{}`, `{"n": 9007199254740993}`, `{"e": 9007199254740992}`, `{"e": 9007199254740993.0}`, `{"e": 9.223372036854775807e18}`, `{"c": 9007199254740992}`, `{"c": 90071992547409930e-1}`,
			`{"b": 4611686018427387904.0}`, `{"b": -9007199254740993}`, `{"b": -9007199254740992.0}`, `{"u": [9007199254740992, 9007199254740993]}`, `{"u": [9007199254740993, 9007199254740993.0]}`, `{"u": [9223372036854775808, 9223372036854775809]}`,
			`{"b": 4611686018427387905}`, `{"b": 1e19}`, `{"Size": 1000, "\u017fize": 1000, "\u212aind": 7, "KIND": 1, "o": {"M": 1e400}}`, `{"o": {"m": 1e19}}`, `{"o": {"m": 9007199254740993.0}}`}},
	// The data-mode and code-mode errors of an array of enum items that
	// are not unique hold lists of two packages' types: they are compared
	// as JSON.
	{0, true, "strip", `{"type": "object", "properties": {"a,b": {"type": "array", "items": {"enum": ["red", "green"], "default": "red"}, "uniqueItems": true}}}`,
		[]string{`{"a,b":["green","red","green"]}`, `{"a,b":["green","red"]}`}},
	// A float32 beyond float64's range was reported as beyond float64.
	{0, true, "", `{"type": "object", "properties": {"f": {"type": "number", "format": "float", "minimum": 0}, "u": {"type": "array", "items": {"type": "number", "format": "float"}, "uniqueItems": true}, "c": {"type": "number", "format": "float", "const": 1.5}, "d": {"type": "number", "const": 0.5}}}`,
		[]string{`{"f": 1e400}`, `{"f": 1e39}`, `{"u": [1e400]}`, `{"u": [1e39, 1]}`, `{"u": [1.0000000000000000001, 1]}`, `{"c": 1e400}`, `{"c": 1.50}`, `{"d": 0.50000000000000000001}`, `{"d": 5e-1}`}},
}

// fixedSeeds is the run go test makes besides the regressions.
const fixedSeeds = 40

func TestDifferentialSchemas(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated package; skipped with -short")
	}
	switch {
	case *schemaFuzzSeed != 0:
		runSchemaBatch(t, []uint64{*schemaFuzzSeed}, *schemaFuzzArgs, false)
	case *schemaFuzzTime > 0:
		deadline := time.Now().Add(*schemaFuzzTime)
		base := uint64(time.Now().UnixNano())
		batches, tools := 0, 0
		for time.Now().Before(deadline) && !t.Failed() {
			seeds := make([]uint64, 60)
			for i := range seeds {
				seeds[i] = base + uint64(batches*len(seeds)+i)
			}
			runSchemaBatch(t, seeds, *schemaFuzzArgs, false)
			batches++
			tools += len(seeds)
		}
		t.Logf("%d batches, %d random schemas, %d arguments each", batches, tools, *schemaFuzzArgs)
	default:
		var seeds []uint64
		for i := range uint64(fixedSeeds) {
			seeds = append(seeds, 1+i)
		}
		runSchemaBatch(t, seeds, *schemaFuzzArgs, true)
	}
}

// runSchemaBatch compiles the tools of seeds, and with regressions those
// of schemaRegressions, into one package and compares their validators on
// n arguments each.
func runSchemaBatch(t *testing.T, seeds []uint64, n int, regressions bool) {
	t.Helper()
	var tools []*rtool
	refused := 0
	var all []*rtool
	if regressions {
		for i, r := range schemaRegressions {
			all = append(all, &rtool{name: fmt.Sprintf("regression%d", i+1), seed: r.seed, policy: r.policy, raw: r.args, rawArgs: r.calls, onePass: r.onePass})
		}
	}
	for _, seed := range seeds {
		all = append(all, newRandTool(seed))
	}
	for _, rt := range all {
		seed := rt.seed
		cat, err := loadRandCatalog([]*rtool{rt})
		if err != nil {
			t.Errorf("seed %d: the random schema does not load: %v\nschema: %s", seed, err, rt.JSON())
			continue
		}
		files, err := gen.Generate(cat)
		if err != nil && rt.raw != "" {
			t.Errorf("%s: Generate: %v", rt.name, err)
			continue
		} else if err != nil {
			// Only a value its own schema rejects, or a default the Go
			// types cannot hold, may stop the generator.
			if !valueError.MatchString(err.Error()) {
				t.Errorf("seed %d: Generate: %v\nschema: %s", seed, err, rt.JSON())
			}
			refused++
			t.Logf("seed %d refused: %.300s", seed, err)
			continue
		}
		if rt.onePass && !onePassIn(files) {
			t.Errorf("%s: the generated validator is not a one-pass one:\n%s", rt.name, rt.JSON())
		}
		tools = append(tools, rt)
	}
	if len(tools) == 0 {
		return
	}
	cat, err := loadRandCatalog(tools)
	if err != nil {
		t.Fatal(err)
	}
	files, err := gen.Generate(cat, gen.WithValidators(gen.ValidatorsCode))
	if err != nil {
		t.Fatalf("Generate of the batch: %v", err)
	}
	// The same tools in data mode, in package data of the module: its
	// test compares them with the general validator and with the code
	// mode's, which the module's package exports.
	dataFiles, err := gen.Generate(cat, gen.WithValidators(gen.ValidatorsData))
	if err != nil {
		t.Fatalf("Generate of the batch in data mode: %v", err)
	}
	mod := t.TempDir()
	if err := writeBatchModule(mod, files, dataFiles); err != nil {
		t.Fatal(err)
	}
	type batchCase struct {
		Tool string
		Args []string
	}
	var cases []batchCase
	byName := map[string]*rtool{}
	for _, rt := range tools {
		cases = append(cases, batchCase{rt.name, rt.args(n)})
		byName[rt.name] = rt
	}
	data, _ := json.Marshal(cases)
	casesFile := filepath.Join(mod, "cases.json")
	os.WriteFile(casesFile, data, 0o644)
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestPairs$", ".", "./data")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "TOOLCAT_CASES="+casesFile)
	out, runErr := cmd.CombinedOutput()
	for _, pkg := range []struct{ dir, mode string }{{"", "code"}, {"data", "data"}} {
		var findings []struct{ Tool, Msg string }
		if data, err := os.ReadFile(filepath.Join(mod, pkg.dir, "report.json")); err == nil {
			json.Unmarshal(data, &findings)
		} else if runErr != nil {
			t.Fatalf("the generated packages of seeds %v do not build or their test fails: %v\n%s", seeds, runErr, out)
		}
		for _, f := range findings {
			rt := byName[f.Tool]
			if rt.raw != "" {
				t.Errorf("%s mode, %s (schemaRegressions): %s\nschema: %s\npolicy: %q", pkg.mode, rt.name, f.Msg, rt.JSON(), rt.policy)
				continue
			}
			t.Errorf("%s mode, %s, seed %d (reproduce with -run TestDifferentialSchemas -args -schemafuzz.seed=%d): %s\nschema: %s\npolicy: %q", pkg.mode, rt.name, rt.seed, rt.seed, f.Msg, rt.JSON(), rt.policy)
		}
	}
	inData, stillCode := 0, 0
	for _, data := range dataFiles {
		if dataPassArgs.Match(data) {
			inData++
		}
		if onePassArgs.Match(data) {
			stillCode++
		}
	}
	if inData == 0 {
		t.Error("no tool of the batch has a data-mode validator: data mode is not compared")
	}
	t.Logf("%d random schemas compared (in data mode, %d with a descriptor, %d with code), %d refused by Generate for their values, %d arguments each", len(tools), inData, stillCode, refused, n)
}

// onePassIn reports whether the generated files hold a one-pass
// validator.
func onePassIn(files map[string][]byte) bool {
	for _, data := range files {
		if onePassArgs.Match(data) {
			return true
		}
	}
	return false
}

func loadRandCatalog(tools []*rtool) (*catalog.Catalog, error) {
	return catalog.LoadFiles(catalog.File{Name: "random.json", Data: []byte(catalogJSON("schemafuzz", tools))})
}

// writeBatchModule writes the generated files, less their conformance
// test, into a module that requires this one, with the test that compares
// the validators; dataFiles, the same tools in data mode, go into its
// package data, whose test also compares them with code mode's.
func writeBatchModule(dir string, files, dataFiles map[string][]byte) error {
	// A module path inside this module's gen/internal, so that the test can
	// import package difftest.
	if err := gomodtest.Write(dir, batchModule); err != nil {
		return err
	}
	entries, names, err := writeBatchPackage(dir, files)
	if err != nil {
		return err
	}
	src := strings.Replace(pairsTest, "ENTRIES", strings.Join(entries, "\n\t"), 1)
	src = strings.Replace(src, "CODE_IMPORT", "", 1)
	src = strings.Replace(src, "CODE_VALIDATORS", "nil", 1)
	if err := os.WriteFile(filepath.Join(dir, "pairs_test.go"), []byte(src), 0o644); err != nil {
		return err
	}
	exported := strings.Replace(validatorsFile, "NAMES", strings.Join(names, "\n\t\t"), 1)
	if err := os.WriteFile(filepath.Join(dir, "validators.go"), []byte(exported), 0o644); err != nil {
		return err
	}
	dataDir := filepath.Join(dir, "data")
	if err := os.Mkdir(dataDir, 0o755); err != nil {
		return err
	}
	entries, _, err = writeBatchPackage(dataDir, dataFiles)
	if err != nil {
		return err
	}
	src = strings.Replace(pairsTest, "ENTRIES", strings.Join(entries, "\n\t"), 1)
	src = strings.Replace(src, "CODE_IMPORT", "code "+strconv.Quote(batchModule), 1)
	src = strings.Replace(src, "CODE_VALIDATORS", "code.Validators()", 1)
	return os.WriteFile(filepath.Join(dataDir, "pairs_test.go"), []byte(src), 0o644)
}

const batchModule = "github.com/toolcat/toolcat/gen/internal/validatortest/schemafuzz"

// writeBatchPackage writes the generated files of a batch into dir and
// returns the entries of its pairs test and of its Validators map.
func writeBatchPackage(dir string, files map[string][]byte) (entries, names []string, err error) {
	for name, data := range files {
		if name == gen.ConformanceFile {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return nil, nil, err
		}
		lower := metaFunc.FindSubmatch(data)
		if lower == nil {
			continue
		}
		args := onePassArgs.FindSubmatch(data)
		dataMode := false
		if args == nil {
			args = dataPassArgs.FindSubmatch(data)
			dataMode = args != nil
		}
		if args == nil {
			args = typedArgs.FindSubmatch(data)
		}
		if args == nil {
			return nil, nil, fmt.Errorf("%s: no validator of a known shape", name)
		}
		entries = append(entries, fmt.Sprintf("{%sMeta(), %sValidator, runtime.Typed[%s], %v},", lower[1], lower[1], args[1], dataMode))
		names = append(names, fmt.Sprintf("%sMeta().Name: %sValidator,", lower[1], lower[1]))
	}
	slices.Sort(entries)
	slices.Sort(names)
	return entries, names, nil
}

// validatorsFile exports the code-mode validators of a batch to its
// data-mode package.
const validatorsFile = `package schemafuzz

import "github.com/toolcat/toolcat/runtime"

// Validators returns the validator constructors of the batch, by tool name.
func Validators() map[string]func(*runtime.Meta) (runtime.Validator, error) {
	return map[string]func(*runtime.Meta) (runtime.Validator, error){
		NAMES
	}
}
`

// valueError matches the errors of values that contradict their schema or
// their Go type, the only ones Generate may stop at.
var valueError = regexp.MustCompile(`is not valid against its schema|cannot be applied|cannot be held by the argument's Go type`)

var (
	metaFunc    = regexp.MustCompile(`func (\w+)Meta\(\) runtime\.Meta`)
	onePassArgs = regexp.MustCompile(`runtime\.OnePass\(&\w+, scan(\w+)\)`)
	// dataPassArgs matches a data-mode validator.
	dataPassArgs = regexp.MustCompile(`runtime\.DataPassFor\(\(\*(\w+)\)\(nil\)`)
	typedArgs    = regexp.MustCompile(`runtime\.Typed\[(\w+)\]`)
)

// pairsTest is the test of a batch's package.
const pairsTest = `package schemafuzz

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/toolcat/toolcat/gen/internal/validatortest/difftest"
	"github.com/toolcat/toolcat/runtime"
	CODE_IMPORT
)

type entry struct {
	meta      runtime.Meta
	generated func(*runtime.Meta) (runtime.Validator, error)
	typed     func(*runtime.SchemaValidator) runtime.Validator
	// data marks a data-mode validator, compared with code mode's too.
	data bool
}

var entries = []entry{
	ENTRIES
}

type finding struct{ Tool, Msg string }

func TestPairs(t *testing.T) {
	data, err := os.ReadFile(os.Getenv("TOOLCAT_CASES"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Tool string
		Args []string
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	byName := map[string]entry{}
	for _, e := range entries {
		byName[e.meta.Name] = e
	}
	// The code-mode validators to compare with exactly, in data mode.
	var codeMode map[string]func(*runtime.Meta) (runtime.Validator, error) = CODE_VALIDATORS
	findings := []finding{}
	for _, c := range cases {
		e, ok := byName[c.Tool]
		if !ok {
			findings = append(findings, finding{c.Tool, "no validators generated"})
			continue
		}
		p, err := difftest.NewPair(e.meta, e.generated, e.typed)
		if err != nil {
			findings = append(findings, finding{c.Tool, "building the validators: " + err.Error()})
			continue
		}
		var codeV runtime.Validator
		if codeMode != nil && e.data {
			if codeV, err = codeMode[c.Tool](&e.meta); err != nil {
				findings = append(findings, finding{c.Tool, "building the code-mode validator: " + err.Error()})
				continue
			}
		}
		props := difftest.PropertyNames([]runtime.Meta{e.meta})
		for _, a := range c.Args {
			if msg := compare(p, codeV, a, props); msg != "" {
				findings = append(findings, finding{c.Tool, msg})
				break // the first divergence of a tool says enough
			}
		}
	}
	out, _ := json.Marshal(findings)
	if err := os.WriteFile("report.json", out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func compare(p difftest.Pair, code runtime.Validator, args string, props []string) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("%s %s: panic: %v", p.Name, args, r)
		}
	}()
	if msg := difftest.Compare(p, []byte(args), props); msg != "" || code == nil {
		return msg
	}
	return difftest.CompareModes(p.Name, p.Generated, code, []byte(args))
}
`
