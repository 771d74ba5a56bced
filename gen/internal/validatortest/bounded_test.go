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
		tool int // index in validatorPairs
		args string
	}{
		{"a 100 MB integer", 0, base + `,"duration_minutes":` + huge + `}`},
		{"a 10 MB negative integer", 0, base + `,"duration_minutes":-` + digits + `}`},
		{"a 10 MB fraction", 0, base + `,"ratio":2.` + digits + `}`},
		{"a 10 MB integer not in an enum", 0, base + `,"priority":` + digits + `}`},
		{"a 10 MB integer of format int32", 1, `{"user_id":` + digits + `}`},
		{"a 10 MB integer in a oneOf", 4, `{"by":` + digits + `}`},
		{"a 10 MB unknown key", 0, base + `,"` + long + `":1}`},
		{"a 10 MB unknown nested key", 0, base + `,"location":{"room":"B","` + long + `":1}}`},
		{"a 10 MB key in the path of an error", 0, base + `,"labels":{"` + long + `":1000}}`},
		{"a 10 MB key in a deeper path", 1, `{"user_id":1,"shortcuts":{"` + long + `":{"keys":""}}}`},
		{"a 10 MB string not in a typed enum", 0, base + `,"kind":"` + long + `"}`},
		{"a 10 MB string not in an untyped enum", 0, base + `,"color":"` + long + `"}`},
		{"a 10 MB string too long", 0, `{"title":"` + long + `","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}]}`},
		{"a 10 MB string not an email", 0, base + `,"organizer_email":"` + long + `"}`},
		{"a 10 MB string not a date-time", 0, base + `,"ends_at":"` + long + `"}`},
		{"a 10 MB string in an array", 0, base + `,"tags":["` + long + `"]}`},
		{"a 10 MB string of the wrong type", 0, `{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":"` + long + `"}`},
		{"a 10 MB string not a hostname", 3, `{"host":"` + long + `"}`},
		{"a 10 MB email through a $ref", 5, `{"task_id":1,"owner":{"name":"A","email":"` + long + `"}}`},
		{"a large array of the wrong type", 0, base + `,"location":` + array + `}`},
		{"arguments that are a large array", 0, array},
		{"nesting too deep", 0, base + `,"metadata":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`},
		{"10 MB of invalid JSON", 0, base + `,"kind":"` + long},
	}
	pairs := validatorPairs(t)
	for _, tt := range tests {
		p := pairs[tt.tool]
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
