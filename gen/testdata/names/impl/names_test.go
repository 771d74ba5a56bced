package names

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// args gives every member of echo_names a value of its own.
const args = `{"-":"dash","a,b":"comma","":"empty","q\"uote":"quote","back\\slash":"backslash",` +
	`"x,omitempty":7,"Name":"upper","name":"lower","with space":true,"näme":"umlaut","€":1.5,` +
	`"plain":"plain","nested":{",":"inner comma","ok":"ok"},"open":{"limit":3}}`

func registry(t *testing.T) *runtime.Registry {
	t.Helper()
	impls, _ := conformanceTools(t)
	reg, err := NewRegistry(impls)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// data is the data of a successful call's envelope, decoded.
func data(t *testing.T, res runtime.Result) map[string]any {
	t.Helper()
	if !res.Success {
		t.Fatalf("call failed: %s", res.JSON())
	}
	var env struct{ Data map[string]any }
	if err := json.Unmarshal(res.JSON(), &env); err != nil {
		t.Fatal(err)
	}
	return env.Data
}

// Every member the arguments name reaches Execute and comes back in the
// result under its own name, through the one-pass validator and through
// the general one (which decodes with encoding/json).
func TestNamesRoundTrip(t *testing.T) {
	reg := registry(t)
	var want map[string]any
	if err := json.Unmarshal([]byte(args), &want); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"echo_names", "echo_names_general"} {
		got := data(t, reg.Call(context.Background(), tool, []byte(args), runtime.CallOptions{}))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s returned\n%v\nwant\n%v", tool, got, want)
		}
	}
}

// A member whose name differs only in case from a declared one is another
// member: it does not fill the declared one's field.
func TestNamesExactCase(t *testing.T) {
	reg := registry(t)
	for _, tool := range []string{"echo_names", "echo_names_general"} {
		res := reg.Call(context.Background(), tool, []byte(`{"-":"d","a,b":"c","nested":{"OK":"x"},"open":{"LIMIT":1000}}`), runtime.CallOptions{})
		got := data(t, res)
		if n := got["nested"].(map[string]any); len(n) != 0 {
			t.Errorf("%s: nested = %v, want no members", tool, n)
		}
		// open allows other members: LIMIT is one, unchecked, not limit.
		if o := got["open"].(map[string]any); len(o) != 0 {
			t.Errorf("%s: open = %v, want no members", tool, o)
		}
	}
}

// Arguments that differ in any one member are different arguments to the
// idempotency store: the same key with other values is a conflict, never
// a replay of the first result.
func TestNamesFingerprint(t *testing.T) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &members); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"echo_names", "echo_names_general"} {
		for name := range members {
			if name == "-" || name == "a,b" {
				continue // required: changed below with the others
			}
			reg := registry(t)
			key := runtime.CallOptions{IdempotencyKey: "k"}
			first := reg.Call(context.Background(), tool, []byte(args), key)
			data(t, first)
			other := map[string]json.RawMessage{"-": members["-"], "a,b": members["a,b"]}
			raw, _ := json.Marshal(other)
			second := reg.Call(context.Background(), tool, raw, key)
			if second.Success || second.Error.Code != runtime.CodeIdempotencyConflict {
				t.Errorf("%s: without %q, the same key gave %s; want idempotency_conflict", tool, name, second.JSON())
			}
		}
		for _, name := range []string{"-", "a,b"} {
			reg := registry(t)
			key := runtime.CallOptions{IdempotencyKey: "k"}
			data(t, reg.Call(context.Background(), tool, []byte(`{"-":"1","a,b":"1"}`), key))
			changed := map[string]string{"-": "1", "a,b": "1"}
			changed[name] = "2"
			raw, _ := json.Marshal(changed)
			second := reg.Call(context.Background(), tool, raw, key)
			if second.Success || second.Error.Code != runtime.CodeIdempotencyConflict {
				t.Errorf("%s: with another %q, the same key gave %s; want idempotency_conflict", tool, name, second.JSON())
			}
		}
	}
}
