package toolscan

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// scan is the check of one field's text.
type scan struct {
	field string
	orig  string
	ctx   *Context
	found []Finding
	weak  []bool // weak[i]: found[i] is weak (see pattern.weak)
}

// maxDepth bounds how deep decoded text (a blob, tag characters) is
// checked again.
const maxDepth = 2

func (s *scan) add(c Class, start, end int, msg string) { s.addMatch(c, start, end, msg, false) }

func (s *scan) addMatch(c Class, start, end int, msg string, weak bool) {
	s.found = append(s.found, Finding{Class: c, Field: s.field, Start: start, End: end, Excerpt: excerpt(s.orig, start, end), Message: msg})
	s.weak = append(s.weak, weak)
}

// dropWeak drops the findings when all of them are weak and of one class,
// unless the text is a value the model sends (a default, constant or enum
// value): a default of ~/.ssh/id_rsa is no example.
func (s *scan) dropWeak() {
	if isValueField(s.field) {
		return
	}
	classes := map[Class]bool{}
	for i, w := range s.weak {
		if !w {
			return
		}
		classes[s.found[i].Class] = true
	}
	// Weak signals of two kinds (a note to the model naming a sensitive
	// file) stand together.
	if len(classes) >= 2 {
		return
	}
	s.found, s.weak = nil, nil
}

