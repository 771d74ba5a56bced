package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolcat/toolcat/internal/jsonptr"
	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// This file holds what every generated one-pass validator would otherwise
// repeat. A generated validator decodes the raw arguments with a
// jsonscan.Decoder straight into the tool's Args struct and checks the
// schema as it goes; the helpers below keep its errors and its verdicts the
// same as SchemaValidator's (wrapped by Typed) on the same input.

// Path is the location of a value being validated: the JSON pointer is
// built only when an error needs it. The nil *Path is the arguments object.
//
// For generated code.
type Path struct {
	up  *Path
	key string
	idx int // -1 for a key
}

// Key returns the path of the member key of the object at p.
func (p *Path) Key(key string) Path { return Path{up: p, key: key, idx: -1} }

// Index returns the path of element i of the array at p.
func (p *Path) Index(i int) Path { return Path{up: p, idx: i} }

// String returns the JSON pointer of p: "" for the arguments object.
func (p *Path) String() string {
	if p == nil {
		return ""
	}
	return p.up.String() + "/" + p.token()
}

// Field returns the JSON pointer of the member key of the object at p.
func (p *Path) Field(key string) string { return jsonptr.Append(p.String(), key) }

// Elem returns the JSON pointer of element i of the array at p.
func (p *Path) Elem(i int) string { return p.String() + "/" + strconv.Itoa(i) }

func (p *Path) token() string {
	if p.idx >= 0 {
		return strconv.Itoa(p.idx)
	}
	return jsonptr.EscapeToken(p.key)
}

// OverflowNumber returns the number of a jsonscan.RangeError, which ArgInt
// found to be an integer beyond int64, as messages show it.
//
// For generated code.
func OverflowNumber(err error) any {
	var re *jsonscan.RangeError
	if !errors.As(err, &re) {
		return 0
	}
	return numberValue(re.Number)
}

// Late records te in *late unless an error is there already. Generated
// validators report such errors, of values that the schema allows but the
// Go type cannot hold, only after the whole schema has been checked.
//
// For generated code.
func Late(late **ToolError, te *ToolError) {
	if *late == nil {
		*late = te
	}
}

// Float32 converts f as encoding/json would decode its shortest form into
// a float32; ok is false when it does not fit.
//
// For generated code.
func Float32(f float64) (v float32, ok bool) {
	g, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 64), 32)
	if err != nil {
		return 0, false
	}
	return float32(g), true
}

// Multiple is a schema's multipleOf, checked as SchemaValidator checks it:
// on the value's shortest decimal form, exactly.
//
// For generated code.
type Multiple struct {
	r     *big.Rat
	n     int64 // r as an int64 when it is one, else 0
	float float64
}

// NewMultiple parses the multipleOf of a schema, as written.
//
// For generated code.
func NewMultiple(s string) *Multiple {
	m, err := parseMultiple(s)
	if err != nil {
		panic("runtime: " + err.Error())
	}
	return m
}

// parseMultiple parses a multipleOf as written.
func parseMultiple(s string) (*Multiple, error) {
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Sign() <= 0 {
		return nil, errors.New("invalid multipleOf " + strconv.Quote(s))
	}
	m := &Multiple{r: r}
	m.float, _ = r.Float64()
	if r.IsInt() && r.Num().IsInt64() {
		m.n = r.Num().Int64()
	}
	return m, nil
}

// Int reports whether n is a multiple of m, exactly.
func (m *Multiple) Int(n int64) bool {
	if m.n != 0 {
		return n%m.n == 0
	}
	r := new(big.Rat).SetInt64(n)
	return r.Quo(r, m.r).IsInt()
}

// Float reports whether f is a multiple of m.
func (m *Multiple) Float(f float64) bool {
	r, ok := new(big.Rat).SetString(fmt.Sprintf("%v", f))
	if !ok {
		return false
	}
	return r.Quo(r, m.r).IsInt()
}

// Duplicate returns the first pair of equal elements of s, j < i, in the
// order JSON Schema's uniqueItems reports them.
//
// For generated code.
func Duplicate[T comparable](s []T) (j, i int, ok bool) {
	if len(s) <= 20 {
		for i := 1; i < len(s); i++ {
			for j := 0; j < i; j++ {
				if s[i] == s[j] {
					return j, i, true
				}
			}
		}
		return -1, -1, false
	}
	first := make(map[T]int, len(s))
	for i, v := range s {
		if j, dup := first[v]; dup {
			return j, i, true
		}
		first[v] = i
	}
	return -1, -1, false
}

var formatCheckers sync.Map // format name → func(string) bool

// FormatChecker returns the check of a string format as SchemaValidator
// asserts it ("email", "uri", "date-time"...); formats it does not know
// accept any string.
//
// For generated code.
func FormatChecker(format string) func(string) bool {
	if f, ok := formatCheckers.Load(format); ok {
		return f.(func(string) bool)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	url := "mem://toolcat/format/" + format + ".json"
	sch, err := func() (*jsonschema.Schema, error) {
		if err := c.AddResource(url, map[string]any{"format": format}); err != nil {
			return nil, err
		}
		return c.Compile(url)
	}()
	check := func(string) bool { return true }
	if err == nil {
		check = func(s string) bool { return sch.Validate(s) == nil }
	}
	f, _ := formatCheckers.LoadOrStore(format, check)
	return f.(func(string) bool)
}

// refineArgsError turns te, the first error a generated validator found in
// raw, into the error SchemaValidator gives for the same input, which checks
// the whole input first: invalid JSON is reported before anything else, then
// (when rejectUnknown) the first undeclared top-level argument in
// alphabetical order of the sorted names. When an object of raw holds a key
// twice, only the last counts, as in encoding/json: raw is then rewritten
// without repeated keys and scanned again with scan, the validator's
// one-pass scan, whose verdict is final.
func refineArgsError(raw []byte, te *ToolError, names []string, rejectUnknown bool, scan func([]byte) (any, *ToolError)) (any, *ToolError) {
	raw = NormalizeArgs(raw)
	doc, dte := decodeArgs(raw)
	if dte != nil {
		return nil, dte
	}
	obj, isObj := doc.(map[string]any)
	if isObj && rejectUnknown {
		var unknown []string
		for k := range obj {
			if _, ok := slices.BinarySearch(names, k); !ok {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			return nil, ArgUnknown("", unknown[0], names)
		}
	}
	if scan != nil && hasRepeatedKeys(raw) {
		canon, err := json.Marshal(doc)
		if err == nil {
			return scan(canon)
		}
	}
	return nil, te
}

// hasRepeatedKeys reports whether an object of raw, valid JSON, holds a
// key twice.
func hasRepeatedKeys(raw []byte) bool {
	var d jsonscan.Decoder
	d.Reset(raw)
	return repeated(&d) == errRepeated
}

var errRepeated = errors.New("repeated key")

func repeated(d *jsonscan.Decoder) error {
	switch d.Peek() {
	case jsonscan.Object:
		if err := d.BeginObject(); err != nil {
			return err
		}
		var keys map[string]bool
		for {
			k, ok, err := d.NextKey()
			if err != nil || !ok {
				return err
			}
			if keys == nil {
				keys = map[string]bool{}
			}
			if keys[string(k)] {
				return errRepeated
			}
			keys[strings.Clone(string(k))] = true
			if err := repeated(d); err != nil {
				return err
			}
		}
	case jsonscan.Array:
		if err := d.BeginArray(); err != nil {
			return err
		}
		for {
			ok, err := d.NextElem()
			if err != nil || !ok {
				return err
			}
			if err := repeated(d); err != nil {
				return err
			}
		}
	}
	return d.Skip()
}
