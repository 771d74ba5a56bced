package runtime

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	tests := []struct {
		desc, s string
		n       int
		want    string
	}{
		{"short stays", "abc", 3, "abc"},
		{"long is cut with its length", "abcdef", 3, "abc… (6 bytes)"},
		{"a character is never split", "aé", 2, "a… (3 bytes)"},
		{"a four-byte character", "ab😀", 5, "ab… (6 bytes)"},
		{"not UTF-8: cut at n", "\x80\x80\x80\x80\x80\x80", 4, "\x80\x80\x80\x80… (6 bytes)"},
	}
	for _, tt := range tests {
		if got := clip(tt.s, tt.n); got != tt.want {
			t.Errorf("%s: clip(%q, %d) = %q, want %q", tt.desc, tt.s, tt.n, got, tt.want)
		}
	}
	for n := 1; n < 20; n++ {
		s := strings.Repeat("日本😀a", 10)
		if got := clip(s, n); !utf8.ValidString(got) {
			t.Errorf("clip(%q, %d) = %q, not valid UTF-8", s, n, got)
		}
	}
	if got := quoteClipped(strings.Repeat("x", 100), 4); got != `"xxxx"… (100 bytes)` {
		t.Errorf("quoteClipped = %s", got)
	}
}

func TestClipReceived(t *testing.T) {
	big := make([]any, 10000)
	for i := range big {
		big[i] = 1.0
	}
	tests := []struct {
		desc string
		v    any
		keep bool
	}{
		{"a number", 3.0, true},
		{"a short string", "abc", true},
		{"a long string, clipped", strings.Repeat("a", 1<<20), true},
		{"a small array", []any{1.0, "a"}, true},
		{"a large array", big, false},
		{"an object with a long key", map[string]any{strings.Repeat("k", 2000): 1.0}, false},
		{"an elided value", elided("array"), false},
	}
	for _, tt := range tests {
		got, ok := clipReceived(tt.v)
		if ok != tt.keep {
			t.Errorf("%s: kept %v, want %v", tt.desc, ok, tt.keep)
		}
		if s, isStr := got.(string); isStr && len(s) > maxEchoValue+32 {
			t.Errorf("%s: %d bytes kept", tt.desc, len(s))
		}
	}
}

// TestClosestLongName: a name far longer than every candidate is compared
// with none, so a 100 MB name costs no distance computation.
func TestClosestLongName(t *testing.T) {
	cands := []string{"query", "max_results", "sort"}
	name := strings.Repeat("q", 100<<20)
	start := time.Now()
	if got := ClosestN(name, cands, 3); len(got) != 0 {
		t.Errorf("ClosestN(100 MB name) = %q", got)
	}
	t.Logf("ClosestN on a 100 MB name: %v", time.Since(start))
	// Within the skip length, a name still far from a candidate in length
	// is not measured, and a near one still is.
	if got := Closest(strings.Repeat("x", 10)+"query", cands); got != "query" {
		t.Errorf("containment lost: %q", got)
	}
	if got := Closest("max_result", cands); got != "max_results" {
		t.Errorf("typo lost: %q", got)
	}
	// Long candidates, such as enum values: a long name is near one by
	// containment only.
	longCands := []string{strings.Repeat("ab", 5000), strings.Repeat("b", 10000)}
	start = time.Now()
	if got := Closest(strings.Repeat("ab", 4999)+"xx", longCands); got != "" {
		t.Errorf("a long name near by edit distance only: %q", got)
	}
	if got := Closest(strings.Repeat("b", 9000), longCands); got != longCands[1] {
		t.Errorf("containment lost for long names: %.20q", got)
	}
	t.Logf("Closest among 10 KB candidates: %v", time.Since(start))
}

func BenchmarkClosestLongName(b *testing.B) {
	cands := []string{"query", "max_results", "sort"}
	for _, n := range []int{1 << 10, 100 << 20} {
		name := strings.Repeat("q", n)
		b.Run(strconv.Itoa(n)+"B", func(b *testing.B) {
			for b.Loop() {
				ClosestN(name, cands, 3)
			}
		})
	}
}
