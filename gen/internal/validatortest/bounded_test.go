package validatortest

import (
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// TestEnvelopesBounded: whatever the model sends, the error envelope of a
// generated validator, and of the general one on the same input, stays
// within a few KB: every value, key and name it quotes is clipped.
func TestEnvelopesBounded(t *testing.T) {
	const maxEnvelope = 4 << 10
	n := 10 << 20
	if testing.Short() {
		n = 1 << 20
	}
	long := strings.Repeat("x", n)
	huge := strings.Repeat("9", 10*n) // 100 MB: beyond every Go number type
	digits := huge[:n]
	array := "[" + strings.Repeat("1,", n/2) + "1]"
	base := `{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}]`
	tests := []struct {
		desc string
		tool string
		args string
	}{
		{"a 100 MB integer", "create_event", base + `,"duration_minutes":` + huge + `}`},
		{"a 10 MB negative integer", "create_event", base + `,"duration_minutes":-` + digits + `}`},
		{"a 10 MB fraction", "create_event", base + `,"ratio":2.` + digits + `}`},
		{"a 10 MB integer not in an enum", "create_event", base + `,"priority":` + digits + `}`},
		{"a 10 MB integer of format int32", "update_settings", `{"user_id":` + digits + `}`},
		{"a 10 MB integer in a oneOf", "find_contact", `{"by":` + digits + `}`},
		{"a 10 MB unknown key", "create_event", base + `,"` + long + `":1}`},
		{"a 10 MB unknown nested key", "create_event", base + `,"location":{"room":"B","` + long + `":1}}`},
		{"a 10 MB key in the path of an error", "create_event", base + `,"labels":{"` + long + `":1000}}`},
		{"a 10 MB key in a deeper path", "update_settings", `{"user_id":1,"shortcuts":{"` + long + `":{"keys":""}}}`},
		{"a 10 MB string not in a typed enum", "create_event", base + `,"kind":"` + long + `"}`},
		{"a 10 MB string not in an untyped enum", "create_event", base + `,"color":"` + long + `"}`},
		{"a 10 MB string too long", "create_event", `{"title":"` + long + `","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}]}`},
		{"a 10 MB string not an email", "create_event", base + `,"organizer_email":"` + long + `"}`},
		{"a 10 MB string not a date-time", "create_event", base + `,"ends_at":"` + long + `"}`},
		{"a 10 MB string in an array", "create_event", base + `,"tags":["` + long + `"]}`},
		{"a 10 MB string of the wrong type", "create_event", `{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":"` + long + `"}`},
		{"a 10 MB string not a hostname", "ping_host", `{"host":"` + long + `"}`},
		{"a 10 MB email through a $ref", "assign_task", `{"task_id":1,"owner":{"name":"A","email":"` + long + `"}}`},
		{"a large array of the wrong type", "create_event", base + `,"location":` + array + `}`},
		{"arguments that are a large array", "create_event", array},
		{"nesting too deep", "create_event", base + `,"metadata":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`},
		{"10 MB of invalid JSON", "create_event", base + `,"kind":"` + long},
	}
	pairs := validatorPairs(t)
	for _, tt := range tests {
		p := pairOf(t, pairs, tt.tool)
		for _, v := range []struct {
			name string
			v    runtime.Validator
		}{{"generated", p.Generated}, {"general", p.General}} {
			start := time.Now()
			_, te := v.v.Validate([]byte(tt.args))
			if te == nil {
				t.Errorf("%s, %s validator of %s: accepted", tt.desc, v.name, p.Name)
				continue
			}
			b := runtime.Fail(te).JSON()
			t.Logf("%s, %s: %d-byte envelope in %v", tt.desc, v.name, len(b), time.Since(start))
			if len(b) > maxEnvelope {
				t.Errorf("%s, %s validator of %s: the envelope has %d bytes, more than %d:\n%.600s",
					tt.desc, v.name, p.Name, len(b), maxEnvelope, b)
			}
		}
	}
}
