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

	rv := runtime.BindRevert(func(_ context.Context, a *noteArgs, r *noteResult) (map[string]int, error) {
		return map[string]int{"deleted": r.ID}, nil
	})
	out, err := rv(context.Background(), &noteArgs{}, json.RawMessage(`{"id":9}`))
	if err != nil || out.(map[string]int)["deleted"] != 9 {
		t.Fatalf("BindRevert = %v, %v", out, err)
	}
}
