package gen

import (
	"go/token"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// initialisms are the words Go spells in capitals (Effective Go, and the
// lint tools' list).
var initialisms = map[string]bool{
	"acl": true, "api": true, "ascii": true, "cpu": true, "css": true, "dns": true,
	"eof": true, "guid": true, "html": true, "http": true, "https": true, "id": true,
	"ip": true, "json": true, "lhs": true, "qps": true, "ram": true, "rhs": true,
	"rpc": true, "sla": true, "smtp": true, "sql": true, "ssh": true, "tcp": true,
	"tls": true, "ttl": true, "udp": true, "ui": true, "uid": true, "uuid": true,
	"uri": true, "url": true, "utf8": true, "vm": true, "xml": true, "xmpp": true,
	"xsrf": true, "xss": true, "sha": true, "jwt": true, "mcp": true, "llm": true,
	"i2c": true, "spi": true,
	"ids": false, // "IDs", handled below
}

// laterInitialisms are the initialisms that earlier generators spelled as
// words (I2c, Spi). A tool whose Go name they change keeps its earlier Go
// names as deprecated aliases (see exportedBefore).
var laterInitialisms = map[string]bool{"i2c": true, "spi": true}

// laterSpellings are laterInitialisms as Go spells them, sorted.
func laterSpellings() []string {
	var out []string
	for w := range laterInitialisms {
		out = append(out, strings.ToUpper(w))
	}
	slices.Sort(out)
	return out
}

// words splits a name written in snake_case, kebab-case, dotted or
// camelCase into lower-case words.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 &&
			(unicode.IsLower(cur[len(cur)-1]) || unicode.IsDigit(cur[len(cur)-1]) ||
				(i+1 < len(rs) && unicode.IsLower(rs[i+1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// exported turns a catalog or JSON name into an exported Go identifier:
// search_articles → SearchArticles, user_id → UserID, api-url → APIURL.
func exported(s string) string { return exportedAs(s, nil) }

// exportedBefore is exported(s) as generators spelled it before
// laterInitialisms were initialisms: read_i2c_register → ReadI2cRegister.
func exportedBefore(s string) string { return exportedAs(s, laterInitialisms) }

// exportedAs is exported(s), spelling the words of asWords as words.
func exportedAs(s string, asWords map[string]bool) string {
	var b strings.Builder
	for _, w := range words(s) {
		switch {
		case initialisms[w] && !asWords[w]:
			b.WriteString(strings.ToUpper(w))
		case w == "ids":
			b.WriteString("IDs")
		default:
			rs := []rune(w)
			rs[0] = unicode.ToUpper(rs[0])
			b.WriteString(string(rs))
		}
	}
	id := b.String()
	if id == "" {
		return "X"
	}
	// Non-ASCII letters are valid Go, but keep to what every editor types.
	id = strings.Map(func(r rune) rune {
		if r < 0x80 {
			return r
		}
		return -1
	}, id)
	// What is left must start with a capital, or the identifier is not
	// exported (Ünï leaves n) and encoding/json cannot set the field.
	if id == "" || !unicode.IsUpper(rune(id[0])) {
		id = "X" + id
	}
	if !token.IsIdentifier(id) {
		return "X"
	}
	return id
}

// unexported turns a name into an unexported Go identifier that is not a
// keyword: search_articles → searchArticles, url_fetch → urlFetch.
func unexported(s string) string {
	return lowerIdent(exported(s))
}

// lowerIdent is unexported for id, an exported identifier: its leading
// capitals lowered, the last one kept when a word follows (URLPath →
// urlPath).
func lowerIdent(id string) string {
	rs := []rune(id)
	i := 0
	for i < len(rs) && unicode.IsUpper(rs[i]) {
		i++
	}
	switch {
	case i == len(rs):
		id = strings.ToLower(id)
	case i > 1:
		id = strings.ToLower(string(rs[:i-1])) + string(rs[i-1:])
	default:
		id = strings.ToLower(string(rs[:1])) + string(rs[1:])
	}
	if token.IsKeyword(id) || goReserved[id] {
		id += "_"
	}
	return id
}

// importNames are the names of the packages that generated and scaffolded
// files import. Go gives a file's imports and its package's declarations
// one name space, so no declaration of the package may use one.
var importNames = []string{
	"context", "json", "fmt", "math", "regexp", "strings", "time", "utf8",
	"runtime", "jsonscan", "conformance", "testing",
}

// goReserved are the lower-case names a declaration of the package must
// not take: the predeclared identifiers, which generated code uses and a
// declaration would shadow, init, which only a function may be called,
// and the imported packages' names. An unexported name that is one of
// them gets a trailing _ (runtime → runtime_).
var goReserved = func() map[string]bool {
	m := map[string]bool{"init": true}
	for _, id := range []string{
		"any", "bool", "byte", "comparable", "complex64", "complex128", "error",
		"float32", "float64", "int", "int8", "int16", "int32", "int64", "rune",
		"string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
		"true", "false", "iota", "nil",
		"append", "cap", "clear", "close", "complex", "copy", "delete", "imag",
		"len", "make", "max", "min", "new", "panic", "print", "println", "real", "recover",
	} {
		m[id] = true
	}
	for _, id := range importNames {
		m[id] = true
	}
	return m
}()

// namer hands out unique identifiers within one scope; a name asked for
// twice gets a numeric suffix, in the order of the requests, which the
// generator makes deterministic.
type namer struct {
	used map[string]bool
	// log, when not nil, collects the names handed out.
	log *[]string
	// sep goes between a name and its suffix: none for identifiers
	// (Search2), _ for file names (search_2).
	sep string
}

func newNamer(reserved ...string) *namer {
	n := &namer{used: map[string]bool{}}
	for _, r := range reserved {
		n.used[r] = true
	}
	return n
}

func (n *namer) name(want string) string {
	got := want
	for i := 2; n.used[got]; i++ {
		got = want + n.sep + strconv.Itoa(i)
	}
	n.used[got] = true
	if n.log != nil {
		*n.log = append(*n.log, got)
	}
	return got
}
