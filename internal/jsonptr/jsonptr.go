// Package jsonptr reads and writes JSON Pointers (RFC 6901), the
// "/properties/a~1b" locations that schema references, validation errors
// and argument errors use. It is standard library only, so that every
// package of the module may use it, runtime's included.
//
// A token is escaped by writing "~" as "~0" and "/" as "~1". Unescaping
// is lenient: a "~" followed by anything other than "0" or "1" (which RFC
// 6901 calls an error) is kept as it is, so "~2" reads as "~2" and a
// trailing "~" as "~". Array indexes are read as [strconv.Atoi] reads
// them, so "01" and "+1" name item 1, where RFC 6901 allows only "0" and
// digits without a leading zero.
//
// The functions take pointers, not URI fragments: the "#" of a "$ref" and
// its percent-encoding ("#/$defs/a%20b") are the caller's to remove.
package jsonptr

import (
	"strconv"
	"strings"
)

// EscapeToken escapes one reference token: "a/b" → "a~1b", "~" → "~0".
// A token with nothing to escape is returned as it is, without
// allocating.
func EscapeToken(tok string) string {
	n := escapes(tok)
	if n == 0 {
		return tok
	}
	var b strings.Builder
	b.Grow(len(tok) + n)
	writeEscaped(&b, tok)
	return b.String()
}

// UnescapeToken undoes [EscapeToken]: "a~1b" → "a/b", "~01" → "~1". A
// "~" that starts no escape is kept (see the package doc). A token with
// no "~" is returned as it is, without allocating.
func UnescapeToken(tok string) string {
	i := strings.IndexByte(tok, '~')
	if i < 0 {
		return tok
	}
	var b strings.Builder
	b.Grow(len(tok))
	b.WriteString(tok[:i])
	for ; i < len(tok); i++ {
		c := tok[i]
		if c == '~' && i+1 < len(tok) {
			switch tok[i+1] {
			case '0':
				c = '~'
				i++
			case '1':
				c = '/'
				i++
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Join returns the pointer of the location the tokens name, escaping
// each: ["properties", "a/b"] → "/properties/a~1b". No tokens give "",
// the whole document.
func Join(tokens ...string) string { return Append("", tokens...) }

// Append returns ptr followed by the tokens, each escaped and after a
// "/": Append("/properties", "a/b") → "/properties/a~1b". It allocates
// once at most, however many tokens need escaping.
func Append(ptr string, tokens ...string) string {
	if len(tokens) == 0 {
		return ptr
	}
	size := len(ptr)
	for _, tok := range tokens {
		size += 1 + len(tok) + escapes(tok)
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(ptr)
	for _, tok := range tokens {
		b.WriteByte('/')
		writeEscaped(&b, tok)
	}
	return b.String()
}

// Split returns the unescaped tokens of ptr: "/a~1b/0" → ["a/b", "0"];
// "" (the whole document) has none, and "/" has one, the empty token.
// ok is false when ptr is neither "" nor starts with "/".
func Split(ptr string) (tokens []string, ok bool) {
	if ptr == "" {
		return nil, true
	}
	rest, ok := strings.CutPrefix(ptr, "/")
	if !ok {
		return nil, false
	}
	tokens = strings.Split(rest, "/")
	for i, tok := range tokens {
		tokens[i] = UnescapeToken(tok)
	}
	return tokens, true
}

// Lookup follows ptr from root, whatever the type of the tree: child
// returns the value one unescaped token names in v, an object's member or
// an array's item ([Index] reads the latter), and false when there is
// none. "" is root itself; a pointer that does not start with "/" finds
// nothing. Lookup itself does not allocate.
func Lookup[T any](root T, ptr string, child func(v T, tok string) (T, bool)) (T, bool) {
	var zero T
	if ptr == "" {
		return root, true
	}
	rest, ok := strings.CutPrefix(ptr, "/")
	if !ok {
		return zero, false
	}
	cur := root
	for tok := range strings.SplitSeq(rest, "/") {
		if cur, ok = child(cur, UnescapeToken(tok)); !ok {
			return zero, false
		}
	}
	return cur, true
}

// Get is [Lookup] in a value decoded by encoding/json, through [Step].
func Get(doc any, ptr string) (any, bool) { return Lookup(doc, ptr, Step) }

// Step returns the value tok (unescaped) names in v, a value decoded by
// encoding/json: the member of a map[string]any or the item of an []any.
func Step(v any, tok string) (any, bool) {
	switch c := v.(type) {
	case map[string]any:
		m, ok := c[tok]
		return m, ok
	case []any:
		i, ok := Index(tok, len(c))
		if !ok {
			return nil, false
		}
		return c[i], true
	}
	return nil, false
}

// Index reads tok as the index of an item of an array of n items, and
// reports whether it is one.
func Index(tok string, n int) (int, bool) {
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || i >= n {
		return 0, false
	}
	return i, true
}

// escapes counts the bytes escaping adds to tok: one per "~" or "/".
func escapes(tok string) int {
	n := 0
	for i := 0; i < len(tok); i++ {
		if tok[i] == '~' || tok[i] == '/' {
			n++
		}
	}
	return n
}

func writeEscaped(b *strings.Builder, tok string) {
	last := 0
	for i := 0; i < len(tok); i++ {
		var esc string
		switch tok[i] {
		case '~':
			esc = "~0"
		case '/':
			esc = "~1"
		default:
			continue
		}
		b.WriteString(tok[last:i])
		b.WriteString(esc)
		last = i + 1
	}
	b.WriteString(tok[last:])
}
