package discovery

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTokenBytes is the longest token kept; longer runs of letters (a hash,
// base64, a run of ideographs without spaces) are dropped.
const maxTokenBytes = 48

// tokenizer splits text into lower-case terms. It is not safe for
// concurrent use; an Index keeps one per Search call in its pool.
type tokenizer struct {
	joined []byte // a whole word, lower-cased
	part   []byte // one part of a word being split
}

// emit is called once per term; the slice is only valid during the call.
type emitFunc func(term []byte)

// tokens calls emit for each term of s. Words are runs of letters, digits
// and combining marks; they split further at camelCase humps (getUser,
// HTTPServer), at boundaries between letters and digits (s3 → s, 3) and
// around each ideograph (Han, Hiragana, Katakana), which stands alone. A
// part of letters followed by one of digits is also emitted joined (s3,
// oauth2); numbers alone are dropped. Parts are lower-cased and stop
// words dropped.
//
// Three kinds of things in requests become the word for what they are: a
// URL (scheme://...) becomes "url", an e-mail address "email" after its
// local part, and a file name with a common extension (notes.txt) its
// name's words and "file".
func (t *tokenizer) tokens(s string, emit emitFunc) {
	t.scan(s, func(w string) { t.word1(w, emit) }, emit)
}

// scan calls word with each word of s and emit with the terms that stand
// for something else than a word (ideographs, URLs, ...).
func (t *tokenizer) scan(s string, word func(w string), emit emitFunc) {
	start := -1
	flush := func(end int) {
		if start >= 0 {
			word(s[start:end])
			start = -1
		}
	}
	for i := 0; i < len(s); {
		if c := s[i]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			if start < 0 {
				start = i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isIdeograph(r):
			flush(i)
			t.part = utf8.AppendRune(t.part[:0], unicode.ToLower(r))
			emit(t.part)
		case isWordRune(r):
			if start < 0 {
				start = i
			}
		case !on(featSpecialTokens) && (r == ':' || r == '@' || r == '.'):
			flush(i)
		case r == ':' && start >= 0 && strings.HasPrefix(s[i:], "://") && isScheme(s[start:i]):
			start = -1
			t.part1("url", emit)
			i = skipNonSpace(s, i)
			continue
		case r == '@' && start >= 0 && isEmailDomain(s[i+1:]):
			flush(i)
			t.part1("email", emit)
			i = skipNonSpace(s, i)
			continue
		case r == '.' && start >= 0:
			flush(i)
			if n := fileExtension(s[i+1:]); n > 0 {
				t.part1("file", emit)
				i += 1 + n
				continue
			}
		default:
			flush(i)
		}
		i += size
	}
	flush(len(s))
}

func isScheme(w string) bool {
	switch strings.ToLower(w) {
	case "http", "https", "ftp", "ftps", "ws", "wss", "file", "s3", "gs", "git", "ssh":
		return true
	}
	return false
}

// skipNonSpace returns the offset of the first space or quote at or after i.
func skipNonSpace(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) || strings.ContainsRune("\"'<>()[]{}", r) {
			return i
		}
		i += size
	}
	return i
}

// isEmailDomain reports whether s starts with a domain: letters, digits,
// hyphens and at least one inner dot.
func isEmailDomain(s string) bool {
	dot := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-':
		case c == '.' && i > 0 && i+1 < len(s) && s[i+1] != '.':
			dot = true
		default:
			return dot && i > 0 && s[i-1] != '.'
		}
	}
	return dot && s[len(s)-1] != '.'
}

// fileExtension returns the length of the common file extension s starts
// with, if the extension ends there, or 0.
func fileExtension(s string) int {
	n := 0
	for n < len(s) && n <= 5 && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || s[n] >= '0' && s[n] <= '9') {
		n++
	}
	if n == 0 || n > 5 {
		return 0
	}
	if n < len(s) {
		if r, _ := utf8.DecodeRuneInString(s[n:]); isWordRune(r) {
			return 0
		}
	}
	if !fileExtensions[strings.ToLower(s[:n])] {
		return 0
	}
	return n
}

var fileExtensions = func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`txt md markdown rst go py js ts tsx jsx rs java kt c h cc cpp hpp cs rb php swift
		json yaml yml toml ini cfg conf xml csv tsv log sql sh bash zsh ps1 bat
		html htm css scss svg png jpg jpeg gif webp bmp ico pdf doc docx xls xlsx ppt pptx odt
		zip tar gz tgz bz2 xz 7z rar mp3 wav mp4 mov avi mkv ipynb lock proto mod sum`) {
		m[e] = true
	}
	return m
}()

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func isIdeograph(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r))
}

