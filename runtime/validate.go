package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	neturl "net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/toolcat/toolcat/internal/jsonptr"
	"github.com/toolcat/toolcat/runtime/jsonscan"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Validator checks a call's raw arguments, applies the schema's defaults
// and returns the decoded arguments the tool's functions receive.
//
// It is the plug point between the general validator (SchemaValidator,
// built on santhosh-tekuri/jsonschema) and the specialised one-pass
// validators toolcat generates per tool, which decode straight into the
// tool's Args struct (see package jsonscan) and build their errors with the
// Arg* helpers, so both kinds word errors alike. A specialised validator may
// delegate keywords it does not compile to a SchemaValidator.
//
// Validate must be safe for concurrent use, must not keep raw, and must
// return a nil *ToolError exactly when it returns arguments. The
// additional_args policy is the validator's to apply.
type Validator interface {
	Validate(raw []byte) (args any, err *ToolError)
}

// ValidatorFunc adapts a function to Validator.
type ValidatorFunc func(raw []byte) (any, *ToolError)

// Validate calls f.
func (f ValidatorFunc) Validate(raw []byte) (any, *ToolError) { return f(raw) }

// SchemaValidator is the general Validator: it validates with the tool's
// JSON Schema, compiled once, and returns the arguments as decoded by
// encoding/json (map[string]any for an object), defaults applied.
type SchemaValidator struct {
	name     string
	schema   *jsonschema.Schema
	doc      any // the schema, decoded, to look up sibling keywords
	policy   AdditionalArgs
	props    []string // top-level property names, sorted
	open     bool     // the schema's root has no "properties" to check names against
	defaults *defaultsNode
}

var printer = message.NewPrinter(language.English)

