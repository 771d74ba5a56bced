package validatortest

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolcat/toolcat/runtime"
)

// The differential test: for every tool of the catalog, the generated
// validator and the general one (runtime.Typed over
// runtime.NewSchemaValidator) must accept and reject the same arguments;
// when both accept, they return equal Args, defaults applied; when both
// reject, with the same code and, when the input holds one error, the same
// field and message.

type validatorPair struct {
	name      string
	generated runtime.Validator
	general   runtime.Validator
}

func validatorPairs(tb testing.TB) []validatorPair {
	tb.Helper()
	type entry struct {
		meta      runtime.Meta
		generated func(*runtime.Meta) (runtime.Validator, error)
		typed     func(*runtime.SchemaValidator) runtime.Validator
	}
	entries := []entry{
		{createEventMeta(), createEventValidator, runtime.Typed[CreateEventArgs]},
		{updateSettingsMeta(), updateSettingsValidator, runtime.Typed[UpdateSettingsArgs]},
		{logNoteMeta(), logNoteValidator, runtime.Typed[LogNoteArgs]},
		{pingHostMeta(), pingHostValidator, runtime.Typed[PingHostArgs]},
		{findContactMeta(), findContactValidator, runtime.Typed[FindContactArgs]},
		{assignTaskMeta(), assignTaskValidator, runtime.Typed[AssignTaskArgs]},
	}
	var out []validatorPair
	for _, e := range entries {
		g, err := e.generated(&e.meta)
		if err != nil {
			tb.Fatal(err)
		}
		sv, err := runtime.NewSchemaValidator(&e.meta)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, validatorPair{name: e.meta.Name, generated: g, general: e.typed(sv)})
	}
	return out
}

