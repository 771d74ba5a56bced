package runtime

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// Numbers are checked as written, exactly, by both validators: the
// general one decodes the arguments with json.Number and hands them to the
// schema as such (JSON Schema compares numbers exactly), and generated
// validators read integers exactly (jsonscan.ParseInt64) and compare them
// with their bounds exactly. A number reaches a float64 only when the Go
// type of its destination is one; an integer is an integer whatever way
// JSON writes it (3, 3.0, 3e0, 0.3e1), and decodes into an int64 exactly.
// A number the schema allows but the destination's Go type cannot hold is
// refused once the whole schema holds (ArgNotFit), saying what the type
// holds. Numbers longer than jsonscan.MaxNumberLen, or with an exponent
// beyond jsonscan.MaxExponent, are refused before anything else
// (ArgNumberLimit), so that no exact comparison costs more than a bounded
// amount of work.

// numberValue is the Go value that messages and details show for the
// number num as written: an int64 when it is an integer that fits one, a
// float64 when the float64's shortest form is the same number (0.10 shows
// as 0.1, 1e19 as 1e+19), else the number itself as written, shortened, so
// that no message shows a rounded number (9223372036854775809,
// 0.30000000000000000001, 1e400).
func numberValue(num string) any {
	if n, err := jsonscan.ParseInt64([]byte(num)); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(num, 64); err == nil {
		x, ok1 := new(big.Rat).SetString(num)
		y, ok2 := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
		if ok1 && ok2 && x.Cmp(y) == 0 {
			return f
		}
	}
	return json.Number(jsonscan.ShortNumber([]byte(num)))
}

// detailValue is v, a value decoded with json.Number, as details show it: a
// number as numberValue shows it, but one beyond float64's range as a
// string, so that a host decoding the envelope into float64 can.
func detailValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		n := numberValue(string(x))
		if s, ok := n.(json.Number); ok {
			if _, err := strconv.ParseFloat(string(s), 64); err != nil {
				return string(s)
			}
		}
		return n
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = detailValue(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = detailValue(e)
		}
		return a
	}
	return v
}

// goRanges names what each Go type of an argument holds, for ArgNotFit.
var goRanges = map[string]string{
	"int64":   "integers from -9223372036854775808 to 9223372036854775807",
	"int32":   "integers from -2147483648 to 2147483647",
	"float64": "numbers of magnitude up to about 1.8e308",
	"float32": "numbers of magnitude up to about 3.4e38",
}

// checkNumberLimits returns ArgNumberLimit for the first number of raw,
// valid JSON, in the order written, that is beyond what validators read,
// or nil. Both validators report it before anything else but invalid
// JSON.
func checkNumberLimits(raw []byte) *ToolError {
	var d jsonscan.Decoder
	d.Reset(raw)
	return limitWalk(&d, nil)
}

func limitWalk(d *jsonscan.Decoder, p *Path) *ToolError {
	switch d.Peek() {
	case jsonscan.Object:
		if d.BeginObject() != nil {
			return nil
		}
		for {
			k, ok, err := d.NextKey()
			if err != nil || !ok {
				return nil
			}
			kp := p.Key(string(k))
			if te := limitWalk(d, &kp); te != nil {
				return te
			}
		}
	case jsonscan.Array:
		if d.BeginArray() != nil {
			return nil
		}
		for i := 0; ; i++ {
			ok, err := d.NextElem()
			if err != nil || !ok {
				return nil
			}
			ip := p.Index(i)
			if te := limitWalk(d, &ip); te != nil {
				return te
			}
		}
	case jsonscan.Number:
		_, err := d.Number()
		var le *jsonscan.LimitError
		if errors.As(err, &le) {
			return ArgNumberLimit(p.String(), le)
		}
		return nil
	}
	_ = d.Skip()
	return nil
}

// cmpNumber compares exactly the number num as written, whose nearest
// float64 is f (±Inf beyond float64's range), with the float64 b.
func cmpNumber(num string, f, b float64) int {
	switch {
	case f < b:
		return -1
	case f > b:
		return 1
	case math.IsInf(b, 0):
		return 0
	}
	// f rounds num to b: only the exact values tell them apart. num is
	// within jsonscan's limits, which bound this work.
	x, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0
	}
	return x.Cmp(new(big.Rat).SetFloat64(b))
}

