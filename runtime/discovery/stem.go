package discovery

// This file holds an English stemmer: the Porter2 ("English Snowball")
// algorithm, written for lower-case ASCII words. Words with other characters
// are returned as they are, so identifiers and words of other languages still
// match themselves exactly.

// stem returns the stem of w. It works in place: the result shares w's
// backing array and is never longer than w.
func stem(w []byte) []byte {
	if len(w) <= 2 || !asciiLower(w) {
		return w
	}
	if s, ok := stemExceptions1[string(w)]; ok {
		return append(w[:0], s...)
	}
	// Mark the y that act as consonants: at the start and after a vowel.
	for i := range w {
		if w[i] == 'y' && (i == 0 || isVowel(w[i-1])) {
			w[i] = 'Y'
		}
	}
	r1, r2 := regions(w)

	w = step0(w)
	w = step1a(w)
	if stemExceptions2[string(w)] {
		return unmarkY(w)
	}
	w = step1b(w, r1)
	w = step1c(w)
	w = step2(w, r1)
	w = step3(w, r1, r2)
	w = step4(w, r2)
	w = step5(w, r1, r2)
	return unmarkY(w)
}

func asciiLower(w []byte) bool {
	for _, c := range w {
		if (c < 'a' || c > 'z') && c != '\'' {
			return false
		}
	}
	return true
}

