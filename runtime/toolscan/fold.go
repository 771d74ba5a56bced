package toolscan

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// folded is a text as the patterns read it, with the way back to the
// original: off[i] is the byte offset in the original of folded byte i
// (off[len(s)] is the original's length).
type folded struct {
	s   string
	off []int
}

// span maps a folded byte range back to the original.
func (f *folded) span(i, j int) (int, int) {
	for j > i && j < len(f.s) && f.off[j] == f.off[j-1] {
		j++
	}
	return f.off[i], f.off[j]
}

// fold lowers text, maps compatibility forms (fullwidth, mathematical
// letters) to ASCII, maps typographic quotes and dashes to ASCII, drops
// invisible characters, and maps letters of other scripts that look like
// Latin ones to ASCII in the words that are made to look Latin (see
// [disguised]), keeping the offsets.
func fold(text string) *folded {
	var b strings.Builder
	b.Grow(len(text))
	off := make([]int, 0, len(text)+1)
	emit := func(s string, at int) {
		for k := 0; k < len(s); k++ {
			off = append(off, at)
		}
		b.WriteString(s)
	}
	wordEnd, mapWord := -1, false
	for i, r := range text {
		if invisible(r) {
			continue
		}
		if r < utf8.RuneSelf {
			if r >= 'A' && r <= 'Z' {
				r += 'a' - 'A'
			}
			off = append(off, i)
			b.WriteByte(byte(r))
			continue
		}
		if i >= wordEnd && unicode.IsLetter(r) {
			wordEnd, mapWord = disguised(text, i)
		}
		if a, ok := lookAlike[r]; ok && (mapWord || !unicode.IsLetter(r)) {
			emit(a, i)
			continue
		}
		if unicode.IsSpace(r) {
			emit(" ", i)
			continue
		}
		s := string(r)
		if isCompat(r) || !norm.NFKC.IsNormalString(s) {
			s = norm.NFKC.String(s)
		}
		emit(strings.ToLower(s), i)
	}
	off = append(off, len(text))
	return &folded{s: b.String(), off: off}
}

// disguised looks at the word starting at byte i of text (letters and
// invisible characters) and reports where it ends, and whether it is made
// to look Latin: it holds Latin letters beside look-alikes, or it is four
// letters or more of look-alikes only ("сору" in Cyrillic reads "copy").
func disguised(text string, i int) (end int, disguise bool) {
	latin, alike, other := 0, 0, 0
	end = len(text)
	for j, r := range text[i:] {
		if !unicode.IsLetter(r) && !unicode.IsMark(r) && !invisible(r) {
			end = i + j
			break
		}
		switch _, ok := lookAlike[r]; {
		case invisible(r) || unicode.IsMark(r):
		case r < utf8.RuneSelf || script(r) == "Latin":
			latin++
		case ok:
			alike++
		default:
			other++
		}
	}
	return end, alike > 0 && (latin > 0 || other == 0 && alike >= 4)
}

// isCompat reports runes that NFKC maps to ASCII though NFC keeps them:
// fullwidth forms and mathematical alphanumerics.
func isCompat(r rune) bool {
	return r >= 0xFF01 && r <= 0xFF5E || r >= 0x1D400 && r <= 0x1D7FF || r >= 0x2460 && r <= 0x24FF
}

// invisible reports characters that render as nothing (or reorder the
// text around them) yet reach the model: format characters, the tag
// block, variation selectors, controls other than tab and newlines.
func invisible(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20 || r >= 0x7F && r < 0xA0:
		return true
	case r == 0x00AD, r == 0x034F, r == 0x061C, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5, r == 0x180E, r == 0x3164, r == 0xFFA0:
		return true
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x206F, r == 0xFEFF:
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0000 && r <= 0xE007F, r >= 0xE0100 && r <= 0xE01EF:
		return true
	case r >= 0xFFF9 && r <= 0xFFFB:
		return true
	}
	return false
}

// benignInvisible reports invisible characters that real text uses: the
// zero-width joiner and variation selectors inside emoji sequences, a
// byte-order mark at the very start.
func benignInvisible(text string, i int, r rune) bool {
	switch {
	case r == 0xFEFF && i == 0:
		return true
	case r == 0x200D || r == 0xFE0F || r == 0xFE0E || r == 0x200C:
		prev, _ := utf8.DecodeLastRuneInString(text[:i])
		return prev != utf8.RuneError && (isPictograph(prev) || r == 0x200C && !isLatin(prev))
	}
	return false
}

func isPictograph(r rune) bool {
	return r >= 0x1F000 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF || r >= 0x2190 && r <= 0x21FF || r >= 0x2300 && r <= 0x23FF || r == 0x00A9 || r == 0x00AE || r >= 0x2B00 && r <= 0x2BFF
}

func isLatin(r rune) bool { return r < 0x250 }

// lookAlike maps letters of other scripts that look like Latin letters
// (the Cyrillic, Greek and Armenian ones of Unicode's confusables list
// that matter for English words), and typographic punctuation, to ASCII.
var lookAlike = map[rune]string{
	// Cyrillic
	'а': "a", 'в': "b", 'с': "c", 'ԁ': "d", 'е': "e", 'һ': "h", 'і': "i", 'ј': "j", 'к': "k", 'ӏ': "l", 'м': "m", 'н': "h",
	'о': "o", 'р': "p", 'ԛ': "q", 'ѕ': "s", 'т': "t", 'у': "y", 'ѡ': "w", 'х': "x", 'ү': "y", 'ԝ': "w", 'ɡ': "g",
	'А': "a", 'В': "b", 'С': "c", 'Е': "e", 'Н': "h", 'І': "i", 'Ј': "j", 'К': "k", 'М': "m", 'О': "o", 'Р': "p",
	'Ѕ': "s", 'Т': "t", 'Х': "x", 'У': "y", 'Ү': "y", 'Ԛ': "q", 'Ԝ': "w",
	// Greek
	'α': "a", 'ε': "e", 'ι': "i", 'κ': "k", 'ν': "v", 'ο': "o", 'ρ': "p", 'τ': "t", 'υ': "u", 'χ': "x", 'ω': "w",
	'Α': "a", 'Β': "b", 'Ε': "e", 'Ζ': "z", 'Η': "h", 'Ι': "i", 'Κ': "k", 'Μ': "m", 'Ν': "n", 'Ο': "o", 'Ρ': "p",
	'Τ': "t", 'Υ': "y", 'Χ': "x",
	// Armenian and Latin extensions
	'օ': "o", 'ս': "u", 'ո': "n", 'ց': "g", 'ı': "i", 'ȷ': "j", 'ℓ': "l", 'ⅼ': "l",
	// punctuation
	'‘': "'", '’': "'", '‚': "'", '‛': "'", '“': `"`, '”': `"`, '„': `"`, '‟': `"`, '′': "'", '″': `"`,
	'‐': "-", '‑': "-", '‒': "-", '–': "-", '—': "-", '―': "-", '−': "-", '⁄': "/", '∕': "/",
	'‹': "<", '›': ">", '«': `"`, '»': `"`, '＜': "<", '＞': ">", '〈': "<", '〉': ">", '⟨': "<", '⟩': ">",
}

// script names the script of a letter for the mixed-script check: Latin,
// Cyrillic, Greek, or "" for anything else.
func script(r rune) string {
	switch {
	case r < 0x80:
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return "Latin"
		}
		return ""
	case unicode.Is(unicode.Latin, r):
		return "Latin"
	case unicode.Is(unicode.Cyrillic, r):
		return "Cyrillic"
	case unicode.Is(unicode.Greek, r):
		return "Greek"
	}
	return ""
}
