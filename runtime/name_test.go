package runtime_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

var nameCases = []string{
	"", "a", "get_user", "getComment", "search.web", "get-user", "A1", "_draft", "2fa", ".", "-",
	strings.Repeat("a", 64), strings.Repeat("a", 65), "get user", "get:user", "get/user", "héllo",
	"tab\tname", "new\nline", "ünïcode", "a\x00b", "emoji😀",
}

// ValidName and NamePattern are two spellings of one rule: they agree.
func TestValidNameMatchesPattern(t *testing.T) {
	re := regexp.MustCompile(runtime.NamePattern)
	for _, name := range nameCases {
		if got, want := runtime.ValidName(name), re.MatchString(name); got != want {
			t.Errorf("ValidName(%q) = %v; NamePattern says %v", name, got, want)
		}
		if got := runtime.CheckName(name) == nil; got != runtime.ValidName(name) {
			t.Errorf("CheckName(%q) == nil is %v; ValidName says %v", name, got, !got)
		}
	}
}

func FuzzValidName(f *testing.F) {
	for _, n := range nameCases {
		f.Add(n)
	}
	re := regexp.MustCompile(runtime.NamePattern)
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := runtime.ValidName(name), re.MatchString(name); got != want {
			t.Fatalf("ValidName(%q) = %v; NamePattern says %v", name, got, want)
		}
		if s := runtime.LegalName(name); s != "" && !runtime.ValidName(s) {
			t.Fatalf("LegalName(%q) = %q, not a legal name", name, s)
		}
	})
}

func TestLegalName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"get_user", "get_user"},
		{"get user", "get_user"},
		{"list: invoices!", "list_invoices"},
		{" héllo ", "h_llo"},
		{"!!!", ""},
		{strings.Repeat("ab", 40), strings.Repeat("ab", 32)},
		{strings.Repeat("a", 63) + " b", strings.Repeat("a", 63)},
	}
	for _, tt := range tests {
		if got := runtime.LegalName(tt.in); got != tt.want {
			t.Errorf("LegalName(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
