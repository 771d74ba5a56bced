package discovery

import "strings"

// phrasalVerbs are two-word verbs whose meaning is not that of their first
// word ("set up" is to create, not to set), by what a request's words are
// read as instead.
var phrasalVerbs = map[[2]string]string{
	{"set", "up"}:     "create setup",
	{"spin", "up"}:    "create start",
	{"kick", "off"}:   "start run",
	{"call", "off"}:   "cancel",
	{"turn", "on"}:    "enable",
	{"turn", "off"}:   "disable",
	{"switch", "on"}:  "enable",
	{"switch", "off"}: "disable",
	{"look", "up"}:    "find lookup",
	{"roll", "back"}:  "rollback revert",
	{"shut", "down"}:  "stop shutdown",
	{"take", "down"}:  "stop",
	{"sign", "in"}:    "login",
	{"log", "in"}:     "login",
	{"sign", "out"}:   "logout",
	{"log", "out"}:    "logout",
	{"clean", "up"}:   "cleanup delete",
	{"fill", "in"}:    "fill",
	{"fill", "out"}:   "fill",
	{"find", "out"}:   "find",
	{"back", "up"}:    "backup",
	{"sign", "up"}:    "signup register",
	{"bring", "up"}:   "show",
	{"pull", "up"}:    "show",
	{"hand", "over"}:  "transfer",
	{"write", "down"}: "write note",
	{"put", "off"}:    "postpone",
	{"come", "up"}:    "upcoming",
	{"coming", "up"}:  "upcoming",
	{"went", "out"}:   "shipped deployed",
	{"go", "out"}:     "ship deploy",
	{"up", "to"}:      "", // "up to date", below
	{"to", "date"}:    "update",
	{"check", "out"}:  "checkout",
	{"sort", "out"}:   "fix",
	{"get", "rid"}:    "delete",
	{"throw", "away"}: "discard delete",
	{"rid", "of"}:     "",
	{"keep", "track"}: "track",
	{"make", "sure"}:  "check",
	{"mouse", "over"}: "hover",
	{"how", "many"}:   "how many count",
}

// rewriteQuery reads a request's phrasal verbs as the words they mean. It
// returns q itself when there is nothing to do.
func rewriteQuery(q string) string {
	var b *strings.Builder
	prev, prevStart, prevEnd := "", 0, 0
	last := 0 // of q, copied to b so far
	for i := 0; i < len(q); {
		if !isASCIILetter(q[i]) {
			i++
			continue
		}
		start := i
		for i < len(q) && isASCIILetter(q[i]) {
			i++
		}
		w := q[start:i]
		if r, ok := phrasalVerbs[[2]string{lowerWord(prev), lowerWord(w)}]; ok && prev != "" && onlySpace(q[prevEnd:start]) && on(featPhrasal) {
			if b == nil {
				b = &strings.Builder{}
			}
			b.WriteString(q[last:prevStart])
			b.WriteString(r)
			last = i
			prev = ""
			continue
		}
		prev, prevStart, prevEnd = w, start, i
	}
	if b == nil {
		return q
	}
	b.WriteString(q[last:])
	return b.String()
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func onlySpace(s string) bool { return strings.TrimLeft(s, " \t") == "" }

// lowerWord lower-cases an ASCII word, without allocating when it is
// lower case already.
func lowerWord(w string) string {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(w)
		}
	}
	return w
}
