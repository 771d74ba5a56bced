package discovery

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTokenBytes is the longest token kept; longer runs of letters (a hash,
// base64, a run of ideographs without spaces) are dropped.
const maxTokenBytes = 48

// tokenizer splits text into lower-case stemmed terms. It is not safe for
// concurrent use; an Index keeps one per Search call in its pool.
type tokenizer struct {
	word []byte // the current word, lower-cased
	part []byte // one part of a word being split
}

// emit is called once per term; the slice is only valid during the call.
type emitFunc func(term []byte)

// tokens calls emit for each term of s. Words are runs of letters, digits
// and combining marks; they split further at camelCase humps (getUser,
// HTTPServer), at boundaries between letters and digits (s3 → s, 3) and
// around each ideograph (Han, Hiragana, Katakana), which stands alone. A
// word that mixes letters and digits is also emitted whole (s3, oauth2).
// Parts are lower-cased, stop words dropped and the rest stemmed.
//
// Three kinds of things in requests become the word for what they are: a
// URL (scheme://...) becomes "url", an e-mail address "email" after its
// local part, and a file name with a common extension (notes.txt) its
// name's words and "file".
func (t *tokenizer) tokens(s string, emit emitFunc) {
	start := -1
	flush := func(end int) {
		if start >= 0 {
			t.word1(s[start:end], emit)
			start = -1
		}
	}
	for i := 0; i < len(s); {
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

// word1 splits one word (no separators) into its parts.
func (t *tokenizer) word1(w string, emit emitFunc) {
	if len(w) > 4*maxTokenBytes {
		return
	}
	letters, digits := false, false
	partStart := 0
	prev, prevPrev := classOther, classOther
	for i, r := range w {
		c := classOf(r)
		switch c {
		case classDigit:
			digits = true
		case classLower, classUpper:
			letters = true
		}
		if i > 0 && c != classOther && prev != classOther {
			boundary := false
			switch {
			case (c == classDigit) != (prev == classDigit):
				boundary = true // s3, v2beta
			case c == classUpper && prev == classLower:
				boundary = true // getUser
			case c == classLower && prev == classUpper && prevPrev == classUpper:
				// HTTPServer: the last capital starts the next part.
				j := i - utf8RuneLenBefore(w, i)
				if j > partStart {
					t.part1(w[partStart:j], emit)
					partStart = j
				}
			}
			if boundary {
				t.part1(w[partStart:i], emit)
				partStart = i
			}
		}
		if c != classOther {
			prevPrev, prev = prev, c
		}
	}
	t.part1(w[partStart:], emit)
	if letters && digits {
		t.whole(w, emit)
	}
}

func utf8RuneLenBefore(s string, i int) int {
	_, n := utf8.DecodeLastRuneInString(s[:i])
	return n
}

// part1 lower-cases, filters and stems one part.
func (t *tokenizer) part1(p string, emit emitFunc) {
	t.part = t.part[:0]
	for _, r := range p {
		t.part = utf8.AppendRune(t.part, unicode.ToLower(r))
	}
	if len(t.part) == 0 || len(t.part) > maxTokenBytes || stopWords[string(t.part)] {
		return
	}
	emit(stem(t.part))
}

// whole emits a word mixing letters and digits as one lower-case term, not
// stemmed.
func (t *tokenizer) whole(w string, emit emitFunc) {
	t.word = t.word[:0]
	for _, r := range w {
		t.word = utf8.AppendRune(t.word, unicode.ToLower(r))
	}
	if len(t.word) <= maxTokenBytes {
		emit(t.word)
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
		"s", "t", "d", "ll", "re", "ve", "m",
	} {
		m[w] = true
	}
	return m
}()