// cmpInt compares n with the float64 b exactly.
func cmpInt(n int64, b float64) int {
	f := float64(n)
	switch {
	case f < b:
		return -1
	case f > b:
		return 1
	case b >= 1<<63:
		return -1 // f rounded n up to 2^63
	}
	// b is an integer within int64's range, f its nearest float64.
	switch m := int64(b); {
	case n < m:
		return -1
	case n > m:
		return 1
	}
	return 0
}

// outside says which bound of b a number fails, given how it compares with
// b.Min and b.Max: "" when it is within b.
func (b *Bounds) outside(cmpMin, cmpMax func() int) string {
	if b.HasMin {
		switch c := cmpMin(); {
		case c < 0:
			return "below"
		case c == 0 && b.ExclusiveMin:
			return "at min"
		}
	}
	if b.HasMax {
		switch c := cmpMax(); {
		case c > 0:
			return "above"
		case c == 0 && b.ExclusiveMax:
			return "at max"
		}
	}
	return ""
}

// inside reports whether f is strictly within b's bounds, which decides
// that any number whose nearest float64 is f is within b.
func (b *Bounds) inside(f float64) bool {
	return (!b.HasMin || f > b.Min) && (!b.HasMax || f < b.Max)
}

// CheckInt reports whether n is within b, compared exactly.
func (b *Bounds) CheckInt(n int64) bool {
	return b.outside(func() int { return cmpInt(n, b.Min) }, func() int { return cmpInt(n, b.Max) }) == ""
}

// CheckNumber reports whether the number num as written, whose nearest
// float64 is f, is within b, compared exactly.
func (b *Bounds) CheckNumber(num string, f float64) bool {
	return b.numberOutside(num, f) == ""
}

func (b *Bounds) numberOutside(num string, f float64) string {
	return b.outside(func() int { return cmpNumberTo(num, f, b.Min, b.minNum) }, func() int { return cmpNumberTo(num, f, b.Max, b.maxNum) })
}

// cmpNumberTo is cmpNumber against the bound bnum as written, whose
// nearest float64 is b, when bnum is known.
func cmpNumberTo(num string, f, b float64, bnum string) int {
	if bnum == "" || f != b {
		return cmpNumber(num, f, b) // f and b decide unless equal
	}
	x, ok1 := new(big.Rat).SetString(num)
	y, ok2 := new(big.Rat).SetString(bnum)
	if !ok1 || !ok2 {
		return 0
	}
	return x.Cmp(y)
}

// NumberMultiple reports whether the number num as written is a multiple
// of m, exactly.
func (m *Multiple) NumberMultiple(num string) bool {
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return false
	}
	return r.Quo(r, m.r).IsInt()
}

// fitMisfit is a number of the arguments that the Go type of its
// destination cannot hold.
type fitMisfit struct {
	ptr    string
	got    any
	goType string
}

