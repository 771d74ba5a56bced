package runtime_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// reindentingStore is a MemoryIdempotencyStore whose records come back as a
// store written by another program might hold them: the JSON of a result
// indented, or replaced.
type reindentingStore struct {
	*runtime.MemoryIdempotencyStore
	data json.RawMessage // when set, the data every record is stored with
}

func (s reindentingStore) Complete(ctx context.Context, key, token string, rec runtime.Record, ttl time.Duration) error {
	if s.data != nil {
		rec.Data = s.data
	} else {
		var b []byte
		b, _ = json.MarshalIndent(json.RawMessage(rec.Data), "", "  ")
		rec.Data = b
	}
	return s.MemoryIdempotencyStore.Complete(ctx, key, token, rec, ttl)
}

// TestReplayEnvelope: a replay answers the envelope of the stored result,
// compact whatever store held it, with Data its JSON; a store's bytes that
// are not JSON answer internal.
func TestReplayEnvelope(t *testing.T) {
	ctx := context.Background()
	// Stored as json.Marshal writes it, HTML escaped.
	want := `{"success":true,"data":{"articles":[{"id":1,"title":"a \u003cb\u003e \u0026 c"},{"id":2,"title":"a \u003cb\u003e \u0026 c"}],"total":2},"replayed":true}`
	args := []byte(`{"query":"a <b> & c"}`)
	for _, c := range []struct {
		desc  string
		store runtime.IdempotencyStore
		want  string
	}{
		{"the registry's memory store", runtime.NewMemoryIdempotencyStore(), want},
		{"a store holding indented JSON", reindentingStore{MemoryIdempotencyStore: runtime.NewMemoryIdempotencyStore()}, want},
		{"a store holding bytes that are not JSON", reindentingStore{MemoryIdempotencyStore: runtime.NewMemoryIdempotencyStore(), data: json.RawMessage(`{"a":`)}, ""},
	} {
		r := runtime.New(runtime.WithLogger(quietLogger()), runtime.WithIdempotencyStore(c.store))
		mustRegister(t, r, searchTool(searchImpl{}, searchArticlesValidator))
		opts := runtime.CallOptions{IdempotencyKey: "k"}
		if res := r.Call(ctx, "search_articles", args, opts); !res.Success || res.Replayed {
			t.Fatalf("%s: first call: %s", c.desc, res.JSON())
		}
		res := r.Call(ctx, "search_articles", args, opts)
		if c.want == "" {
			if res.Success || res.Error.Code != runtime.CodeInternal {
				t.Errorf("%s: %s", c.desc, res.JSON())
			}
			continue
		}
		if got := string(res.JSON()); !res.Replayed || got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.desc, got, c.want)
		}
		if b, err := json.Marshal(res); err != nil || !json.Valid(b) {
			t.Errorf("%s: json.Marshal: %s, %v", c.desc, b, err)
		}
		data, ok := res.Data.(json.RawMessage)
		if !ok || string(data) != c.want[len(`{"success":true,"data":`):len(c.want)-len(`,"replayed":true}`)] {
			t.Errorf("%s: Data %T %s", c.desc, res.Data, res.Data)
		}
		// Data replaced: the envelope holds the new data.
		res.Data = json.RawMessage(`{"total":0}`)
		if got := string(res.JSON()); got != `{"success":true,"data":{"total":0},"replayed":true}` {
			t.Errorf("%s: Data replaced: %s", c.desc, got)
		}
	}
}
