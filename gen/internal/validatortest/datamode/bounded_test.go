package validatortest

import (
	"strings"
	"testing"

	"github.com/toolcat/toolcat/gen/internal/validatortest/difftest"
	"github.com/toolcat/toolcat/runtime"
)

// byName returns the validators of tool.
func byName(t *testing.T, trs []triple, tool string) triple {
	t.Helper()
	for _, tr := range trs {
		if tr.pair.Name == tool {
			if tr.code == nil {
				t.Fatalf("%s is not a data-mode tool", tool)
			}
			return tr
		}
	}
	t.Fatalf("no tool %s", tool)
	return triple{}
}

// TestEnvelopesBounded: whatever the model sends, the error envelope of a
// data-mode validator stays within a few KB, and is code mode's.
func TestEnvelopesBounded(t *testing.T) {
	const maxEnvelope = 4 << 10
	// 1 MB: the code-mode package tries 1 MB; clipping does not depend
	// on the size.
	n := 1 << 20
	long := strings.Repeat("x", n)
	huge := strings.Repeat("9", 10*n) // beyond every Go number type
	digits := huge[:n]
	array := "[" + strings.Repeat("1,", n/2) + "1]"
	base := `{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}]`
	tests := []struct{ desc, tool, args string }{
		{"a huge integer", "create_event", base + `,"duration_minutes":` + huge + `}`},
		{"a 1 MB negative integer", "create_event", base + `,"duration_minutes":-` + digits + `}`},
		{"a 1 MB fraction", "create_event", base + `,"ratio":2.` + digits + `}`},
		{"a 1 MB integer not in an enum", "create_event", base + `,"priority":` + digits + `}`},
		{"a 1 MB integer of format int32", "update_settings", `{"user_id":` + digits + `}`},
		{"a 1 MB unknown key", "create_event", base + `,"` + long + `":1}`},
		{"a 1 MB unknown nested key", "create_event", base + `,"location":{"room":"B","` + long + `":1}}`},
		{"a 1 MB key in the path of an error", "create_event", base + `,"labels":{"` + long + `":1000}}`},
		{"a 1 MB key in a deeper path", "update_settings", `{"user_id":1,"shortcuts":{"` + long + `":{"keys":""}}}`},
		{"a 1 MB string not in a typed enum", "create_event", base + `,"kind":"` + long + `"}`},
		{"a 1 MB string not in an untyped enum", "create_event", base + `,"color":"` + long + `"}`},
		{"a 1 MB string too long", "create_event", `{"title":"` + long + `","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}]}`},
		{"a 1 MB string not a pattern's", "list_invoices", `{"account_id":"` + long + `","status":"open"}`},
		{"a 1 MB string not a date-time", "create_event", base + `,"ends_at":"` + long + `"}`},
		{"a 1 MB string in an array", "create_event", base + `,"tags":["` + long + `"]}`},
		{"a 1 MB string of the wrong type", "create_event", `{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":"` + long + `"}`},
		{"a 1 MB string not a hostname", "ping_host", `{"host":"` + long + `"}`},
		{"a 1 MB email through a $ref", "assign_task", `{"task_id":1,"owner":{"name":"A","email":"` + long + `"}}`},
		{"a large array of the wrong type", "create_event", base + `,"location":` + array + `}`},
		{"a large array of unique items", "create_event", base + `,"slots":` + array + `}`},
		{"arguments that are a large array", "create_event", array},
		{"nesting too deep", "create_event", base + `,"metadata":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`},
		{"1 MB of invalid JSON", "create_event", base + `,"kind":"` + long},
	}
	trs := triples(t)
	for _, tt := range tests {
		tr := byName(t, trs, tt.tool)
		_, te := tr.pair.Generated.Validate([]byte(tt.args))
		if te == nil {
			t.Errorf("%s, %s: accepted", tt.desc, tt.tool)
			continue
		}
		if b := runtime.Fail(te).JSON(); len(b) > maxEnvelope {
			t.Errorf("%s, %s: the envelope has %d bytes, more than %d:\n%.600s", tt.desc, tt.tool, len(b), maxEnvelope, b)
		}
		if msg := difftest.CompareModes(tt.tool, tr.pair.Generated, tr.code, []byte(tt.args)); msg != "" {
			t.Errorf("%s: %.2000s", tt.desc, msg)
		}
	}
}

// TestDeepValues compares the validators on values nested about as deep
// as encoding/json allows.
func TestDeepValues(t *testing.T) {
	trs := triples(t)
	for _, n := range []int{9998, 9999, 10000, 10001} {
		deep := strings.Repeat("[", n) + strings.Repeat("]", n)
		for _, c := range []struct{ tool, args string }{
			{"create_event", `{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"metadata":` + deep + `}`},
			{"log_note", `{"text":"hi","other":` + deep + `}`},
			{"list_invoices", `{"account_id":"acc_1","status":"open","filter":{"x":` + deep + `}}`},
		} {
			tr := byName(t, trs, c.tool)
			if msg := difftest.Compare(tr.pair, []byte(c.args), propertyNames); msg != "" {
				t.Errorf("depth %d: %.2000s", n, msg)
			}
			if msg := difftest.CompareModes(c.tool, tr.pair.Generated, tr.code, []byte(c.args)); msg != "" {
				t.Errorf("depth %d: %.2000s", n, msg)
			}
		}
	}
}
