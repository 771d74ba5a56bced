package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

type noteArgs struct {
	Text string `json:"text"`
}

type noteResult struct {
	ID int `json:"id"`
}

func TestBind(t *testing.T) {
	fn := runtime.Bind(func(_ context.Context, a *noteArgs) (*noteResult, error) {
		if a.Text == "" {
			return nil, runtime.InvalidArgs("empty")
		}
		return &noteResult{ID: 7}, nil
	})
	got, err := fn(context.Background(), &noteArgs{Text: "x"})
	if err != nil || got.(*noteResult).ID != 7 {
		t.Fatalf("Bind = %v, %v", got, err)
	}
	got, err = fn(context.Background(), &noteArgs{})
	if err == nil || got != nil {
		t.Fatalf("failed call returned data %#v (want untyped nil), err %v", got, err)
	}
	_, err = fn(context.Background(), map[string]any{})
	var te *runtime.ToolError
	if !errors.As(err, &te) || te.Code != runtime.CodeInternal {
		t.Fatalf("wrong argument type: %v", err)
	}

}

func TestBindRevert(t *testing.T) {
	ctx := context.Background()
	var got *noteResult
	rv := runtime.BindRevert(func(_ context.Context, a *noteArgs, r *noteResult) error {
		got = r
		if r.ID < 0 {
			return runtime.NotFound("already gone")
		}
		return nil
	})
	if out, err := rv(ctx, &noteArgs{}, json.RawMessage(`{"id":9}`)); err != nil || out != nil || got.ID != 9 {
		t.Fatalf("BindRevert = %v, %v; revert got %+v", out, err, got)
	}
	// A null result still gives Revert a result to read.
	if _, err := rv(ctx, &noteArgs{}, json.RawMessage(`null`)); err != nil || got == nil || got.ID != 0 {
		t.Fatalf("null result: err %v, revert got %+v", err, got)
	}
	if _, err := rv(ctx, &noteArgs{}, json.RawMessage(`{"id":-1}`)); err == nil || err.Error() != "not_found: already gone" {
		t.Fatalf("Revert's error: %v", err)
	}
	for _, tc := range []struct {
		result string
		args   any
		code   runtime.Code
		msg    string
	}{
		{`{"id":"nine"}`, &noteArgs{}, runtime.CodeInvalidArgs, "the result to revert does not fit *runtime_test.noteResult: json: cannot unmarshal string into Go struct field noteResult.id of type int"},
		{``, &noteArgs{}, runtime.CodeInvalidArgs, "no result to revert: give the JSON data the call returned"},
		{`{"id":1}`, map[string]any{}, runtime.CodeInternal, "the validator returned map[string]interface {}, the tool takes *runtime_test.noteArgs"},
	} {
		got = nil
		_, err := rv(ctx, tc.args, json.RawMessage(tc.result))
		var te *runtime.ToolError
		if !errors.As(err, &te) || te.Code != tc.code || te.Message != tc.msg {
			t.Errorf("result %q, args %T: error %v, want %s: %s", tc.result, tc.args, err, tc.code, tc.msg)
		}
		if got != nil {
			t.Errorf("result %q, args %T: Revert ran", tc.result, tc.args)
		}
	}

	// A result that is not a struct is decoded as its type.
	var ids []int
	rl := runtime.BindRevert(func(_ context.Context, _ *noteArgs, r []int) error {
		ids = r
		return nil
	})
	if _, err := rl(ctx, &noteArgs{}, json.RawMessage(`[1,2]`)); err != nil || len(ids) != 2 || ids[1] != 2 {
		t.Fatalf("slice result: err %v, revert got %v", err, ids)
	}
}
