package validatortest

import (
	"testing"

	"github.com/toolcat/toolcat/gen/internal/validatortest/difftest"
	"github.com/toolcat/toolcat/runtime"
)

// The differential test: for every tool of the catalog, the generated
// validator and the general one must agree (see package difftest) on the
// seeds below and on what the fuzzer makes of them.

type validatorPair = difftest.Pair

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
		p, err := difftest.NewPair(e.meta, e.generated, e.typed)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, p)
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
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"extra":{"n":9007199254740993.0,"m":1e400}}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"slots":[9007199254740992,9007199254740993]}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"slots":[9223372036854775808,9223372036854775809]}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"weight":1e400}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"weight":2.50000000000000000001}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"duration_minutes":1.5e1}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"priority":9223372036854775807}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"metadata":{"a":[1e1001]}}`,
		`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A","Name":"B"}],"Title":"x","ſtarts_at":1}`,
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
		`{"user_id":2147483647.0}`, `{"user_id":2147483648}`, `{"user_id":9007199254740993}`, `{"user_id":1,"USER_ID":0}`, `{"user_id":1,"display":{"Font_size":1000}}`,
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
	if msg := difftest.Compare(p, in, propertyNames); msg != "" {
		t.Fatal(msg)
	}
}

// propertyNames are the property names of every schema of the catalog.
var propertyNames = difftest.PropertyNames(Metas())