// fitNumbers makes the json.Numbers of doc, decoded with json.Number and
// valid against the schema, fit for json.Unmarshal into the Go type t:
// an integer written with a fraction part or an exponent (3.0, 1e3) that
// goes to an integer field is rewritten in its digits, so that it decodes
// exactly. Members no field names exactly must have been removed (see
// exactMembers). It returns the numbers that t cannot hold (misfitsError
// reports the one of least pointer); those of a json.RawMessage or a type
// with its own UnmarshalJSON are left to it.
func fitNumbers(doc *any, t reflect.Type, p *Path, out []fitMisfit) []fitMisfit {
	if t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(unmarshalerType) {
		return fitUnmarshaler(*doc, t, p, out)
	}
	switch x := (*doc).(type) {
	case json.Number:
		return fitNumber(doc, string(x), t, p, out)
	case map[string]any:
		var elem func(k string) (reflect.Type, bool)
		switch t.Kind() {
		case reflect.Pointer:
			return fitNumbers(doc, t.Elem(), p, out)
		case reflect.Map:
			elem = func(string) (reflect.Type, bool) { return t.Elem(), true }
		case reflect.Struct:
			fields := jsonFields(t)
			elem = func(k string) (reflect.Type, bool) { ft, ok := fields[k]; return ft, ok }
		case reflect.Interface:
			elem = func(string) (reflect.Type, bool) { return t, true }
		default:
			return out
		}
		for k, v := range x {
			et, ok := elem(k)
			if !ok {
				continue
			}
			if n, isNum := v.(json.Number); isNum && plainInteger(string(n)) {
				ft := et
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if fk := ft.Kind(); fk == reflect.Int64 || fk == reflect.Int || fk == reflect.Float64 || fk == reflect.Interface {
					continue // nothing to rewrite, nothing to misfit: the common case
				}
			}
			kp := p.Key(k)
			out = fitNumbers(&v, et, &kp, out)
			x[k] = v
		}
	case []any:
		et := t
		switch t.Kind() {
		case reflect.Pointer:
			return fitNumbers(doc, t.Elem(), p, out)
		case reflect.Slice, reflect.Array:
			et = t.Elem()
		case reflect.Interface:
		default:
			return out
		}
		for i := range x {
			ip := p.Index(i)
			out = fitNumbers(&x[i], et, &ip, out)
		}
	}
	return out
}

// misfitErr is the error of UnmarshalExact, and of the UnmarshalJSON
// methods toolcat generates, for numbers the Go type cannot hold: ptr is
// relative to the value decoded.
type misfitErr struct {
	fitMisfit
	n int // how many
}

func (e *misfitErr) Error() string { return misfitError(e.fitMisfit, e.n).Message }

// fitUnmarshaler finds the misfits of a value that a type with its own
// UnmarshalJSON decodes, when that method is one toolcat generates
// (DecodeMembers): it tries the decoding.
func fitUnmarshaler(doc any, t reflect.Type, p *Path, out []fitMisfit) []fitMisfit {
	if _, ok := doc.(map[string]any); !ok || t.Kind() != reflect.Struct {
		return out
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return out
	}
	var mf *misfitErr
	if err := reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(b); errors.As(err, &mf) {
		for range mf.n {
			out = append(out, fitMisfit{p.String() + mf.ptr, mf.got, mf.goType})
		}
	}
	return out
}

func fitNumber(doc *any, num string, t reflect.Type, p *Path, out []fitMisfit) []fitMisfit {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	misfit := func(goType string) []fitMisfit {
		return append(out, fitMisfit{p.String(), numberValue(num), goType})
	}
	switch t.Kind() {
	case reflect.Int64, reflect.Int, reflect.Int32:
		n, err := jsonscan.ParseInt64([]byte(num))
		if err != nil {
			return misfit("int64") // the schema said integer: beyond int64
		}
		if t.Kind() == reflect.Int32 && int64(int32(n)) != n {
			return misfit("int32")
		}
		if !plainInteger(num) {
			*doc = json.Number(strconv.FormatInt(n, 10))
		}
	case reflect.Float32:
		f, err := strconv.ParseFloat(num, 64)
		if _, ok := Float32(f); err != nil || !ok {
			return misfit("float32")
		}
	default: // float64, or any, which holds a float64
		if _, err := strconv.ParseFloat(num, 64); err != nil {
			return misfit("float64")
		}
	}
	return out
}

