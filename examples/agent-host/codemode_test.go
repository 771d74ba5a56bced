package main

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestCodeModeConversation(t *testing.T) {
	s, err := parseScript(codeModeScript)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	got, err := replayIn(context.Background(), &out, io.Discard, s, true)
	if err != nil {
		t.Fatalf("replay: %v\n%s", err, out.String())
	}
	want := []string{
		"ok",                // search_api
		"approval_required", // the program stops at the page
		"ok",                // the user approves: the page runs
		"ok",                // the same program again: replays, then files the ticket
		"invalid_args",      // a program that throws
	}
	if !slices.Equal(got, want) {
		t.Fatalf("outcomes %v, want %v\n%s", got, want, out.String())
	}
	text := out.String()
	for _, w := range []string{
		"host sends 2 tool definitions: search_api, execute_code",
		`"tool": "notify_oncall_engineer",
          "code": "ok",`,
		`"follow_up": "OPS-100"`,
		"1 page(s) sent",
		"Object has no member 'no_such_tool' (line 2, column 58)",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the conversation lacks %q\n%s", w, text)
		}
	}
}

func TestTokenFigures(t *testing.T) {
	rows, err := tokenFigures(50)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.CodeMode <= 0 || r.CodeMode*10 > r.PerTool || r.PerMatch <= 0 || r.PerMatch*r.Tools > r.All {
		t.Errorf("figures %+v", r)
	}
}
