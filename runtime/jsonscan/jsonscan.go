// Package jsonscan is a small pull decoder for JSON, the target of the
// one-pass argument validators that toolcat generates.
//
// A generated validator walks the raw arguments once, decoding each field
// straight into its typed struct and checking the schema's bounds as it goes,
// with no intermediate map and no reflection:
//
//	var d jsonscan.Decoder
//	d.Reset(raw)
//	if err := d.BeginObject(); err != nil { ... }
//	for {
//		key, ok, err := d.NextKey()
//		if err != nil { ... }
//		if !ok {
//			break
//		}
//		switch string(key) { // no allocation
//		case "query":
//			args.Query, err = d.String()
//		case "max_results":
//			args.MaxResults, err = d.Int64()
//		default:
//			err = d.Skip()
//		}
//		...
//	}
//	err = d.End()
//
// Every read method skips leading white space, checks that the next value has
// the wanted kind and returns a *TypeError (naming the kind it found) when it
// has not, or a *SyntaxError for malformed input. Errors carry the byte offset.
// Strings are unescaped as encoding/json does, invalid UTF-8 becoming U+FFFD.
//
// A Decoder is not safe for concurrent use; its zero value is ready after
// Reset. It never retains the input after the next Reset.
package jsonscan

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Kind is the kind of a JSON value.
type Kind uint8

// The kinds of JSON values. Invalid marks the end of input or a byte that
// starts no value.
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"invalid JSON", "null", "boolean", "number", "string", "array", "object"}

// String returns the JSON Schema name of the kind: "null", "boolean",
// "number", "string", "array" or "object".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// SyntaxError reports malformed JSON.
type SyntaxError struct {
	Offset int    // byte offset of the problem
	Msg    string // what is wrong
}