func unmarkY(w []byte) []byte {
	for i, c := range w {
		if c == 'Y' {
			w[i] = 'y'
		}
	}
	return w
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

// regions returns the starts of R1 and R2: R1 follows the first non-vowel
// that follows a vowel, R2 is the same within R1. Three prefixes set R1
// directly.
func regions(w []byte) (r1, r2 int) {
	r1 = len(w)
	switch {
	case hasPrefix(w, "gener"), hasPrefix(w, "arsen"):
		r1 = 5
	case hasPrefix(w, "commun"):
		r1 = 6
	default:
		r1 = regionAfter(w, 0)
	}
	r2 = regionAfter(w, r1)
	return r1, r2
}

func regionAfter(w []byte, from int) int {
	for i := from + 1; i < len(w); i++ {
		if !isVowel(w[i]) && isVowel(w[i-1]) {
			return i + 1
		}
	}
	return len(w)
}

func hasPrefix(w []byte, p string) bool {
	return len(w) >= len(p) && string(w[:len(p)]) == p
}

func hasSuffix(w []byte, s string) bool {
	return len(w) >= len(s) && string(w[len(w)-len(s):]) == s
}

// longest returns the longest of suffixes that w ends with, or "".
// Suffixes are listed longest first.
func longest(w []byte, suffixes ...string) string {
	for _, s := range suffixes {
		if hasSuffix(w, s) {
			return s
		}
	}
	return ""
}

func replace(w []byte, suffix, with string) []byte {
	return append(w[:len(w)-len(suffix)], with...)
}

func containsVowel(w []byte) bool {
	for _, c := range w {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// shortSyllableAt reports whether w ends in a short syllable: a vowel
// followed by a non-vowel other than w, x or Y and preceded by a non-vowel,
// or, for a two-letter word, a vowel followed by a non-vowel.
func endsShortSyllable(w []byte) bool {
	n := len(w)
	if n == 2 {
		return isVowel(w[0]) && !isVowel(w[1])
	}
	if n < 3 {
		return false
	}
	c := w[n-1]
	return !isVowel(w[n-3]) && isVowel(w[n-2]) && !isVowel(c) && c != 'w' && c != 'x' && c != 'Y'
}

func step0(w []byte) []byte {
	if s := longest(w, "'s'", "'s", "'"); s != "" {
		return w[:len(w)-len(s)]
	}
	return w
}

func step1a(w []byte) []byte {
	switch s := longest(w, "sses", "ied", "ies", "us", "ss", "s"); s {
	case "sses":
		return replace(w, s, "ss")
	case "ied", "ies":
		if len(w)-len(s) > 1 {
			return replace(w, s, "i")
		}
		return replace(w, s, "ie")
	case "s":
		// Delete if the part before the letter before the s has a vowel.
		if len(w) >= 3 && containsVowel(w[:len(w)-2]) {
			return w[:len(w)-1]
		}
	}
	return w
}

func step1b(w []byte, r1 int) []byte {
	switch s := longest(w, "eedly", "ingly", "edly", "eed", "ing", "ed"); s {
	case "":
		return w
	case "eed", "eedly":
		if len(w)-len(s) >= r1 {
			return replace(w, s, "ee")
		}
		return w
	default:
		stem := w[:len(w)-len(s)]
		if !containsVowel(stem) {
			return w
		}
		w = stem
		switch {
		case hasSuffix(w, "at"), hasSuffix(w, "bl"), hasSuffix(w, "iz"):
			return append(w, 'e')
		case endsDouble(w):
			return w[:len(w)-1]
		case r1 >= len(w) && endsShortSyllable(w):
			return append(w, 'e')
		}
		return w
	}
}

func endsDouble(w []byte) bool {
	n := len(w)
	if n < 2 || w[n-1] != w[n-2] {
		return false
	}
	switch w[n-1] {
	case 'b', 'd', 'f', 'g', 'm', 'n', 'p', 'r', 't':
		return true
	}
	return false
}

func step1c(w []byte) []byte {
	n := len(w)
	if n > 2 && (w[n-1] == 'y' || w[n-1] == 'Y') && !isVowel(w[n-2]) {
		w[n-1] = 'i'
	}
	return w
}

var step2Suffixes = []string{
	"ization", "ational", "fulness", "ousness", "iveness",
	"tional", "biliti", "lessli",
	"entli", "ation", "alism", "aliti", "ousli", "iviti", "fulli",
	"enci", "anci", "abli", "izer", "ator", "alli",
	"bli", "ogi", "li",
}

func step2(w []byte, r1 int) []byte {
	s := longest(w, step2Suffixes...)
	if s == "" || len(w)-len(s) < r1 {
		return w
	}
	switch s {
	case "tional":
		return replace(w, s, "tion")
	case "enci":
		return replace(w, s, "ence")
	case "anci":
		return replace(w, s, "ance")
	case "abli":
		return replace(w, s, "able")
	case "entli":
		return replace(w, s, "ent")
	case "izer", "ization":
		return replace(w, s, "ize")
	case "ational", "ation", "ator":
		return replace(w, s, "ate")
	case "alism", "aliti", "alli":
		return replace(w, s, "al")
	case "fulness":
		return replace(w, s, "ful")
	case "ousli", "ousness":
		return replace(w, s, "ous")
	case "iveness", "iviti":
		return replace(w, s, "ive")
	case "biliti", "bli":
		return replace(w, s, "ble")
	case "ogi":
		if hasSuffix(w, "logi") {
			return replace(w, s, "og")
		}
	case "fulli":
		return replace(w, s, "ful")
	case "lessli":
		return replace(w, s, "less")
	case "li":
		if n := len(w); n >= 3 && validLiEnding(w[n-3]) {
			return w[:n-2]
		}
	}
	return w
}

func validLiEnding(c byte) bool {
	switch c {
	case 'c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't':
		return true
	}
	return false
}

func step3(w []byte, r1, r2 int) []byte {
	s := longest(w, "ational", "tional", "alize", "icate", "iciti", "ative", "ical", "ness", "ful")
	if s == "" || len(w)-len(s) < r1 {
		return w
	}
	switch s {
	case "tional":
		return replace(w, s, "tion")
	case "ational":
		return replace(w, s, "ate")
	case "alize":
		return replace(w, s, "al")
	case "icate", "iciti", "ical":
		return replace(w, s, "ic")
	case "ful", "ness":
		return w[:len(w)-len(s)]
	case "ative":
		if len(w)-len(s) >= r2 {
			return w[:len(w)-len(s)]
		}
	}
	return w
}

var step4Suffixes = []string{
	"ement", "ance", "ence", "able", "ible", "ment",
	"ant", "ent", "ism", "ate", "iti", "ous", "ive", "ize", "ion",
	"al", "er", "ic",
}

func step4(w []byte, r2 int) []byte {
	s := longest(w, step4Suffixes...)
	if s == "" || len(w)-len(s) < r2 {
		return w
	}
	if s == "ion" {
		if n := len(w) - 3; n >= 1 && (w[n-1] == 's' || w[n-1] == 't') {
			return w[:n]
		}
		return w
	}
	return w[:len(w)-len(s)]
}

func step5(w []byte, r1, r2 int) []byte {
	n := len(w)
	switch {
	case n > 0 && w[n-1] == 'e':
		if n-1 >= r2 || (n-1 >= r1 && !endsShortSyllable(w[:n-1])) {
			return w[:n-1]
		}
	case n > 1 && w[n-1] == 'l' && w[n-2] == 'l' && n-1 >= r2:
		return w[:n-1]
	}
	return w
}

var stemExceptions1 = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli",
	"singly": "singl",
	"sky":    "sky", "news": "news", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos",
	"bias": "bias", "andes": "andes",
}

var stemExceptions2 = map[string]bool{
	"inning": true, "outing": true, "canning": true, "herring": true, "earring": true,
	"proceed": true, "exceed": true, "succeed": true,
}
