package runtime

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzTakeIdempotencyKey checks takeIdempotencyKey against encoding/json:
// on arguments that encoding/json reads as an object, what is left is the
// same object without idempotency_key and the key is that member's value;
// arguments encoding/json refuses stay refused; raw is never changed.
func FuzzTakeIdempotencyKey(f *testing.F) {
	for _, s := range []string{
		`{"idempotency_key":"k","a":1}`, `{"a":1,"idempotency_key":"k"}`, `{"idempotency_key":"k"}`,
		` { "a" : [1,{"idempotency_key":2}] , "idempotency_key" : null , "b":"x" } `,
		`{"idempotency_key":"k","idempotency_key":"k"}`, `{"idempotency\u005fkey":"\ud83d\ude00"}`,
		`{"idempotency_key":1e400}`, `{"a":1e400,"idempotency_key":"k"}`, `{"idempotency_key":"k",}`,
		`{"idempotency_key":"k"} {}`, `[]`, `null`, ``, `{"a":{"b":[1,2,{"c":null}]},"idempotency_key":""}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		orig := bytes.Clone(raw)
		rest, key, te := takeIdempotencyKey(raw)
		if !bytes.Equal(raw, orig) {
			t.Fatalf("raw changed: %q", raw)
		}
		var in any
		inErr := json.Unmarshal(NormalizeArgs(raw), &in)
		if te != nil {
			if rest != nil || key != "" {
				t.Fatalf("error %v with rest %q and key %q", te, rest, key)
			}
			return
		}
		var out any
		outErr := json.Unmarshal(rest, &out)
		if inErr != nil {
			if outErr == nil {
				t.Fatalf("%q is refused by encoding/json, its rest %q is not", raw, rest)
			}
			return
		}
		obj, ok := in.(map[string]any)
		if !ok {
			if !bytes.Equal(rest, NormalizeArgs(raw)) {
				t.Fatalf("not an object %q, but rest %q", raw, rest)
			}
			return
		}
		if outErr != nil {
			t.Fatalf("rest %q of %q is not JSON: %v", rest, raw, outErr)
		}
		want, _ := obj[IdempotencyKeyArg].(string)
		if key != want {
			t.Fatalf("key %q, want %q in %q", key, want, raw)
		}
		delete(obj, IdempotencyKeyArg)
		if !reflect.DeepEqual(out, obj) {
			t.Fatalf("rest %q of %q is %v, want %v", rest, raw, out, obj)
		}
	})
}
