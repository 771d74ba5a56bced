package runtime

import (
	"bytes"
	"fmt"
)

// NamePattern is the regular expression of a legal tool or service name:
// 1 to 64 ASCII letters, digits, '_', '.' and '-', the union of what the
// providers and MCP accept. The catalog format (#Name), lint, the
// generator, the registry and the exporters all use this one definition;
// style (lower_snake_case, verb_noun) is left to lint, and a provider that
// takes less (OpenAI and Anthropic have no '.') is checked by its exporter.
const NamePattern = `^[A-Za-z0-9_.-]{1,64}$`

// MaxNameLen is the longest legal name, in bytes.
const MaxNameLen = 64

// ValidName reports whether name matches [NamePattern].
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > MaxNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return false
		}
	}
	return true
}

func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

// CheckName returns nil when name is legal, or an error that says why not
// and what to write instead.
func CheckName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("the name is empty; a name is 1 to %d of the characters A-Z, a-z, 0-9, '_', '.' and '-'", MaxNameLen)
	case ValidName(name):
		return nil
	case len(name) > MaxNameLen:
		return fmt.Errorf("name %q is %d characters, more than the %d a name may have", shorten(name, 80), len(name), MaxNameLen)
	}
	msg := fmt.Sprintf("name %q has characters a name may not have: use only A-Z, a-z, 0-9, '_', '.' and '-'", shorten(name, 80))
	if s := LegalName(name); s != "" {
		msg += fmt.Sprintf(", such as %q", s)
	}
	return fmt.Errorf("%s", msg)
}

// LegalName spells name as a legal one, for suggestions: each run of
// illegal characters becomes one '_', and the result is cut at
// [MaxNameLen]. It returns "" when nothing of name is left.
func LegalName(name string) string {
	b := make([]byte, 0, len(name))
	sep := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !nameByte(c) {
			sep = true
			continue
		}
		if sep && len(b) > 0 && b[len(b)-1] != '_' {
			b = append(b, '_')
		}
		sep = false
		b = append(b, c)
	}
	if len(b) > MaxNameLen {
		b = bytes.TrimRight(b[:MaxNameLen], "_")
	}
	return string(b)
}

// shorten cuts s to at most n bytes for a message.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
