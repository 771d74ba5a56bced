package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// keySet is the issuer's JWKS as last fetched. Lookups read an immutable
// snapshot; a key it lacks, or a snapshot older than maxAge, makes one
// caller fetch the set again (the others wait for that fetch), at most
// once per refresh.
type keySet struct {
	url     string
	client  *http.Client
	refresh time.Duration
	maxAge  time.Duration
	now     func() time.Time

	snap atomic.Pointer[keySnapshot]

	mu       sync.Mutex
	inflight chan struct{} // closed when the running fetch ends
	tried    time.Time     // when the last fetch began
	fetches  atomic.Int64  // how many fetches were made, for tests
}

type keySnapshot struct {
	keys    []jose.JSONWebKey // public signing keys, at most maxKeys
	fetched time.Time
}

// key returns the public key of kid for alg. A token without kid is
// verified with the only key usable for alg, when there is one.
func (ks *keySet) key(ctx context.Context, kid string, alg string) (*jose.JSONWebKey, error) {
	snap := ks.snap.Load()
	if snap != nil && ks.now().Sub(snap.fetched) < ks.maxAge {
		if k, err := snap.find(kid, alg); err == nil {
			return k, nil
		}
	}
	if err := ks.refetch(ctx); err != nil {
		if snap != nil && kid != "" {
			// The issuer is not answering: keys already known go on verifying.
			if k, err2 := snap.find(kid, alg); err2 == nil {
				return k, nil
			}
		}
		return nil, fmt.Errorf("%w: signing key %q is unknown, and the issuer's keys could not be fetched again: %v", errInvalid, kid, err)
	}
	return ks.snap.Load().find(kid, alg)
}

// refetch fetches the set again unless a fetch began less than refresh
// ago; concurrent callers share one fetch.
func (ks *keySet) refetch(ctx context.Context) error {
	ks.mu.Lock()
	if ch := ks.inflight; ch != nil {
		ks.mu.Unlock()
		select {
		case <-ch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if !ks.tried.IsZero() && ks.now().Sub(ks.tried) < ks.refresh {
		ks.mu.Unlock()
		return nil // fetched a moment ago: what it has is what the issuer has
	}
	ch := make(chan struct{})
	ks.inflight, ks.tried = ch, ks.now()
	ks.mu.Unlock()
	err := ks.fetch(ctx)
	ks.mu.Lock()
	ks.inflight = nil
	ks.mu.Unlock()
	close(ch)
	return err
}

// fetch reads the JWKS: its public signing keys, skipping the keys it
// cannot use (private or symmetric ones, encryption keys, unknown types).
func (ks *keySet) fetch(ctx context.Context) error {
	ks.fetches.Add(1)
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if _, err := getJSON(ctx, ks.client, ks.url, &doc); err != nil {
		return fmt.Errorf("the issuer's keys: %w", err)
	}
	snap := &keySnapshot{fetched: ks.now()}
	for _, raw := range doc.Keys {
		var k jose.JSONWebKey
		if json.Unmarshal(raw, &k) != nil || !k.Valid() || !k.IsPublic() || (k.Use != "" && k.Use != "sig") {
			continue
		}
		snap.keys = append(snap.keys, k)
		if len(snap.keys) == maxKeys {
			break
		}
	}
	if len(snap.keys) == 0 {
		return fmt.Errorf("the issuer's keys at %s hold no public signing key", ks.url)
	}
	ks.snap.Store(snap)
	return nil
}

func (s *keySnapshot) find(kid, alg string) (*jose.JSONWebKey, error) {
	var only *jose.JSONWebKey
	n := 0
	for i := range s.keys {
		k := &s.keys[i]
		if k.Algorithm != "" && k.Algorithm != alg {
			continue
		}
		if kid != "" && k.KeyID == kid {
			return k, nil
		}
		only = k
		n++
	}
	if kid == "" && n == 1 {
		return only, nil
	}
	if kid == "" {
		return nil, fmt.Errorf("%w: the token names no signing key (kid), and the issuer has %d keys for %s", errInvalid, n, alg)
	}
	return nil, fmt.Errorf("%w: signing key %q for %s is not among the issuer's keys", errInvalid, kid, alg)
}
