package main

import (
	"bytes"
	"context"
	"io"
	"testing"
)

// FuzzScript parses arbitrary scripts and replays those that parse (up to
// 40 steps): every one either runs or fails with an error, never a panic.
// Scripts that name fetch_web_page are skipped, so that no run reaches the
// network.
func FuzzScript(f *testing.F) {
	f.Add(defaultScript)
	f.Add([]byte(`{"session":"s","steps":[{"tool":"write_file","args":{"path":"a.txt","content":"x"}},{"host":"approve"},{"tool":"undo_last_actions","args":{"count":3}}]}`))
	f.Add([]byte(`{"session":"s","steps":[{"tool":"run_shell_command","args":{"argv":["ls"]}},{"host":"approve"},{"host":"end_turn"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseScript(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if len(s.Steps) > 40 || bytes.Contains(bytes.ToLower(data), []byte("fetch")) {
			return
		}
		_, _ = replay(context.Background(), io.Discard, io.Discard, s)
	})
}
