package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// FuzzDecodeExact checks that the general validator decodes arguments as
// encoding/json does with UseNumber: same value, same verdict.
func FuzzDecodeExact(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":[2.50,{"b":null}]}`, `"\ud800x\u00e9"`, "\"\xff\"", `[1e400,-0,true]`, `{"a":1,}`, `{} x`, ` 1 `, `{"a":1e1001}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := decodeExact(raw)
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var want any
		werr := dec.Decode(&want)
		if !json.Valid(raw) {
			if err == nil {
				t.Fatalf("%q: decoded invalid JSON: %v", raw, got)
			}
			return
		}
		var le *jsonscan.LimitError
		if errors.As(err, &le) {
			return
		}
		if err != nil || werr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %#v, %v; want %#v, %v", raw, got, err, want, werr)
		}
	})
}
