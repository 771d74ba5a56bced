package runtime

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestDecodeCore: the core state decodes as json.Unmarshal decodes it,
// whether it reads as the registry writes it or not.
func TestDecodeCore(t *testing.T) {
	written, err := json.Marshal(&coreState{Turn: 3, Promoted: []promotion{{Tool: "get_invoice", Since: 1, Until: 4}, {Tool: "b.c-d", Since: 0, Until: 9}},
		TaintTurn: 2, TaintSource: "web:example.com/é?<q>&"})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{
		string(written),
		`{}`,
		`{"turn":1}`,
		` { "turn" : 12 , "taint_turn" : 0 } `,
		`{"turn":-0}`,
		`{"turn":1.0}`,
		`{"turn":1e2}`,
		`{"turn":99999999999999999999}`,
		`{"Turn":5}`,
		`{"turn":5,"turn":6}`,
		`{"turn":null}`,
		`{"promoted":null}`,
		`{"promoted":[]}`,
		`{"promoted":[{"tool":"a","since":1,"until":2}],"promoted":[{"tool":"b"}]}`,
		`{"promoted":[{"tool":"a","other":1}]}`,
		`{"taint_source":"a\"b\\c\u00e9\ud83d\ude00"}`,
		`{"taint_source":"\xff"}`,
		`{"taint_source":"\ud800"}`,
		`{"extra":{"nested":[1,2]}}`,
		`{"turn":"1"}`,
		`{"turn":1`,
		`{"turn":1}x`,
		`[]`,
		`null`,
	} {
		var want coreState
		wantErr := json.Unmarshal([]byte(b), &want)
		got, err := decodeCore([]byte(b))
		switch {
		case (err != nil) != (wantErr != nil):
			t.Errorf("%s: error %v, json.Unmarshal's %v", b, err, wantErr)
		case err == nil && !reflect.DeepEqual(normalPromotions(*got), normalPromotions(want)):
			t.Errorf("%s:\n got %+v\nwant %+v", b, *got, want)
		}
	}
	if st, err := decodeCore(nil); err != nil || st.Turn != 0 || st.Promoted != nil {
		t.Errorf("no state: %+v, %v", st, err)
	}
}

// normalPromotions is st with an empty list of promotions as nil, which
// the state never tells apart.
func normalPromotions(st coreState) coreState {
	if len(st.Promoted) == 0 {
		st.Promoted = nil
	}
	return st
}

func FuzzDecodeCore(f *testing.F) {
	f.Add([]byte(`{"turn":3,"promoted":[{"tool":"a","since":1,"until":4}],"taint_turn":2,"taint_source":"web"}`))
	f.Add([]byte(`{"turn":1e2,"taint_source":"\u00e9"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var want coreState
		wantErr := json.Unmarshal(b, &want)
		got, err := decodeCore(b)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, json.Unmarshal's %v", b, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(normalPromotions(*got), normalPromotions(want)) {
			t.Fatalf("%q:\n got %+v\nwant %+v", b, *got, want)
		}
	})
}

// TestLoadKeptState: the state a MemorySessionStore keeps decoded, and the
// session it remembers for a Session, follow every change of the state:
// an update by another Session of the same id, a reset, an expiry.
func TestLoadKeptState(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store := NewMemorySessionStore(SessionStoreClock(func() time.Time { return now }))
	r := New(WithSessionStore(store), WithSessionTTL(time.Hour))
	a, b := r.Session("conv"), r.Session("conv")
	turn := func(s *Session) int {
		t.Helper()
		st, err := s.load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.Turn
	}
	if got := turn(a); got != 0 {
		t.Fatalf("new session: turn %d", got)
	}
	for want := 1; want <= 3; want++ {
		if err := b.EndTurn(ctx); err != nil {
			t.Fatal(err)
		}
		if got := turn(a); got != want {
			t.Fatalf("after %d turns ended elsewhere: turn %d", want, got)
		}
		if st, _ := a.load(ctx); st.step != stepOf("conv", want) {
			t.Fatalf("step %q", st.step)
		}
	}
	if err := b.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if got := turn(a); got != 0 {
		t.Fatalf("after a reset: turn %d", got)
	}
	if err := a.EndTurn(ctx); err != nil || turn(a) != 1 {
		t.Fatalf("turn ended again: %v", err)
	}
	now = now.Add(2 * time.Hour)
	if got := turn(a); got != 0 {
		t.Fatalf("expired: turn %d", got)
	}
}