// sorted returns the findings by position, dropping a finding that lies
// within an earlier one of the same class.
func (s *scan) sorted() []Finding {
	slices.SortStableFunc(s.found, func(a, b Finding) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	out := s.found[:0]
	for _, f := range s.found {
		if slices.ContainsFunc(out, func(g Finding) bool { return g.Class == f.Class && g.Start <= f.Start && f.End <= g.End }) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// isValueField reports whether a schema text is a value rather than
// prose: under default, const, enum or examples.
func isValueField(field string) bool {
	parts := strings.Split(field, "/")
	for i := len(parts) - 1; i >= max(0, len(parts)-2); i-- {
		switch parts[i] {
		case "default", "const", "enum", "examples", "example":
			return true
		}
	}
	return false
}

func (s *scan) run(depth int) {
	s.hidden(depth)
	s.mixedScripts()
	f := fold(s.orig)
	for _, m := range matches(f.s, s.ctx) {
		start, end := f.span(m.start, m.end)
		s.addMatch(m.class, start, end, m.msg, m.weak)
	}
	// A value written as one identifier (an enum value, a default) is
	// read as the words it joins: silently_copy_to_admin.
	if !strings.ContainsAny(f.s, " \t\n") && strings.ContainsAny(f.s, "_-") {
		words := strings.NewReplacer("_", " ", "-", " ").Replace(f.s)
		for _, m := range matches(words, nil) {
			if m.class == ToolSteering {
				continue
			}
			start, end := f.span(m.start, m.end)
			s.addMatch(m.class, start, end, m.msg, m.weak)
		}
	}
	s.blobs(depth)
	s.dropWeak()
}

// match is a pattern's match in folded text.
type match struct {
	class      Class
	start, end int
	msg        string
	weak       bool
}

// matches runs every pattern over folded text. A match that names a tool
// the context knows is no finding.
func matches(text string, c *Context) []match {
	var out []match
	for _, set := range [][]pattern{patterns, foreignLanguage} {
		for _, pt := range set {
			if !mayMatch(text, pt.lits) {
				continue
			}
			for _, m := range pt.re.FindAllStringSubmatchIndex(text, 8) {
				if tool := toolGroup(pt.re, text, m); tool != "" && (!isToolName(tool, c) || pt.foreignOnly && !c.other(tool)) {
					continue
				} else if tool == "" && pt.foreignOnly {
					continue
				}
				out = append(out, match{pt.class, m[0], m[1], pt.msg, pt.weak})
			}
		}
	}
	return out
}

// isToolName reports whether a name a steering order gives is a tool the
// context does not know: not the tool itself, its siblings, dependencies
// or fallback, not one of its arguments, and not a file, a path or an
// address.
func isToolName(name string, c *Context) bool {
	if len(name) < 3 || c.known(name) || strings.ContainsAny(name, "/@") {
		return false
	}
	if c != nil && slices.ContainsFunc(c.Arguments, func(a string) bool { return sameName(a, name) }) {
		return false
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 && notToolSuffix[name[i+1:]] {
		return false
	}
	return !notTools[name]
}

// notToolSuffix are endings of file names and host names, not tools.
var notToolSuffix = map[string]bool{
	"json": true, "yaml": true, "yml": true, "md": true, "txt": true, "csv": true, "js": true, "ts": true, "py": true,
	"go": true, "com": true, "org": true, "net": true, "io": true, "dev": true, "html": true, "xml": true, "toml": true,
	"env": true, "log": true, "sh": true, "ini": true, "cfg": true, "conf": true, "lock": true, "zip": true, "pdf": true,
}

// notTools are quoted words that orders mention and that name no tool.
var notTools = map[string]bool{
	"this": true, "that": true, "these": true, "it": true, "them": true, "the": true, "and": true, "or": true,
	"true": true, "false": true, "null": true, "none": true, "all": true, "any": true, "yes": true, "no": true,
	"e.g": true, "i.e": true, "etc": true, "vs": true, "a.k.a": true, "u.s": true,
}

// hidden reports runs of invisible characters; tag characters, which
// spell ASCII invisibly, are decoded and checked again.
func (s *scan) hidden(depth int) {
	text := s.orig
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !invisible(r) || benignInvisible(text, i, r) {
			i += n
			continue
		}
		start := i
		var tags strings.Builder
		var kinds []string
		for i < len(text) {
			r, n := utf8.DecodeRuneInString(text[i:])
			if !invisible(r) || benignInvisible(text, i, r) {
				break
			}
			if r >= 0xE0020 && r <= 0xE007E {
				tags.WriteByte(byte(r - 0xE0000))
			}
			if k := invisibleKind(r); !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
			i += n
		}
		msg := fmt.Sprintf("%d invisible characters (%s) the user does not see", utf8.RuneCountInString(text[start:i]), strings.Join(kinds, ", "))
		if start+utf8.RuneLen(r) == i {
			msg = fmt.Sprintf("invisible character %U (%s) the user does not see", []rune(text[start:i])[0], kinds[0])
		}
		if t := tags.String(); t != "" {
			msg += fmt.Sprintf(": they spell %q", clip(t, 60))
			if depth < maxDepth {
				if ms := matches(fold(t).s, s.ctx); len(ms) > 0 && !ms[0].weak {
					msg += ", which reads as: " + ms[0].msg
				}
			}
		}
		s.add(HiddenText, start, i, msg)
	}
}

func invisibleKind(r rune) string {
	switch {
	case r >= 0xE0000 && r <= 0xE007F:
		return "tag characters"
	case r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C:
		return "bidirectional controls"
	case r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF:
		return "variation selectors"
	case r < 0x20 || r >= 0x7F && r < 0xA0:
		return "control characters"
	}
	return "zero-width or format characters"
}

// mixedScripts reports words that mix Latin letters with Cyrillic or
// Greek ones: the look-alike spelling that slips past word lists.
func (s *scan) mixedScripts() {
	text := s.orig
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			i += n
			continue
		}
		start := i
		scripts := map[string]bool{}
		for i < len(text) {
			r, n := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsLetter(r) && !unicode.IsMark(r) && !invisible(r) {
				break
			}
			if sc := script(r); sc != "" {
				scripts[sc] = true
			}
			i += n
		}
		if scripts["Latin"] && (scripts["Cyrillic"] || scripts["Greek"]) {
			other := "Cyrillic"
			if !scripts["Cyrillic"] {
				other = "Greek"
			}
			s.add(HiddenText, start, i, fmt.Sprintf("word mixes Latin and %s letters, a look-alike spelling", other))
		}
	}
}

var (
	base64Run = regexp.MustCompile(`[A-Za-z0-9+/_-]{32,}={0,2}`)
	hexRun    = regexp.MustCompile(`\b(?:0x)?[0-9A-Fa-f]{32,}\b`)
	escapeRun = regexp.MustCompile(`(?i)(?:\\x[0-9a-f]{2}){6,}|(?:\\u[0-9a-f]{4}){6,}|(?:%[0-9a-f]{2}){8,}|(?:&#x?[0-9a-f]{2,6};){6,}|(?:\\[0-7]{3}){6,}`)
)

// blobs reports encoded runs: a base64 or hex run that decodes to text,
// or one long enough to carry a payload whatever it decodes to, and runs
// of escapes. Decoded text is checked again.
func (s *scan) blobs(depth int) {
	text := s.orig
	for _, m := range base64Run.FindAllStringIndex(text, 32) {
		run := text[m[0]:m[1]]
		if !mixedClasses(run) {
			continue
		}
		dec, ok := decodeBase64(run)
		switch {
		case ok && readable(dec):
			s.add(EncodedBlob, m[0], m[1], s.decodedMessage("base64", dec, depth))
		case len(run) >= 120 && !strings.ContainsAny(run, "_"):
			s.add(EncodedBlob, m[0], m[1], fmt.Sprintf("%d-character base64-like run", len(run)))
		}
	}
	for _, m := range hexRun.FindAllStringIndex(text, 32) {
		run := strings.TrimPrefix(strings.TrimPrefix(text[m[0]:m[1]], "0x"), "0X")
		if len(run)%2 == 1 {
			run = run[:len(run)-1]
		}
		dec, err := hex.DecodeString(run)
		switch {
		case err == nil && readable(string(dec)):
			s.add(EncodedBlob, m[0], m[1], s.decodedMessage("hex", string(dec), depth))
		case len(run) > 128:
			s.add(EncodedBlob, m[0], m[1], fmt.Sprintf("%d-digit hex run", len(run)))
		}
	}
	for _, m := range escapeRun.FindAllStringIndex(text, 32) {
		dec := unescape(text[m[0]:m[1]])
		s.add(EncodedBlob, m[0], m[1], s.decodedMessage("escaped", dec, depth))
	}
}

func (s *scan) decodedMessage(kind, dec string, depth int) string {
	msg := fmt.Sprintf("%s text that decodes to %q", kind, clip(dec, 60))
	if depth < maxDepth {
		sub := &scan{field: s.field, orig: dec, ctx: s.ctx}
		sub.run(depth + 1)
		if len(sub.found) > 0 {
			msg += ", which reads as: " + sub.found[0].Message
		}
	}
	return msg
}

// mixedClasses reports whether a run holds upper and lower case letters
// and digits, as base64 does and words and identifiers seldom do.
func mixedClasses(s string) bool {
	var up, low, dig bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		up = up || c >= 'A' && c <= 'Z'
		low = low || c >= 'a' && c <= 'z'
		dig = dig || c >= '0' && c <= '9'
	}
	return up && low && dig
}

