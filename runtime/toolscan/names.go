package toolscan

import "strings"

// Skeleton is the form of a tool name that two names share when a reader
// cannot tell them apart: look-alike letters of other scripts and
// compatibility forms mapped to ASCII, lower case, digits read as the
// letters they resemble (0 as o, 1 as l, 5 as s), the pairs rn, vv and cl
// read as m, w and d, and separators (- . _ space) dropped. send_email,
// Send-Emai1 and ѕend_emaіl (with Cyrillic letters) have one skeleton.
func Skeleton(name string) string {
	f := fold(name).s
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch c {
		case '-', '.', '_', ' ':
			continue
		case '0':
			c = 'o'
		case '1', '|', 'i', '!':
			c = 'l'
		case '5', '$':
			c = 's'
		case '3':
			c = 'e'
		case '4', '@':
			c = 'a'
		case '7':
			c = 't'
		case '8':
			c = 'b'
		}
		b.WriteByte(c)
	}
	return pairs.Replace(b.String())
}

// pairs are the letter pairs that read as one letter.
var pairs = strings.NewReplacer("rn", "m", "vv", "w", "cl", "d", "nn", "m")
