package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolcat/toolcat/internal/jsonptr"
	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// The Arg* functions build the invalid_args errors of argument validation.
// SchemaValidator and generated validators both use them, so a model reads
// the same words whichever validated its call. ptr is the JSON pointer of
// the offending value ("" for the arguments object, "/max_results" for a
// field); each error names it in details.field, along with what was received
// and what is allowed, and carries a suggestion saying how to fix the call.

// Bounds are the numeric bounds of a schema: minimum / exclusiveMinimum and
// maximum / exclusiveMaximum. Generated code declares them as package
// variables.
type Bounds struct {
	Min, Max                   float64
	HasMin, HasMax             bool
	ExclusiveMin, ExclusiveMax bool
	// minNum and maxNum are the bounds as the schema writes them, when
	// known (the general validator's): exact where Min and Max round.
	minNum, maxNum string
}

// Check reports whether f is within b.
func (b *Bounds) Check(f float64) bool {
	if b.HasMin && (f < b.Min || b.ExclusiveMin && f == b.Min) {
		return false
	}
	if b.HasMax && (f > b.Max || b.ExclusiveMax && f == b.Max) {
		return false
	}
	return true
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// minText and maxText write b's bounds, as the schema does when known.
func (b *Bounds) minText() string {
	if b.minNum != "" {
		return quoteValue(numberValue(b.minNum))
	}
	return bound(b.Min)
}

func (b *Bounds) maxText() string {
	if b.maxNum != "" {
		return quoteValue(numberValue(b.maxNum))
	}
	return bound(b.Max)
}

// bound writes a schema's bound: an integer in its digits.
func bound(f float64) string {
	if f == 0 {
		return "0" // -0 too, as numberValue shows it
	}
	if f == math.Trunc(f) && math.Abs(f) <= 1<<63 {
		return strconv.FormatFloat(f, 'f', 0, 64) // every digit: 4611686018427387904
	}
	return num(f)
}

// display turns a JSON pointer into the name a model knows: "max_results",
// "filter.limit", "items[2]"; a long one is clipped.
func display(ptr string) string {
	if ptr == "" {
		return "arguments"
	}
	if len(ptr) > 2*maxEchoName {
		// Only the start is shown: spell out no more of it than that.
		s := displayFull(ptr[:clipAt(ptr, 2*maxEchoName)])
		if len(s) > maxEchoName {
			s = s[:clipAt(s, maxEchoName)]
		}
		return s + clipped(ptr)
	}
	return clipName(displayFull(ptr))
}

func displayFull(ptr string) string {
	var sb strings.Builder
	for tok := range strings.SplitSeq(strings.TrimPrefix(ptr, "/"), "/") {
		tok = jsonptr.UnescapeToken(tok)
		if _, err := strconv.Atoi(tok); err == nil && sb.Len() > 0 {
			sb.WriteString("[" + tok + "]")
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(tok)
	}
	return sb.String()
}

func argError(ptr, msg, suggestion string, received, allowed any) *ToolError {
	e := InvalidArgs(msg)
	e.Suggestion = suggestion
	e.appendHint = true
	e.Details = map[string]any{"field": clip(ptr, 2*maxEchoName)}
	if received != nil {
		if v, ok := clipReceived(received); ok {
			e.Details["received"] = detailValue(v)
		}
	}
	if allowed != nil {
		e.Details["allowed"] = allowed
	}
	return e
}

// quoteValue renders a received value compactly for a message.
func quoteValue(v any) string {
	switch x := v.(type) {
	case string:
		return quoteClipped(x, 60)
	case float64:
		return num(x)
	case json.Number:
		return jsonscan.ShortNumber([]byte(x)) // as written (see numberValue)
	case elided:
		return "an " + string(x)
	case nil:
		return "null"
	}
	budget := 80
	if _, isArr := v.([]any); !isArr {
		if _, isObj := v.(map[string]any); !isObj {
			budget = -1 // another Go type: encode it and look
		}
	}
	if budget >= 0 && !small(v, &budget) {
		return fmt.Sprintf("a %s", jsonType(v))
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) > 80 {
		return fmt.Sprintf("a %s", jsonType(v))
	}
	return string(b)
}

// ArgTypeError reports a value of the wrong JSON type: want and got are JSON
// Schema type names ("integer", "string or null").
func ArgTypeError(ptr, want, got string) *ToolError {
	article := "a "
	if strings.HasPrefix(want, "a") || strings.HasPrefix(want, "i") || strings.HasPrefix(want, "o") {
		article = "an "
	}
	return argError(ptr,
		fmt.Sprintf("%s must be %s%s, got %s", display(ptr), article, want, clip(got, maxEchoValue)),
		fmt.Sprintf("Pass %s as a JSON %s.", display(ptr), want), nil, map[string]any{"type": want})
}

// ArgOutOfRange reports a number outside b.
func ArgOutOfRange(ptr string, got float64, b Bounds) *ToolError {
	which := b.outside(func() int { return cmpFloat(got, b.Min) }, func() int { return cmpFloat(got, b.Max) })
	return argOutOfRange(ptr, num(got), got, which, b)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// argOutOfRange reports the number shown, received as got, outside b:
// which names the bound it fails (see Bounds.outside).
func argOutOfRange(ptr, shown string, got any, which string, b Bounds) *ToolError {
	name := display(ptr)
	var msg string
	switch which {
	case "below":
		msg = fmt.Sprintf("%s=%s is below the minimum %s", name, shown, b.minText())
	case "at min":
		msg = fmt.Sprintf("%s=%s must be greater than %s", name, shown, b.minText())
	case "above":
		msg = fmt.Sprintf("%s=%s is above the maximum %s", name, shown, b.maxText())
	default:
		msg = fmt.Sprintf("%s=%s must be less than %s", name, shown, b.maxText())
	}
	allowed := map[string]any{}
	var sug string
	lo, hi := "minimum", "maximum"
	if b.ExclusiveMin {
		lo = "exclusiveMinimum"
	}
	if b.ExclusiveMax {
		hi = "exclusiveMaximum"
	}
	if b.HasMin {
		allowed[lo] = b.Min
		if b.minNum != "" {
			allowed[lo] = detailValue(json.Number(b.minNum))
		}
	}
	if b.HasMax {
		allowed[hi] = b.Max
		if b.maxNum != "" {
			allowed[hi] = detailValue(json.Number(b.maxNum))
		}
	}
	switch {
	case b.HasMin && b.HasMax && !b.ExclusiveMin && !b.ExclusiveMax:
		sug = fmt.Sprintf("Use a value between %s and %s.", b.minText(), b.maxText())
	case b.HasMin && b.HasMax:
		sug = fmt.Sprintf("Use a value %s %s and %s %s.", cmpWord(b.ExclusiveMin, true), b.minText(), cmpWord(b.ExclusiveMax, false), b.maxText())
	case b.HasMin:
		sug = fmt.Sprintf("Use a value %s %s.", cmpWord(b.ExclusiveMin, true), b.minText())
	default:
		sug = fmt.Sprintf("Use a value %s %s.", cmpWord(b.ExclusiveMax, false), b.maxText())
	}
	return argError(ptr, msg, sug, got, allowed)
}

func cmpWord(exclusive, low bool) string {
	switch {
	case low && exclusive:
		return "greater than"
	case low:
		return "of at least"
	case exclusive:
		return "less than"
	}
	return "of at most"
}

// ArgNotInEnum reports a value that is not one of allowed.
func ArgNotInEnum(ptr string, got any, allowed []any) *ToolError {
	vals := make([]string, len(allowed))
	for i, a := range allowed {
		vals[i] = quoteValue(a)
	}
	list := strings.Join(vals, ", ")
	msg := fmt.Sprintf("%s=%s is not one of the allowed values: %s", display(ptr), quoteValue(got), list)
	sug := "Use one of: " + list + "."
	if s, ok := got.(string); ok {
		strs := make([]string, 0, len(allowed))
		for _, a := range allowed {
			if as, ok := a.(string); ok {
				strs = append(strs, as)
			}
		}
		if c := Closest(s, strs); c != "" {
			sug = fmt.Sprintf("Did you mean %q? Use one of: %s.", c, list)
		}
	}
	return argError(ptr, msg, sug, got, allowed)
}

// ArgLength reports a string whose length in characters is outside
// [min, max]; a negative min or max means none.
func ArgLength(ptr string, got string, min, max int) *ToolError {
	n := utf8.RuneCountInString(got)
	name := display(ptr)
	var msg string
	if min >= 0 && n < min {
		msg = fmt.Sprintf("%s is %d characters long, below the minimum length %d", name, n, min)
	} else {
		msg = fmt.Sprintf("%s is %d characters long, above the maximum length %d", name, n, max)
	}
	allowed := map[string]any{}
	var sug string
	switch {
	case min >= 0 && max >= 0:
		allowed["minLength"], allowed["maxLength"] = min, max
		sug = fmt.Sprintf("Use between %d and %d characters.", min, max)
	case min >= 0:
		allowed["minLength"] = min
		sug = fmt.Sprintf("Use at least %d characters.", min)
	default:
		allowed["maxLength"] = max
		sug = fmt.Sprintf("Use at most %d characters; shorten it.", max)
	}
	return argError(ptr, msg, sug, got, allowed)
}

// ArgItems reports an array whose length is outside [min, max]; a negative
// min or max means none.
func ArgItems(ptr string, n, min, max int) *ToolError {
	name := display(ptr)
	var msg string
	if min >= 0 && n < min {
		msg = fmt.Sprintf("%s has %d items, below the minimum %d", name, n, min)
	} else {
		msg = fmt.Sprintf("%s has %d items, above the maximum %d", name, n, max)
	}
	allowed := map[string]any{}
	if min >= 0 {
		allowed["minItems"] = min
	}
	if max >= 0 {
		allowed["maxItems"] = max
	}
	sug := "Pass between " + strconv.Itoa(max0(min)) + " and " + strconv.Itoa(max) + " items."
	if max < 0 {
		sug = "Pass at least " + strconv.Itoa(min) + " items."
	}
	return argError(ptr, msg, sug, n, allowed)
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

// ArgPattern reports a string that does not match pattern.
func ArgPattern(ptr, got, pattern string) *ToolError {
	return argError(ptr,
		fmt.Sprintf("%s=%s does not match the pattern %s", display(ptr), quoteValue(got), pattern),
		"Use a value matching the regular expression "+pattern+".", got, map[string]any{"pattern": pattern})
}

// ArgFormat reports a string that is not a valid format (email, date-time...).
func ArgFormat(ptr, got, format string) *ToolError {
	return argError(ptr,
		fmt.Sprintf("%s=%s is not a valid %s", display(ptr), quoteValue(got), format),
		"Pass a valid "+format+".", got, map[string]any{"format": format})
}

// ArgMissing reports a required argument that is absent; ptr is the object
// that lacks it, valid its property names.
func ArgMissing(ptr, name string, valid []string) *ToolError {
	field := jsonptr.Append(ptr, name)
	e := argError(field, "missing required argument "+display(field),
		"Add "+display(field)+" to the arguments.", nil, nil)
	if len(valid) > 0 {
		e.Details["valid_args"] = valid
	}
	return e
}

// ArgUnknown reports an argument the schema does not declare; ptr is the
// object holding it, valid its declared names. The message names the closest
// valid name.
func ArgUnknown(ptr, name string, valid []string) *ToolError {
	field := jsonptr.Append(ptr, name)
	c := Closest(name, valid)
	q := quoteClipped(name, maxEchoName)
	msg := "unknown argument " + q
	if ptr != "" {
		msg = "unknown field " + q + " in " + display(ptr)
	}
	sug := "Remove " + q + "."
	if c != "" {
		msg += fmt.Sprintf("; did you mean %q?", c)
		sug = fmt.Sprintf("Rename %s to %q, or remove it.", q, c)
	}
	sug += " Valid arguments: " + strings.Join(valid, ", ") + "."
	e := argError(field, msg, sug, nil, nil)
	e.Details["valid_args"] = valid
	if c != "" {
		e.Details["closest"] = c
	}
	return e
}

// ArgSyntax reports arguments that are not valid JSON.
func ArgSyntax(err error) *ToolError {
	e := argError("", "arguments are not valid JSON: "+clip(err.Error(), maxEchoText),
		"Send the arguments as one JSON object.", nil, nil)
	return e.WithCause(err)
}

// ArgDecodeError converts an error of a jsonscan.Decoder reading the value
// at ptr, which should be of JSON Schema type want, to invalid_args.
func ArgDecodeError(ptr, want string, err error) *ToolError {
	var te *jsonscan.TypeError
	var re *jsonscan.RangeError
	switch {
	case errors.As(err, &te):
		e := ArgTypeError(ptr, want, te.Got.String())
		if v, err := decodeExact(te.Value); len(te.Value) <= 1024 && err == nil {
			e.Details["received"] = detailValue(v)
		}
		return e
	case errors.As(err, &re):
		if re.Msg == "not an integer" {
			return ArgTypeError(ptr, want, "number "+re.Number)
		}
		return argError(ptr, fmt.Sprintf("%s=%s is out of range", display(ptr), clip(re.Number, maxEchoValue)),
			"Use a smaller number.", re.Number, nil)
	}
	var le *jsonscan.LimitError
	if errors.As(err, &le) {
		return ArgNumberLimit(ptr, le)
	}
	return ArgSyntax(err)
}

// ArgRead converts an error of a jsonscan.Decoder reading the value at ptr,
// which should be of JSON Schema type want ("integer", "null or string"),
// to invalid_args, naming the received value's type as SchemaValidator
// does ("integer" for 3, "number" for 2.5).
//
// For generated code.
func ArgRead(ptr, want string, err error) *ToolError {
	var te *jsonscan.TypeError
	var re *jsonscan.RangeError
	var le *jsonscan.LimitError
	switch {
	case errors.As(err, &te):
		v, ok := decodeReceived(te.Value)
		if !ok {
			return ArgSyntax(err)
		}
		e := ArgTypeError(ptr, want, jsonType(v))
		if v, ok := clipReceived(v); ok {
			e.Details["received"] = detailValue(v)
		}
		return e
	case errors.As(err, &re) && re.Msg == "not an integer":
		e := ArgTypeError(ptr, want, "number")
		e.Details["received"] = detailValue(json.Number(re.Number))
		return e
	case errors.As(err, &le):
		return ArgNumberLimit(ptr, le)
	}
	return ArgDecodeError(ptr, want, err)
}

// ArgEnumRead converts an error of a jsonscan.Decoder reading a value that
// must be one of allowed, under a schema that gives no type: a value of
// another kind is not one of the allowed values.
//
// For generated code.
func ArgEnumRead(ptr string, err error, allowed []any) *ToolError {
	var te *jsonscan.TypeError
	var re *jsonscan.RangeError
	switch {
	case errors.As(err, &te):
		v, ok := decodeReceived(te.Value)
		if !ok {
			return ArgSyntax(err)
		}
		return ArgNotInEnum(ptr, messageValue(v), allowed)
	case errors.As(err, &re):
		return ArgNotInEnum(ptr, numberValue(re.Number), allowed)
	}
	var le *jsonscan.LimitError
	if errors.As(err, &le) {
		return ArgNumberLimit(ptr, le)
	}
	return ArgSyntax(err)
}

// ArgInt handles an error of jsonscan.Decoder.Int64 reading the value at
// ptr. An integer too large for int64 is still checked against the schema's
// bounds b and multiple m (either may be nil), as SchemaValidator checks it;
// if it passes, it does not fit the Go type, which late records unless an
// earlier such error is there: the caller reports late once the schema
// holds everywhere. The returned error, if any, is to be reported now.
//
// For generated code.
func ArgInt(ptr, want string, err error, b *Bounds, m *Multiple, late **ToolError) *ToolError {
	var re *jsonscan.RangeError
	if !errors.As(err, &re) || re.Msg != "out of range" {
		return ArgRead(ptr, want, err)
	}
	// An integer beyond int64, within jsonscan's limits: checked exactly.
	f, _ := strconv.ParseFloat(re.Number, 64) // ±Inf beyond float64
	if b != nil && !b.CheckNumber(re.Number, f) {
		return ArgNumberOutOfRange(ptr, re.Number, f, *b)
	}
	if m != nil && !m.NumberMultiple(re.Number) {
		return argNotMultiple(ptr, quoteValue(numberValue(re.Number)), numberValue(re.Number), m)
	}
	Late(late, ArgNotFit(ptr, numberValue(re.Number), "int64"))
	return nil
}

// ArgNotFit reports a value the schema allows but the field's Go type
// cannot hold: an integer beyond int64 or int32, a number beyond float32,
// a date-time the time package does not parse.
//
// For generated code.
func ArgNotFit(ptr string, got any, goType string) *ToolError {
	msg := fmt.Sprintf("%s=%s does not fit the tool's type %s", display(ptr), quoteValue(got), goType)
	if r, ok := goRanges[goType]; ok {
		msg += ", which holds " + r
	}
	return argError(ptr, msg, "Use a smaller value.", got, map[string]any{"type": goType})
}

// ArgNotMultiple reports a number that is not a multiple of m.
//
// For generated code.
func ArgNotMultiple(ptr string, got float64, m *Multiple) *ToolError {
	r, _ := new(big.Rat).SetString(fmt.Sprintf("%v", got))
	return argError(ptr, fmt.Sprintf("%s=%s is not a multiple of %s", display(ptr), ratString(r), ratString(m.r)),
		"Use a multiple of "+ratString(m.r)+".", got, map[string]any{"multipleOf": m.float})
}

// ArgNotUnique reports an array whose items j and i are equal.
//
// For generated code.
func ArgNotUnique(ptr string, j, i int, got any) *ToolError {
	msg := printer.Sprintf("items at %d and %d are equal", j, i)
	return argError(ptr, display(ptr)+": "+msg, "", got, nil)
}

// ArgNumberLimit reports a number beyond what validators read (see
// jsonscan.LimitError).
//
// For generated code.
func ArgNumberLimit(ptr string, err *jsonscan.LimitError) *ToolError {
	return argError(ptr, fmt.Sprintf("%s=%s %s", display(ptr), err.Number, err.Msg),
		"Use a shorter number.", json.Number(""), map[string]any{"maxLength": jsonscan.MaxNumberLen, "maxExponent": jsonscan.MaxExponent})
}

// ArgIntOutOfRange reports an integer outside b.
//
// For generated code.
func ArgIntOutOfRange(ptr string, n int64, b Bounds) *ToolError {
	which := b.outside(func() int { return cmpInt(n, b.Min) }, func() int { return cmpInt(n, b.Max) })
	return argOutOfRange(ptr, strconv.FormatInt(n, 10), n, which, b)
}

// ArgNumberOutOfRange reports the number num as written, whose nearest
// float64 is f, outside b.
//
// For generated code.
func ArgNumberOutOfRange(ptr, num string, f float64, b Bounds) *ToolError {
	v := numberValue(num)
	return argOutOfRange(ptr, quoteValue(v), v, b.numberOutside(num, f), b)
}

// ArgIntNotMultiple reports an integer that is not a multiple of m.
//
// For generated code.
func ArgIntNotMultiple(ptr string, n int64, m *Multiple) *ToolError {
	return argNotMultiple(ptr, strconv.FormatInt(n, 10), n, m)
}

func argNotMultiple(ptr, shown string, got any, m *Multiple) *ToolError {
	return argError(ptr, fmt.Sprintf("%s=%s is not a multiple of %s", display(ptr), shown, ratString(m.r)),
		"Use a multiple of "+ratString(m.r)+".", got, map[string]any{"multipleOf": m.float})
}

// ArgNumberNotMultiple reports the number num as written that is not a
// multiple of m.
//
// For generated code.
func ArgNumberNotMultiple(ptr string, num []byte, m *Multiple) *ToolError {
	v := numberValue(string(num))
	return argNotMultiple(ptr, quoteValue(v), v, m)
}
