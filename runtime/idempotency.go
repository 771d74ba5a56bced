package runtime

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Record is the stored outcome of a call made with an idempotency key.
type Record struct {
	// Fingerprint identifies the tool and its canonical arguments.
	Fingerprint string
	// Data is the tool's result as JSON, before any untrusted wrapping.
	Data json.RawMessage
	// At is when the result was produced.
	At time.Time
	// Source is the untrusted source attribute, for tools returning
	// untrusted output.
	Source string
	// Oversize, when set, is the size in bytes of a result above its tool's
	// cap (max_result_bytes), or a lower bound of it for a result refused
	// before it was encoded: the result is not kept (Data is empty), and a
	// replay answers as the first call did, that it was too large.
	Oversize int

	// encoded is Data as the registry encoded it, compact JSON: a replay
	// copies Data as it is while Data is still this slice.
	encoded []byte
}

// ownEncoding reports whether Data is the registry's own encoding.
func (rec *Record) ownEncoding() bool {
	return len(rec.Data) > 0 && len(rec.Data) == len(rec.encoded) && &rec.Data[0] == &rec.encoded[0]
}

// Claim is the answer of IdempotencyStore.Acquire: exactly one of its fields
// is set.
type Claim struct {
	// Token is set when the caller now holds the key: it must run the tool,
	// then Complete or Release with this token.
	Token string
	// Record is set when a completed result is stored under the key; its
	// fingerprint may differ from the one asked for.
	Record *Record
	// PendingFingerprint is set when another caller holds the key for other
	// arguments.
	PendingFingerprint string
}

// IdempotencyStore keeps idempotency keys and results. Implementations must
// give one holder per key at a time across every process sharing the store;
// MemoryIdempotencyStore does within a process, runtime/redisstore across processes.
type IdempotencyStore interface {
	// Acquire claims key for a call with the given fingerprint, holding it
	// for at most lease. When another caller holds the key for the same
	// fingerprint, Acquire waits until that call completes (and returns its
	// Record), is released (and claims the key), its lease runs out, or ctx
	// ends.
	Acquire(ctx context.Context, key, fingerprint string, lease time.Duration) (Claim, error)
	// Complete stores rec under key, kept for ttl, if token still holds it
	// (or nobody does); otherwise it returns ErrLeaseLost.
	Complete(ctx context.Context, key, token string, rec Record, ttl time.Duration) error
	// Release gives the key up after a failed call so that a retry runs.
	Release(ctx context.Context, key, token string) error
}

// ErrLeaseLost is returned by IdempotencyStore.Complete when the claim ran
// out and another caller took the key.
var ErrLeaseLost = errors.New("idempotency claim lost: another call holds the key")

// IdempotencyKey builds a key from the parts that identify one operation
// (a conversation, a step, an intent), not one attempt: reuse it on every
// retry of that operation.
func IdempotencyKey(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

// fingerprint hashes the tool name and the canonical encoding of its
// validated arguments: encoding/json sorts map keys and writes struct
// fields in order, so equal arguments give equal bytes.
func fingerprint(tool string, args any, c *encoderCache) (string, error) {
	var sum [sha256.Size]byte
	// The bytes json.Marshal writes, HTML escaping included, so that the
	// fingerprints of stores already written hold.
	err := withJSON(tool+"\x00", args, 0, true, c, func(s *encState) { sum = sha256.Sum256(s.b) })
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(sum[:]), nil
}

// NewToken returns a random token for a claim.
func NewToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