type runeClass uint8

const (
	classOther runeClass = iota
	classLower
	classUpper
	classDigit
)

func classOf(r rune) runeClass {
	if r < utf8.RuneSelf {
		switch {
		case r >= 'a' && r <= 'z':
			return classLower
		case r >= 'A' && r <= 'Z':
			return classUpper
		case r >= '0' && r <= '9':
			return classDigit
		}
		return classOther
	}
	switch {
	case unicode.IsDigit(r):
		return classDigit
	case unicode.IsUpper(r), unicode.IsTitle(r):
		return classUpper
	case unicode.IsLetter(r):
		return classLower
	}
	return classOther // combining marks: they continue what precedes
}

// word1 splits one word (no separators) into its parts. A part of letters
// followed by one of digits is also emitted joined (s3, ec2, oauth2).
func (t *tokenizer) word1(w string, emit emitFunc) {
	if len(w) > 4*maxTokenBytes {
		return
	}
	partStart, joinStart := 0, -1
	prev, prevPrev := classOther, classOther
	endPart := func(end int) {
		t.part1(w[partStart:end], emit)
		if joinStart >= 0 && prev == classDigit {
			t.whole(w[joinStart:end], emit)
			joinStart = -1
		}
		partStart = end
	}
	for i, r := range w {
		c := classOf(r)
		if i > 0 && c != classOther && prev != classOther {
			switch {
			case c == classDigit && prev != classDigit:
				joinStart = partStart // s3, v2beta
				endPart(i)
			case c != classDigit && prev == classDigit:
				endPart(i)
			case c == classUpper && prev == classLower:
				endPart(i) // getUser
			case c == classLower && prev == classUpper && prevPrev == classUpper:
				// HTTPServer: the last capital starts the next part.
				if j := i - utf8RuneLenBefore(w, i); j > partStart {
					endPart(j)
				}
			}
		}
		if c != classOther {
			prevPrev, prev = prev, c
		}
	}
	endPart(len(w))
}

func allDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// appendLower appends s lower-cased to b.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			for _, r := range s[i:] {
				b = utf8.AppendRune(b, unicode.ToLower(r))
			}
			return b
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

func utf8RuneLenBefore(s string, i int) int {
	_, n := utf8.DecodeLastRuneInString(s[:i])
	return n
}

// part1 lower-cases and filters one part. Numbers are dropped: in
// a request they are values (ticket 42, 3pm, 100 dollars), not what the
// tool does; a word joining letters and digits (s3, oauth2) is kept whole.
func (t *tokenizer) part1(p string, emit emitFunc) {
	t.part = appendLower(t.part[:0], p)
	if len(t.part) == 0 || len(t.part) > maxTokenBytes || allDigits(p) {
		return
	}
	if on(featStopWords) && stopWords[string(t.part)] {
		return
	}
	emit(t.part)
}

// whole emits a word mixing letters and digits as one lower-case term.
func (t *tokenizer) whole(w string, emit emitFunc) {
	t.joined = appendLower(t.joined[:0], w)
	if len(t.joined) <= maxTokenBytes {
		emit(t.joined)
	}
}

// stopWords are dropped from documents and queries alike: function words
// and what people put around a request ("can you please ...").
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "an", "the", "and", "or", "but", "nor", "of", "to", "in", "on", "at", "by",
		"for", "with", "from", "into", "onto", "as", "about", "via", "per",
		"is", "are", "was", "were", "be", "been", "being", "am",
		"it", "its", "this", "that", "these", "those", "there", "here",
		"i", "me", "my", "mine", "we", "us", "our", "you", "your", "he", "she",
		"him", "her", "his", "they", "them", "their",
		"do", "does", "did", "can", "could", "would", "should", "will", "shall",
		"may", "might", "must", "please", "want", "need", "like", "let", "lets",
		"what", "which", "who", "whom", "whose", "how", "when", "where", "why",
		"some", "any", "all", "each", "every", "so", "than", "then", "too", "very",
		"if", "else", "also", "just", "only", "not", "no", "yes", "hey", "hi",
		"called", "s", "t", "d", "ll", "re", "ve", "m", "have", "has", "had",
	} {
		m[w] = true
	}
	return m
}()