// Error describes the problem and its offset.
func (e *SyntaxError) Error() string {
	return "invalid JSON at offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// TypeError reports a well-formed value of another kind than the one read.
// The decoder stays before the value, so it can still be read or skipped.
type TypeError struct {
	Offset int    // byte offset of the value
	Got    Kind   // kind found
	Want   Kind   // kind asked for
	Value  []byte // the value as written; it aliases the input
}

// Error names the kinds found and wanted.
func (e *TypeError) Error() string {
	return "got " + e.Got.String() + ", want " + e.Want.String() + " at offset " + strconv.Itoa(e.Offset)
}

// RangeError reports a number that does not fit the Go type read, or a
// number with a fractional part read as an integer.
type RangeError struct {
	Offset int    // byte offset of the number
	Number string // the number as written
	Msg    string // "not an integer" or "out of range"
}

// Error names the number and why it does not fit.
func (e *RangeError) Error() string {
	return "number " + e.Number + " at offset " + strconv.Itoa(e.Offset) + " is " + e.Msg
}

// Decoder reads JSON values from a byte slice, one at a time.
type Decoder struct {
	buf     []byte
	pos     int
	scratch []byte
	depth   int
	// open is set by BeginObject and BeginArray, which consume the '{' or
	// '[': the next NextKey or NextElem expects no comma.
	open bool
	// text is where String copies strings, when set (StringsIn).
	text []byte
}

// MaxDepth is the deepest nesting Skip and Raw accept: encoding/json's.
const MaxDepth = 10000

// Reset makes the decoder read b from its start.
func (d *Decoder) Reset(b []byte) {
	d.buf = b
	d.pos = 0
	d.depth = 0
	d.open = false
	d.text = nil
}

// StringsIn makes String copy the strings it returns into the free
// capacity of text, one after the other, for as long as they fit there;
// a string that does not fit gets memory of its own. The strings returned
// share text's memory: the caller must never write to text's capacity
// past its length again, whether or not a string went there. Text
// returns what is used. Reset ends it.
//
// A caller that knows where the decoded values will live, such as a
// generated validator that allocates its arguments with room for their
// strings, saves an allocation a string this way.
func (d *Decoder) StringsIn(text []byte) { d.text = text }

// Text returns the strings' memory given to StringsIn, its length
// extended over the strings copied there since.
func (d *Decoder) Text() []byte { return d.text }

// Offset returns the offset of the next unread byte.
func (d *Decoder) Offset() int { return d.pos }

func (d *Decoder) skipWS() {
	if d.pos < len(d.buf) && d.buf[d.pos] > ' ' {
		return // compact JSON: no white space
	}
	for d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func kindOf(c byte) Kind { return kinds[c] }

// kinds is the kind of value each byte starts.
var kinds = func() (t [256]Kind) {
	t['{'], t['['], t['"'], t['t'], t['f'], t['n'], t['-'] = Object, Array, String, Bool, Bool, Null, Number
	for c := '0'; c <= '9'; c++ {
		t[c] = Number
	}
	return t
}()

// Peek returns the kind of the next value without consuming it.
func (d *Decoder) Peek() Kind {
	d.skipWS()
	if d.pos >= len(d.buf) {
		return Invalid
	}
	return kindOf(d.buf[d.pos])
}

func (d *Decoder) syntax(msg string) error {
	return &SyntaxError{Offset: d.pos, Msg: msg}
}

// expect checks that the next value is of kind want.
func (d *Decoder) expect(want Kind) error {
	d.skipWS()
	if d.pos >= len(d.buf) {
		return d.syntax("unexpected end of input")
	}
	got := kindOf(d.buf[d.pos])
	if got == want {
		return nil
	}
	if got == Invalid {
		return d.syntax("unexpected character " + strconv.QuoteRune(rune(d.buf[d.pos])))
	}
	// Report a type error only for a well-formed value.
	start := d.pos
	if err := d.Skip(); err != nil {
		d.pos = start
		return err
	}
	value := d.buf[start:d.pos]
	d.pos = start
	return &TypeError{Offset: start, Got: got, Want: want, Value: value}
}

// BeginObject consumes the '{' that opens an object.
func (d *Decoder) BeginObject() error {
	if err := d.expect(Object); err != nil {
		return err
	}
	d.pos++
	d.depth++
	d.open = true // NextKey knows no comma is due
	return nil
}

// NextKey reads the next key of the object being read and the ':' after it.
// It returns ok false, having consumed the closing '}', when the object has
// no more members. The key is valid until the next call on d.
func (d *Decoder) NextKey() (key []byte, ok bool, err error) {
	d.skipWS()
	if d.pos >= len(d.buf) {
		return nil, false, d.syntax("unexpected end of input in object")
	}
	open := d.open
	d.open = false
	switch c := d.buf[d.pos]; {
	case c == '}':
		d.pos++
		d.depth--
		return nil, false, nil
	case c == ',' && !open:
		d.pos++
	case !open:
		return nil, false, d.syntax("expected ',' or '}' after object member")
	}
	d.skipWS()
	if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
		return nil, false, d.syntax("expected a string key")
	}
	key, err = d.readString()
	if err != nil {
		return nil, false, err
	}
	d.skipWS()
	if d.pos >= len(d.buf) || d.buf[d.pos] != ':' {
		return nil, false, d.syntax("expected ':' after object key")
	}
	d.pos++
	return key, true, nil
}

// BeginArray consumes the '[' that opens an array.
func (d *Decoder) BeginArray() error {
	if err := d.expect(Array); err != nil {
		return err
	}
	d.pos++
	d.depth++
	d.open = true // NextElem knows no comma is due
	return nil
}

// NextElem moves to the next element of the array being read. It returns
// false, having consumed the closing ']', when there are no more elements.
func (d *Decoder) NextElem() (bool, error) {
	d.skipWS()
	if d.pos >= len(d.buf) {
		return false, d.syntax("unexpected end of input in array")
	}
	open := d.open
	d.open = false
	switch c := d.buf[d.pos]; {
	case c == ']':
		d.pos++
		d.depth--
		return false, nil
	case open:
		return true, nil
	case c == ',':
		d.pos++
		return true, nil
	}
	return false, d.syntax("expected ',' or ']' after array element")
}

// String reads a string value, into the memory StringsIn gave when it
// fits there.
func (d *Decoder) String() (string, error) {
	b, err := d.StringBytes()
	if err != nil {
		return "", err
	}
	if n := len(d.text); len(b) > 0 && cap(d.text)-n >= len(b) {
		d.text = append(d.text, b...)
		return unsafe.String(&d.text[n], len(b)), nil
	}
	return string(b), nil
}

// StringBytes reads a string value. The result may alias the input or the
// decoder's scratch space; it is valid until the next call on d.
func (d *Decoder) StringBytes() ([]byte, error) {
	if err := d.expect(String); err != nil {
		return nil, err
	}
	return d.readString()
}

// readString reads the string at d.pos (a '"').
func (d *Decoder) readString() ([]byte, error) {
	start := d.pos + 1
	rest := d.buf[start:] // indexed from 0: no bounds check in the loop
	ascii := true
	for j := 0; j < len(rest); j++ {
		c := rest[j]
		if !stringStops[c] {
			continue
		}
		switch {
		case c == '"':
			d.pos = start + j + 1
			s := rest[:j]
			if !ascii && !utf8.Valid(s) {
				return d.fixUTF8(s), nil
			}
			return s, nil
		case c == '\\':
			return d.readEscaped(start, start+j)
		case c < 0x20:
			d.pos = start + j
			return nil, d.syntax("control character in string")
		}
		ascii = false // c >= 0x80
	}
	d.pos = len(d.buf)
	return nil, d.syntax("unterminated string")
}

// stringStops marks the bytes readString looks at: the closing quote, a
// backslash, control characters and bytes of multi-byte UTF-8 sequences.
var stringStops = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80
	}
	return t
}()