// seeds are arguments for each tool, valid and not, by tool index.
var seeds = [][]string{
	{ // create_event
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"Ann"}]}`,
		`{"title":"Review","kind":"call","version":2,"channel":"calendar","starts_at":"2026-01-02T09:00:00+01:00","duration_minutes":45,"priority":2,"weight":2.5,"ratio":-1.5,"private":true,"confirmed":true,"organizer_email":"a@b.example","location":{"room":"Blue"},"attendees":[{"name":"Ann","role":"host"},{"name":"Bo","optional":true}],"tags":["x","y"],"slots":[1,2],"matrix":[[1,2.5],[3]],"labels":{"a":1},"extra":{"k":[1,{"z":null}]},"note":null,"reminder":null,"ends_at":"2026-01-02T10:00:00.5Z","color":"red","metadata":{"a":1}}`,
		`{"title":"x","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"Ann"}]}`,
		`{"title":"standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"Ann"}]}`,
		`{"title":"Standup","starts_at":"yesterday","attendees":[{"name":"Ann"}]}`,
		`{"title":"Standup","starts_at":"2026-12-31T23:59:60Z","attendees":[{"name":"Ann"}]}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[]}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"Ann","age":3}]}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"duration_minutes":33}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"duration_minutes":1e20}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"weight":10}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"weight":0.25}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"tags":["a","a"]}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"slots":[1,2,1.0]}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"labels":{"a":101}}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"location":{"room":"B","building":null}}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"location":{"room":"B","wing":2}}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"version":3,"color":"blue"}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"version":"2"}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"confirmed":false}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"priority":4}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"organizer_email":"nobody"}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"titel":"x","zzz":1}`,
		`{"title":"Standup","title":"x","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}]}`,
		`{"title":"x","title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}]}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"metadata":1e400}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z"}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"slots":[1e19,0]}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"priority":1e19}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"version":-1e19}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"slots":[1e19,1e19]}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"reminder":1e19}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"ends_at":"2026-12-31T23:59:60Z"}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"location":{"room":"B","building":"01234567890"}}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"labels":{"a":1,"a":200}}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"labels":{"a":200,"a":1}}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"kind":"focus time"}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"matrix":[[]]}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"duration_minutes":30.0}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"duration_minutes":-0}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"weight":1e-400}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"ratio":-0.0}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"tags":["a","b","c","d","e"]}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"extra":{"a":1,"a":[1e400]}}`,
		`{"title":"\u00c9t\u00e9","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}]}`,
		`{"title":"Ab\ud800","starts_at":"2026-01-02t09:00:00z","attendees":[{"name":"A"}]}`,
		`{"title":5}`, `[]`, ``, `null`, `{"title":"Standup",}`, `{} x`,
	},
	{ // update_settings
		`{"user_id":1}`,
		`{"user_id":7,"volume":0.5,"theme":"dark","display":{"font_size":20,"zoom":{}},"shortcuts":{"save":{"keys":"ctrl+s"}},"quiet_hours":[23,6],"limits":{"weekly":3},"homepage":"https://example.com/a","site_id":"123e4567-e89b-12d3-a456-426614174000"}`,
		`{"user_id":1,"unknown":true,"display":{"other":1}}`,
		`{"user_id":3000000000}`,
		`{"user_id":1,"volume":1e39}`,
		`{"user_id":1,"display":{"font_size":100}}`,
		`{"user_id":1,"display":{"zoom":{"level":"x"}}}`,
		`{"user_id":1,"shortcuts":{"a":{"global":true}}}`,
		`{"user_id":1,"homepage":"not a uri"}`,
		`{"user_id":1,"site_id":"x"}`,
		`{"user_id":1,"quiet_hours":null}`, `{"user_id":1,"display":{"zoom":{"level":1,"extra":1}}}`,
		`{"user_id":1,"shortcuts":{"a":{"keys":"k","keys":""}}}`, `{"user_id":1,"shortcuts":{"a":{"keys":"","keys":"k"}}}`,
		`{"user_id":0}`, `{"user_id":1.5}`, `{"user_id":"1"}`, `{}`,
	},
	{ // log_note
		`{"text":"hi"}`, `{"text":"hi","level":"warn","other":[1,2]}`, `{"text":"hi","big":1e400}`,
		`{"level":"info"}`, `{"text":"hi","level":"debug"}`,
	},
	{ // ping_host
		`{}`, `{"host":"a..b"}`, `{"host":"example.com","count":2}`, `{"host":"-bad-"}`, `{"count":11}`, `{"other":1}`,
		`{"ipv6":true}`, `{"ipv6":false,"count":1}`, `{"ipv6":"yes"}`, `{"ipv6":null}`,
	},
	{ // find_contact
		`{"by":"Ann"}`, `{"by":3}`, `{"by":0}`, `{"by":true}`, `{}`,
	},
	{ // assign_task
		`{"task_id":1,"owner":{"name":"Ann"}}`,
		`{"task_id":2,"owner":{"name":"Ann","email":"a@b.example"},"reviewers":[{"name":"Bo"}],"backup":{"name":"Cy"},"due":"2026-02-01","checklist":["a",null],"scores":{"x":0.5,"y":null}}`,
		`{"task_id":1,"owner":{"name":""}}`, `{"task_id":1,"owner":null}`, `{"task_id":1,"owner":{"name":"A","x":1}}`,
		`{"task_id":1,"owner":{"name":"A"},"backup":null,"due":null,"checklist":null}`,
		`{"task_id":1,"owner":{"name":"A"},"backup":{}}`, `{"task_id":1,"owner":{"name":"A"},"backup":3}`,
		`{"task_id":1,"owner":{"name":"A"},"due":"2026-02-30"}`, `{"task_id":1,"owner":{"name":"A"},"scores":{"x":2}}`,
		`{"task_id":1,"owner":{"name":"A"},"reviewers":[{"name":"A"},{"name":"B"},{"name":"C"},{"name":"D"}]}`,
		`{"task_id":1,"owner":{"name":"A"},"checklist":["012345678901234567890"]}`,
	},
}

