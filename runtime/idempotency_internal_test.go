package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

// TestFingerprintStable: a fingerprint is the SHA-256 of the tool's name, a
// zero byte and json.Marshal's bytes of the arguments, HTML escaping
// included, as stores written by earlier releases hold it.
func TestFingerprintStable(t *testing.T) {
	type args struct {
		Query string         `json:"query"`
		Max   int64          `json:"max_results,omitempty"`
		Tags  []string       `json:"tags"`
		Extra map[string]any `json:"extra"`
		Raw   json.RawMessage
	}
	for _, a := range []any{
		&args{Query: "a <b> & \u2028 é", Max: 3, Tags: []string{"x"}, Extra: map[string]any{"z": 1.5, "a": "<"}, Raw: json.RawMessage(` {"k" : "<v>"} `)},
		map[string]any{"query": "<script>", "n": 1e21},
		nil,
	} {
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(append([]byte("search_articles\x00"), b...))
		got, err := fingerprint("search_articles", a, nil)
		if want := hex.EncodeToString(sum[:]); err != nil || got != want {
			t.Errorf("%s: fingerprint %s, %v; want %s", b, got, err, want)
		}
	}
}