func (d *Decoder) fixUTF8(s []byte) []byte {
	out := d.scratch[:0]
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		if r == utf8.RuneError && n == 1 {
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, s[:n]...)
		}
		s = s[n:]
	}
	d.scratch = out
	return out
}

// readEscaped finishes a string holding escapes; i is the first '\\'.
func (d *Decoder) readEscaped(start, i int) ([]byte, error) {
	out := append(d.scratch[:0], d.buf[start:i]...)
	for i < len(d.buf) {
		c := d.buf[i]
		switch {
		case c == '"':
			d.pos = i + 1
			d.scratch = out
			if !utf8.Valid(out) {
				fixed := d.fixUTF8(append([]byte(nil), out...))
				return fixed, nil
			}
			return out, nil
		case c < 0x20:
			d.pos = i
			return nil, d.syntax("control character in string")
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(d.buf) {
			break
		}
		e := d.buf[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(d.buf, i)
			if !ok {
				d.pos = i
				return nil, d.syntax("invalid \\u escape")
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if i+6 <= len(d.buf) && d.buf[i] == '\\' && d.buf[i+1] == 'u' {
					r2, ok2 = hex4(d.buf, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			d.pos = i - 1
			return nil, d.syntax("invalid escape character " + strconv.QuoteRune(rune(e)))
		}
	}
	d.pos = len(d.buf)
	return nil, d.syntax("unterminated string")
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Number reads a number and returns it as written.
func (d *Decoder) Number() ([]byte, error) {
	if err := d.expect(Number); err != nil {
		return nil, err
	}
	return d.readNumber()
}

// readNumber scans a number at d.pos, checking its grammar.
func (d *Decoder) readNumber() ([]byte, error) {
	b, start := d.buf, d.pos
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		d.pos = i
		return nil, d.syntax("invalid number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			d.pos = i
			return nil, d.syntax("invalid number: digits expected after '.'")
		}
	}
	exp := -1
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		exp = i - start
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			d.pos = i
			return nil, d.syntax("invalid number: digits expected in exponent")
		}
	}
	if err := checkLimits(b[start:i], start, exp); err != nil {
		d.pos = start
		return nil, err
	}
	d.pos = i
	return b[start:i], nil
}

// Int64 reads a number that must be an integer: JSON Schema's "integer",
// which includes 2.0 and 1e3. It reads it exactly (see ParseInt64).
func (d *Decoder) Int64() (int64, error) {
	num, err := d.Number()
	if err != nil {
		return 0, err
	}
	// Fast path: at most 18 digits, no fraction or exponent.
	neg := num[0] == '-'
	digits := num
	if neg {
		digits = num[1:]
	}
	if len(digits) <= 18 {
		var n int64
		simple := true
		for _, c := range digits {
			if c < '0' || c > '9' {
				simple = false
				break
			}
			n = n*10 + int64(c-'0')
		}
		if simple {
			if neg {
				n = -n
			}
			return n, nil
		}
	}
	n, err := ParseInt64(num)
	if err != nil {
		err.(*RangeError).Offset = d.pos - len(num)
	}
	return n, err
}

// Float64 reads a number.
func (d *Decoder) Float64() (float64, error) {
	num, err := d.Number()
	if err != nil {
		return 0, err
	}
	f, perr := strconv.ParseFloat(string(num), 64)
	if perr != nil {
		return 0, &RangeError{Offset: d.pos - len(num), Number: string(num), Msg: "out of range"}
	}
	return f, nil
}

// Bool reads true or false.
func (d *Decoder) Bool() (bool, error) {
	if err := d.expect(Bool); err != nil {
		return false, err
	}
	return d.readLiteral()
}

func (d *Decoder) readLiteral() (bool, error) {
	rest := d.buf[d.pos:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		d.pos += 4
		return true, nil
	case len(rest) >= 5 && string(rest[:5]) == "false":
		d.pos += 5
		return false, nil
	case len(rest) >= 4 && string(rest[:4]) == "null":
		d.pos += 4
		return false, nil
	}
	return false, d.syntax("invalid literal")
}

// Null reads null.
func (d *Decoder) Null() error {
	if err := d.expect(Null); err != nil {
		return err
	}
	_, err := d.readLiteral()
	return err
}

// Skip reads and discards the next value, checking it is well formed.
func (d *Decoder) Skip() error {
	d.skipWS()
	if d.pos >= len(d.buf) {
		return d.syntax("unexpected end of input")
	}
	switch kindOf(d.buf[d.pos]) {
	case String:
		_, err := d.readString()
		return err
	case Number:
		_, err := d.readNumber()
		return err
	case Bool, Null:
		_, err := d.readLiteral()
		return err
	case Object:
		if d.depth >= MaxDepth {
			return d.syntax("nesting too deep")
		}
		if err := d.BeginObject(); err != nil {
			return err
		}
		for {
			_, ok, err := d.NextKey()
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
			if err := d.Skip(); err != nil {
				return err
			}
		}
	case Array:
		if d.depth >= MaxDepth {
			return d.syntax("nesting too deep")
		}
		if err := d.BeginArray(); err != nil {
			return err
		}
		for {
			ok, err := d.NextElem()
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
			if err := d.Skip(); err != nil {
				return err
			}
		}
	}
	return d.syntax("unexpected character " + strconv.QuoteRune(rune(d.buf[d.pos])))
}

// Raw reads the next value and returns its bytes as written, for a field a
// generated validator hands to another decoder.
func (d *Decoder) Raw() ([]byte, error) {
	d.skipWS()
	start := d.pos
	if err := d.Skip(); err != nil {
		return nil, err
	}
	return d.buf[start:d.pos], nil
}

// End checks that only white space follows the value read.
func (d *Decoder) End() error {
	d.skipWS()
	if d.pos != len(d.buf) {
		return d.syntax("unexpected data after the top-level value")
	}
	return nil
}
