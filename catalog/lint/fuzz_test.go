package lint

import (
	"strings"
	"testing"
)

// FuzzParseConfig checks that any toolcat.yaml gives a configuration or
// an error that names the file, never a panic.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"", "lint:\n  use: [BASIC]\n  except: [descriptions, TOOL_NAME_GENERIC]\n",
		"lint:\n  rules:\n    VERSION_SEMVER: note\n", "lint: [\n", "lint:\n  use: []\n",
		"lint:\n  use: BASIC\n", "lint:\n  similarity_threshold: 0\n", "gen: {out: x}\n",
		"lint: &a\n  use: *a\n", "lint:\n  use: [MINIMAL]\n  use: [BASIC]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig("toolcat.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "toolcat.yaml") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		for _, r := range Rules {
			cfg.Severity(r.ID)
		}
	})
}

// FuzzParseBaseline checks that any baseline file reads back or fails with
// an error that names the file, never a panic, and that one that reads
// writes back to a file that reads the same.
func FuzzParseBaseline(f *testing.F) {
	for _, s := range []string{
		"", "version: 1\nfindings: []\n",
		"version: 1\nfindings:\n  - rule: A\n    tool: t\n    message: m\n    count: 2\n",
		"version: 1\nfindings:\n  - {rule: A, message: 'x: \"y\"'}\n", "version: 2\n", "findings: {}\n",
		"version: 1\nfindings:\n  - rule: A\n    message: !!binary aGVsbG8=\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseBaseline("b.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "b.yaml") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		out, err := b.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseBaseline("b.yaml", out)
		if err != nil {
			t.Fatalf("written baseline does not read back: %v\n%s", err, out)
		}
		if again.Len() != b.Len() {
			t.Errorf("baseline of %d findings reads back as %d", b.Len(), again.Len())
		}
		b.Apply(nil)
	})
}
