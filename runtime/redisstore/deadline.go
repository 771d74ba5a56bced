package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// A go-redis client built without ContextTimeoutEnabled (its default)
// does not put the context's deadline on the socket: a hung Redis holds
// each command for ReadTimeout (5s by default) times its retries,
// whatever the caller's deadline or the tool's SLA. The stores do not
// rely on the client for that: with such a client, each command runs on a
// goroutine of its own and the store answers when the context ends, with
// the context's error, while the command goes on until the client gives
// up. The connection stays busy until then, and a write sent may still
// be applied: the idempotency store then treats the claim as in doubt, as
// for any command that got no answer. A client with ContextTimeoutEnabled
// pays nothing for this.

// keepsDeadlines reports whether c bounds its commands by their context's
// deadline. A client of a type the store cannot inspect is assumed not
// to.
func keepsDeadlines(c redis.UniversalClient) bool {
	switch c := c.(type) {
	case *redis.Client:
		return c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		return c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		return c.Options().ContextTimeoutEnabled
	}
	return false
}

// within runs op, which sends commands with the context it is given, and
// returns its result; when guard is set (the client does not keep
// deadlines), it returns ctx's error as soon as ctx ends instead. A
// context that cannot end is waited for as it is.
func within[T any](ctx context.Context, guard bool, op func(context.Context) (T, error)) (T, error) {
	if !guard || ctx.Done() == nil {
		return op(ctx)
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := op(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