// compileSchema compiles the schema raw (draft 2020-12, formats asserted)
// of tool's part ("args" or "result"), and returns it with its document.
func compileSchema(tool, part string, raw json.RawMessage) (*jsonschema.Schema, any, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, fmt.Errorf("tool %s: %s schema: %w", tool, part, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	url := "mem://toolcat/" + tool + "/" + part + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, nil, fmt.Errorf("tool %s: %s schema: %w", tool, part, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, nil, fmt.Errorf("tool %s: %s schema: %w", tool, part, err)
	}
	return sch, doc, nil
}

// NewSchemaValidator compiles m.ArgsSchema (draft 2020-12, formats asserted).
// An empty schema accepts any object.
func NewSchemaValidator(m *Meta) (*SchemaValidator, error) {
	raw := m.ArgsSchema
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	sch, doc, err := compileSchema(m.Name, "args", raw)
	if err != nil {
		return nil, err
	}
	v := &SchemaValidator{name: m.Name, schema: sch, doc: doc, policy: m.AdditionalArgs}
	if v.policy == "" {
		v.policy = AdditionalArgsReject
	}
	root, _ := doc.(map[string]any)
	props, ok := root["properties"].(map[string]any)
	v.open = !ok
	for p := range props {
		v.props = append(v.props, p)
	}
	slices.Sort(v.props)
	v.defaults = buildDefaults(root)
	return v, nil
}

// ArgNames returns the names of the top-level arguments, sorted.
func (v *SchemaValidator) ArgNames() []string { return v.props }

// Validate implements Validator. Numbers are checked as written; the
// arguments returned hold them as float64, as encoding/json decodes them,
// and a number beyond float64's range is refused (ArgNotFit).
func (v *SchemaValidator) Validate(raw []byte) (any, *ToolError) {
	doc, te := v.validateExact(raw)
	if te != nil {
		return nil, te
	}
	if first, n := numbersToFloat(&doc, nil); first != nil {
		return nil, misfitError(*first, n)
	}
	return doc, nil
}

// validateExact validates raw and returns the arguments with their numbers
// as json.Number, exactly as written, defaults applied.
func (v *SchemaValidator) validateExact(raw []byte) (any, *ToolError) {
	doc, te := decodeArgs(NormalizeArgs(raw))
	if te != nil {
		return nil, te
	}
	if te := v.ValidateValue(&doc); te != nil {
		return nil, te
	}
	return doc, nil
}

// decodeArgs decodes raw arguments with decodeExact, reporting invalid
// JSON, then the first number beyond jsonscan's limits.
func decodeArgs(raw []byte) (any, *ToolError) {
	doc, err := decodeExact(raw)
	if err != nil {
		var le *jsonscan.LimitError
		if errors.As(err, &le) {
			if te := checkNumberLimits(raw); te != nil {
				return nil, te
			}
		}
		return nil, ArgSyntax(err)
	}
	return doc, nil
}

// decodeExact decodes raw as encoding/json does, and with its errors, but
// with numbers as json.Number; a number beyond jsonscan's limits is a
// *jsonscan.LimitError.
func decodeExact(raw []byte) (any, error) {
	if !json.Valid(raw) {
		var v json.RawMessage
		return nil, json.Unmarshal(raw, &v) // worded as encoding/json words it
	}
	var d jsonscan.Decoder
	d.Reset(raw)
	return decodeValue(&d)
}

// decodeValue decodes the next value of d, valid JSON, as encoding/json
// decodes it into an any with UseNumber: a later member of an object
// given twice wins, invalid UTF-8 becomes U+FFFD.
func decodeValue(d *jsonscan.Decoder) (any, error) {
	switch d.Peek() {
	case jsonscan.Object:
		if err := d.BeginObject(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for {
			k, ok, err := d.NextKey()
			if err != nil || !ok {
				return m, err
			}
			key := string(k)
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			m[key] = v
		}
	case jsonscan.Array:
		if err := d.BeginArray(); err != nil {
			return nil, err
		}
		a := []any{}
		for {
			ok, err := d.NextElem()
			if err != nil || !ok {
				return a, err
			}
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
	case jsonscan.String:
		return d.String()
	case jsonscan.Number:
		num, err := d.Number()
		if err != nil {
			return nil, err // beyond jsonscan's limits
		}
		return json.Number(num), nil
	case jsonscan.Bool:
		return d.Bool()
	case jsonscan.Null:
		return nil, d.Null()
	}
	return nil, d.Skip()
}

// ValidateValue validates a value decoded by encoding/json, with numbers
// as float64 or, to check them exactly, as json.Number, and applies the
// additional_args policy and the defaults to it in place. Defaults hold
// their numbers as json.Number.
func (v *SchemaValidator) ValidateValue(doc *any) *ToolError {
	obj, isObj := (*doc).(map[string]any)
	if isObj && !v.open && v.policy != AdditionalArgsAllow {
		var unknown []string
		for k := range obj {
			if _, ok := slices.BinarySearch(v.props, k); !ok {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			if v.policy == AdditionalArgsStrip {
				for _, k := range unknown {
					delete(obj, k)
				}
			} else {
				slices.Sort(unknown)
				return ArgUnknown("", unknown[0], v.props)
			}
		}
	}
	if err := v.schema.Validate(*doc); err != nil {
		ve, ok := err.(*jsonschema.ValidationError)
		if !ok {
			return InvalidArgs(clip(err.Error(), maxEchoText))
		}
		return v.convert(ve, *doc)
	}
	if isObj {
		v.defaults.apply(obj)
	}
	return nil
}

// NormalizeArgs returns raw, or {} when raw is empty, white space or null:
// models send all of these for a call without arguments. Validators call it
// first.
func NormalizeArgs(raw []byte) []byte {
	if len(raw) > 0 && raw[0] == '{' {
		return raw
	}
	return normalizeArgs(raw)
}

func normalizeArgs(raw []byte) []byte {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return []byte("{}")
	}
	return raw
}

// Typed returns a Validator that validates with v and decodes the
// arguments, defaults applied, into a new T, returning *T. It re-encodes
// the arguments once; generated one-pass validators avoid that. A field
// of T is filled from the member its json tag names exactly, never from
// one that differs in case (see exactMembers), and numbers go from the
// arguments to T's fields without passing through a float64 unless the
// field is one: an integer written 9007199254740993.0 or 1e3 decodes
// exactly into an int64, and a number T cannot hold is refused with
// ArgNotFit, as generated validators refuse it.
func Typed[T any](v *SchemaValidator) Validator {
	t := reflect.TypeFor[T]()
	return ValidatorFunc(func(raw []byte) (any, *ToolError) {
		doc, te := v.validateExact(raw)
		if te != nil {
			return nil, te
		}
		exactMembers(doc, t)
		if misfits := fitNumbers(&doc, t, nil, nil); len(misfits) > 0 {
			return nil, misfitsError(misfits)
		}
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, Internal("re-encoding arguments: " + clip(err.Error(), maxEchoText))
		}
		out := new(T)
		if err := json.Unmarshal(b, out); err != nil {
			return nil, InvalidArgs("arguments do not fit the tool's types: " + clip(err.Error(), maxEchoText))
		}
		return out, nil
	})
}

// leaves collects the innermost errors.
func leaves(ve *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return append(out, ve)
	}
	for _, c := range ve.Causes {
		out = leaves(c, out)
	}
	return out
}

func (v *SchemaValidator) convert(ve *jsonschema.ValidationError, doc any) *ToolError {
	ls := leaves(ve, nil)
	// Prefer errors the model can act on directly.
	best := ls[0]
	for _, l := range ls {
		if rank(l.ErrorKind) < rank(best.ErrorKind) {
			best = l
		}
	}
	ptr := jsonptr.Join(best.InstanceLocation...)
	got, _ := lookup(doc, best.InstanceLocation)
	sub := v.subschema(best.SchemaURL)
	var te *ToolError
	switch k := best.ErrorKind.(type) {
	case *kind.Type:
		te = ArgTypeError(ptr, strings.Join(k.Want, " or "), jsonType(got))
		if v, ok := clipReceived(got); ok {
			te.Details["received"] = detailValue(v)
		}
	case *kind.Enum:
		te = ArgNotInEnum(ptr, messageValue(got), k.Want)
	case *kind.Const:
		te = ArgNotInEnum(ptr, messageValue(got), []any{k.Want})
	case *kind.Minimum, *kind.Maximum, *kind.ExclusiveMinimum, *kind.ExclusiveMaximum:
		b := boundsOf(sub)
		switch n := got.(type) {
		case json.Number:
			f, _ := strconv.ParseFloat(string(n), 64) // ±Inf beyond float64
			te = ArgNumberOutOfRange(ptr, string(n), f, b)
		default:
			f, _ := toFloat(got)
			te = ArgOutOfRange(ptr, f, b)
		}
	case *kind.MultipleOf:
		shown := ratString(k.Got)
		if n, ok := got.(json.Number); ok {
			shown = quoteValue(numberValue(string(n)))
		}
		te = argNotMultiple(ptr, shown, messageValue(got), &Multiple{r: k.Want, float: ratFloat(k.Want)})
	case *kind.MinLength, *kind.MaxLength:
		s, _ := got.(string)
		mn, mx := intKw(sub, "minLength", -1), intKw(sub, "maxLength", -1)
		te = ArgLength(ptr, s, mn, mx)
	case *kind.Pattern:
		te = ArgPattern(ptr, k.Got, k.Want)
	case *kind.Format:
		s, _ := got.(string)
		te = ArgFormat(ptr, s, k.Want)
	case *kind.Required:
		te = ArgMissing(ptr, k.Missing[0], propNames(sub))
	case *kind.AdditionalProperties:
		props := slices.Clone(k.Properties)
		slices.Sort(props)
		te = ArgUnknown(ptr, props[0], propNames(sub))
	case *kind.MinItems, *kind.MaxItems:
		arr, _ := got.([]any)
		te = ArgItems(ptr, len(arr), intKw(sub, "minItems", -1), intKw(sub, "maxItems", -1))
	case *kind.FalseSchema:
		name := display(ptr)
		te = argError(ptr, name+" is not allowed", "Remove "+name+".", got, nil)
	default:
		msg := best.ErrorKind.LocalizedString(printer)
		te = argError(ptr, display(ptr)+": "+clip(msg, maxEchoText), "", got, nil)
	}
	if len(ls) > 1 {
		te.Details["other_errors"] = len(ls) - 1
	}
	return te
}

// rank orders error kinds by how directly a model can fix them.
func rank(k jsonschema.ErrorKind) int {
	switch k.(type) {
	case *kind.AdditionalProperties, *kind.Required:
		return 0
	case *kind.Type:
		return 1
	case *kind.Enum, *kind.Const, *kind.Minimum, *kind.Maximum, *kind.ExclusiveMinimum,
		*kind.ExclusiveMaximum, *kind.MinLength, *kind.MaxLength, *kind.Pattern, *kind.Format:
		return 2
	case *kind.FalseSchema, *kind.Group, *kind.AllOf, *kind.AnyOf, *kind.OneOf, *kind.Not:
		return 4
	}
	return 3
}

// subschema resolves the fragment of an absolute schema location in the
// decoded schema.
func (v *SchemaValidator) subschema(url string) map[string]any {
	_, frag, _ := strings.Cut(url, "#")
	cur := v.doc
	if frag == "" {
		return asObject(cur)
	}
	// The fragment is a JSON pointer in a URI: each token percent-encoded
	// (a property named "a,b" or "with space"), and may be empty (a
	// property named "").
	for tok := range strings.SplitSeq(strings.TrimPrefix(frag, "/"), "/") {
		if unescaped, err := neturl.PathUnescape(tok); err == nil {
			tok = unescaped
		}
		var ok bool
		if cur, ok = jsonptr.Step(cur, jsonptr.UnescapeToken(tok)); !ok {
			return nil
		}
	}
	return asObject(cur)
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func propNames(sub map[string]any) []string {
	props, _ := sub["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for p := range props {
		names = append(names, p)
	}
	slices.Sort(names)
	return names
}

func intKw(sub map[string]any, kw string, def int) int {
	if f, ok := toFloat(sub[kw]); ok {
		return int(f)
	}
	return def
}

func boundsOf(sub map[string]any) Bounds {
	var b Bounds
	if f, ok := toFloat(sub["minimum"]); ok {
		b.Min, b.HasMin, b.minNum = f, true, numText(sub["minimum"])
	}
	if f, ok := toFloat(sub["exclusiveMinimum"]); ok && (!b.HasMin || cmpBound(sub["exclusiveMinimum"], sub["minimum"]) >= 0) {
		b.Min, b.HasMin, b.ExclusiveMin, b.minNum = f, true, true, numText(sub["exclusiveMinimum"])
	}
	if f, ok := toFloat(sub["maximum"]); ok {
		b.Max, b.HasMax, b.maxNum = f, true, numText(sub["maximum"])
	}
	if f, ok := toFloat(sub["exclusiveMaximum"]); ok && (!b.HasMax || cmpBound(sub["exclusiveMaximum"], sub["maximum"]) <= 0) {
		b.Max, b.HasMax, b.ExclusiveMax, b.maxNum = f, true, true, numText(sub["exclusiveMaximum"])
	}
	return b
}

// numText is the text of a schema's number as written, or "".
func numText(v any) string {
	n, _ := v.(json.Number)
	return string(n)
}

// cmpBound compares two of a schema's numbers exactly.
func cmpBound(a, b any) int {
	x, ok1 := new(big.Rat).SetString(fmt.Sprint(a))
	y, ok2 := new(big.Rat).SetString(fmt.Sprint(b))
	if !ok1 || !ok2 {
		fa, _ := toFloat(a)
		fb, _ := toFloat(b)
		return cmpFloat(fa, fb)
	}
	return x.Cmp(y)
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func ratFloat(r *big.Rat) float64 {
	if r == nil {
		return 0
	}
	f, _ := r.Float64()
	return f
}

func lookup(doc any, loc []string) (any, bool) {
	cur := doc
	for _, tok := range loc {
		var ok bool
		if cur, ok = jsonptr.Step(cur, tok); !ok {
			return nil, false
		}
	}
	return cur, true
}

// jsonType names the JSON type of a value decoded by encoding/json.
func jsonType(v any) string {
	switch n := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if n == float64(int64(n)) {
			return "integer"
		}
		return "number"
	case json.Number:
		var re *jsonscan.RangeError
		if _, err := jsonscan.ParseInt64([]byte(n)); err == nil || errors.As(err, &re) && re.Msg == "out of range" {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case elided:
		return string(n)
	}
	return fmt.Sprintf("%T", v)
}

// defaultsNode holds the defaults of an object schema's properties.
type defaultsNode struct {
	props map[string]defaultEntry
}

type defaultEntry struct {
	value    any
	hasValue bool
	child    *defaultsNode
}

func buildDefaults(schema map[string]any) *defaultsNode {
	props, _ := schema["properties"].(map[string]any)
	var n *defaultsNode
	for name, p := range props {
		ps, ok := p.(map[string]any)
		if !ok {
			continue
		}
		var e defaultEntry
		e.value, e.hasValue = ps["default"]
		e.child = buildDefaults(ps)
		if !e.hasValue && e.child == nil {
			continue
		}
		if n == nil {
			n = &defaultsNode{props: map[string]defaultEntry{}}
		}
		n.props[name] = e
	}
	return n
}

func (n *defaultsNode) apply(obj map[string]any) {
	if n == nil {
		return
	}
	for name, e := range n.props {
		cur, ok := obj[name]
		if !ok {
			if e.hasValue {
				obj[name] = deepCopy(e.value)
			}
			continue
		}
		if child, isObj := cur.(map[string]any); isObj && e.child != nil {
			e.child.apply(child)
		}
	}
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}