func decodeBase64(s string) (string, bool) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return string(b), true
		}
	}
	// A run cut from longer text: decode the longest prefix that is whole.
	t := strings.TrimRight(s, "=")
	t = t[:len(t)/4*4]
	if b, err := base64.StdEncoding.DecodeString(t); err == nil {
		return string(b), true
	}
	if b, err := base64.URLEncoding.DecodeString(t); err == nil {
		return string(b), true
	}
	return "", false
}

// readable reports decoded bytes that are text with words in it: valid
// UTF-8, printable, and with spaces between letters.
func readable(s string) bool {
	if len(s) < 16 || !utf8.ValidString(s) {
		return false
	}
	letters, spaces, bad := 0, 0, 0
	for _, r := range s {
		switch {
		case r == ' ':
			spaces++
		case unicode.IsLetter(r):
			letters++
		case r == '\n' || r == '\t' || unicode.IsPrint(r):
		default:
			bad++
		}
	}
	n := utf8.RuneCountInString(s)
	return bad == 0 && spaces >= 2 && letters*2 >= n
}

func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], `\x`) || strings.HasPrefix(s[i:], `\X`):
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(v))
			}
			i += 4
		case strings.HasPrefix(s[i:], `\u`) || strings.HasPrefix(s[i:], `\U`):
			if v, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
				b.WriteRune(rune(v))
			}
			i += 6
		case s[i] == '%':
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
			}
			i += 3
		case s[i] == '&':
			j := strings.IndexByte(s[i:], ';')
			if j < 0 {
				return b.String()
			}
			num := strings.TrimPrefix(s[i+2:i+j], "x")
			base := 10
			if num != s[i+2:i+j] || strings.HasPrefix(s[i+2:i+j], "X") {
				base = 16
				num = strings.TrimPrefix(num, "X")
			}
			if v, err := strconv.ParseUint(num, base, 32); err == nil {
				b.WriteRune(rune(v))
			}
			i += j + 1
		case s[i] == '\\' && i+4 <= len(s):
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
			}
			i += 4
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// excerpt quotes text[start:end] for a report, at most about 80
// characters, invisible ones escaped.
func excerpt(text string, start, end int) string {
	start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
	return strconv.QuoteToASCII(clip(text[start:end], 80))
}

// clip cuts s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
