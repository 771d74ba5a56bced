package mcpserver

import (
	"bytes"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzDecodeRequest: whatever the direct path reads as a JSON-RPC request,
// go-sdk's decoder reads as the same request (id, method, params), so that
// the direct path never answers a message go-sdk would refuse or read
// otherwise.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_note","arguments":{"id":7}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":null}`,
		`{"jsonrpc":"2.0","method":"tools/call","method":"x","id":null}`,
		`{"JSONRPC":"2.0","id":7,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":7,"Method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":true,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":"\ud800"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":"` + "\xff" + `"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"` + strings.Repeat(`\"[`, 1100) + `"}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call"} {}`,
		` {"jsonrpc":"2.0","id":1e3,"method":"tools/call","result":5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := decodeRequest(body)
		if !ok {
			return
		}
		msg, err := jsonrpc.DecodeMessage(body)
		if err != nil {
			t.Fatalf("decodeRequest read %q, which go-sdk refuses: %v", body, err)
		}
		want, isReq := msg.(*jsonrpc.Request)
		if !isReq {
			t.Fatalf("decodeRequest read %q as a request; go-sdk as %T", body, msg)
		}
		wantParams := want.Params
		if string(wantParams) == "null" {
			wantParams = nil
		}
		if got.ID != want.ID || got.Method != want.Method || !bytes.Equal(got.Params, wantParams) {
			t.Fatalf("%q: decodeRequest read id %v, method %q, params %s; go-sdk id %v, method %q, params %s",
				body, got.ID.Raw(), got.Method, got.Params, want.ID.Raw(), want.Method, want.Params)
		}
	})
}

// TestTooDeep: the nesting limit counts objects and arrays, not brackets
// in strings, as go-sdk's does.
func TestTooDeep(t *testing.T) {
	for _, tc := range []struct {
		data string
		deep bool
	}{
		{strings.Repeat("[", 1000) + strings.Repeat("]", 1000), false},
		{strings.Repeat("[", 1001) + strings.Repeat("]", 1001), true},
		{`"` + strings.Repeat("[", 2000) + `"`, false},
		{`["\"` + strings.Repeat("{", 2000) + `"]`, false},
		{`{"a":` + strings.Repeat(`{"a":`, 1000) + `1` + strings.Repeat("}", 1001), true},
	} {
		if got := tooDeep([]byte(tc.data)); got != tc.deep {
			t.Errorf("tooDeep(%.40q…) = %v, want %v", tc.data, got, tc.deep)
		}
	}
}