// plainInteger reports whether num is an integer written in at most 15
// digits, without fraction, exponent or a minus zero: one that every Go
// number type of the arguments but int32 and float32 holds as written.
func plainInteger(num string) bool {
	d := strings.TrimPrefix(num, "-")
	if len(d) == 0 || len(d) > 15 || d == "0" && len(num) > 1 {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// firstMisfit returns the misfit of the least pointer, so that the one
// reported does not depend on the order maps are walked in.
func firstMisfit(ms []fitMisfit) fitMisfit {
	first := ms[0]
	for _, m := range ms[1:] {
		if m.ptr < first.ptr {
			first = m
		}
	}
	return first
}

// numbersToFloat turns the json.Numbers of doc into float64, in place, as
// encoding/json would decode the arguments, and returns the number of
// least pointer beyond float64's range, with how many there are.
func numbersToFloat(doc *any, p *Path) (*fitMisfit, int) {
	var first *fitMisfit
	n := 0
	var walk func(v *any, p *Path)
	walk = func(v *any, p *Path) {
		switch x := (*v).(type) {
		case json.Number:
			f, err := strconv.ParseFloat(string(x), 64)
			if err != nil {
				if m := (fitMisfit{p.String(), numberValue(string(x)), "float64"}); first == nil || m.ptr < first.ptr {
					first = &m
				}
				n++
				return
			}
			*v = f
		case map[string]any:
			for k, e := range x {
				if num, isNum := e.(json.Number); isNum {
					if f, err := strconv.ParseFloat(string(num), 64); err == nil {
						x[k] = f // no path needed
						continue
					}
				}
				kp := p.Key(k)
				walk(&e, &kp)
				x[k] = e
			}
		case []any:
			for i := range x {
				ip := p.Index(i)
				walk(&x[i], &ip)
			}
		}
	}
	walk(doc, p)
	return first, n
}

// misfitError is the error of the misfits of a call: the first, with the
// count of the others.
func misfitError(first fitMisfit, n int) *ToolError {
	te := ArgNotFit(first.ptr, first.got, first.goType)
	if n > 1 {
		te.Details["other_errors"] = n - 1
	}
	return te
}

// misfitsError is misfitError of the misfit of least pointer of ms.
func misfitsError(ms []fitMisfit) *ToolError {
	return misfitError(firstMisfit(ms), len(ms))
}

// ReadNumber reads a number for generated code that checks it itself (a
// const, items compared for uniqueItems): num as written, valid until the
// next read of d, and its nearest float64, ±Inf beyond float64's range.
//
// For generated code.
func ReadNumber(d *jsonscan.Decoder) (num []byte, f float64, err error) {
	num, err = d.Number()
	if err != nil {
		return nil, 0, err
	}
	f, _ = strconv.ParseFloat(string(num), 64)
	return num, f, nil
}

// NumberIs reports whether the number num as written, whose nearest
// float64 is f, is exactly c.
//
// For generated code.
func NumberIs(num []byte, f, c float64) bool {
	return f == c && cmpNumber(string(num), f, c) == 0
}

// NumberValue returns the number num as written as messages and details
// show it.
//
// For generated code.
func NumberValue(num []byte) any { return numberValue(string(num)) }

// NumberKey returns the exact value of the number num as written, in
// lowest terms: two numbers are equal, as uniqueItems compares them,
// exactly when their keys are.
//
// For generated code.
func NumberKey(num []byte) string {
	if n, err := jsonscan.ParseInt64(num); err == nil {
		return strconv.FormatInt(n, 10)
	}
	r, ok := new(big.Rat).SetString(string(num))
	if !ok {
		return string(num)
	}
	return r.RatString()
}

// IntKey is NumberKey of an integer.
//
// For generated code.
func IntKey(n int64) string { return strconv.FormatInt(n, 10) }

var anyType = reflect.TypeFor[any]()

// ReadAny reads a value at p that the schema does not check, for a field
// of type any: numbers decode into float64, as encoding/json decodes them;
// one beyond float64's range goes to late.
//
// For generated code.
func ReadAny(d *jsonscan.Decoder, p Path, late **ToolError) (any, *ToolError) {
	raw, err := d.Raw()
	if err != nil {
		return nil, ArgSyntax(err)
	}
	doc, err := decodeExact(raw)
	if err != nil {
		return nil, ArgSyntax(err)
	}
	if first, n := numbersToFloat(&doc, &p); first != nil {
		Late(late, misfitError(*first, n))
		return nil, nil
	}
	return doc, nil
}

// OverflowKey is NumberKey of the number of a jsonscan.RangeError, which
// ArgInt found to be an integer beyond int64.
//
// For generated code.
func OverflowKey(err error) string {
	var re *jsonscan.RangeError
	if !errors.As(err, &re) {
		return ""
	}
	return NumberKey([]byte(re.Number))
}

// messageValue is v, a value decoded with json.Number, as messages show
// it: a number as numberValue shows it. argError makes it a detail.
func messageValue(v any) any {
	if n, ok := v.(json.Number); ok {
		return numberValue(string(n))
	}
	return v
}