func FuzzDifferential(f *testing.F) {
	for i, ss := range seeds {
		for _, s := range ss {
			f.Add(uint8(i), []byte(s))
		}
	}
	pairs := validatorPairs(f)
	f.Fuzz(func(t *testing.T, tool uint8, raw []byte) {
		compareValidators(t, pairs[int(tool)%len(pairs)], raw)
	})
}

func compareValidators(t *testing.T, p validatorPair, in []byte) {
	t.Helper()
	want, wantErr := p.general.Validate(in)
	got, gotErr := p.generated.Validate(in)
	if skip(in) {
		return
	}
	raw := in
	if len(raw) > 300 {
		raw = append(raw[:300:300], "..."...)
	}
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%s %s: verdicts differ\n general:   %s\n generated: %s", p.name, raw, describe(want, wantErr), describe(got, gotErr))
	}
	if wantErr == nil {
		if reflect.DeepEqual(want, got) {
			return
		}
		if len(in) > 4096 {
			// cmp.Diff takes minutes on values nested thousands deep.
			t.Fatalf("%s %s: arguments differ\n general:   %s\n generated: %s", p.name, raw, describe(want, nil), describe(got, nil))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s %s: arguments differ (-general +generated):\n%s", p.name, raw, diff)
		}
		return
	}
	if wantErr.Code != gotErr.Code {
		t.Fatalf("%s %s: codes differ\n general:   %s\n generated: %s", p.name, raw, describe(nil, wantErr), describe(nil, gotErr))
	}
	field, hasField := wantErr.Details["field"]
	if !hasField {
		// The arguments fit the schema but not the Go types: the general
		// validator fails decoding them and names no field.
		return
	}
	if _, several := wantErr.Details["other_errors"]; several {
		// With several errors, each validator may report another first.
		return
	}
	if gotErr.Details["field"] != field || gotErr.Message != negativeZero.Replace(wantErr.Message) {
		t.Fatalf("%s %s: errors differ\n general:   %s\n generated: %s", p.name, raw, describe(nil, wantErr), describe(nil, gotErr))
	}
}

// negativeZero rewrites the general validator's -0, which it keeps from the
// float64 it decodes integers into; the generated one decodes an int64.
var negativeZero = strings.NewReplacer("=-0 ", "=0 ")

func describe(args any, te *runtime.ToolError) string {
	var s string
	if te == nil {
		b, _ := json.Marshal(args)
		s = "accepts " + string(b)
	} else {
		b, _ := json.Marshal(te.Details)
		s = string(te.Code) + ": " + te.Message + " " + string(b)
	}
	if len(s) > 500 {
		s = s[:500] + "..."
	}
	return s
}

// longInteger matches integers too long for a float64 to hold exactly.
var longInteger = regexp.MustCompile(`[0-9]{16,}`)

// skip reports inputs on which the general validator is known to be wrong,
// so the two are not compared:
//
//   - integers of more than 15 digits: the general validator decodes
//     numbers as float64 and loses their last digits;
//   - keys that differ from a property name only in case: the general
//     validator decodes its result with encoding/json, which matches them
//     to the property when the schema lets them through, unchecked.
func skip(raw []byte) bool {
	if longInteger.Match(raw) {
		return true
	}
	var doc any
	if json.Unmarshal(raw, &doc) != nil {
		return false
	}
	return foldedKey(doc)
}

func foldedKey(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			for _, p := range propertyNames {
				if k != p && strings.EqualFold(k, p) {
					return true
				}
			}
			if foldedKey(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if foldedKey(e) {
				return true
			}
		}
	}
	return false
}

// propertyNames are the property names of every schema of the catalog.
var propertyNames = func() []string {
	seen := map[string]bool{}
	for _, m := range Metas() {
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				if props, ok := x["properties"].(map[string]any); ok {
					for p := range props {
						seen[p] = true
					}
				}
				for _, e := range x {
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		var schema any
		_ = json.Unmarshal(m.ArgsSchema, &schema)
		walk(schema)
	}
	names := make([]string, 0, len(seen))
	for p := range seen {
		names = append(names, p)
	}
	return names
}()
