package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolcat/toolcat/runtime/redisstore"
)

// Sessions shared by replicas: each replica makes its own store on the
// same Redis, and an Update on one is seen by the others' Load.
func ExampleNewSessionStore() {
	rdb := redis.NewClient(&redis.Options{
		Addr:                  "localhost:6379",
		ContextTimeoutEnabled: true,
		DialTimeout:           time.Second,
		ReadTimeout:           time.Second,
		WriteTimeout:          time.Second,
		PoolTimeout:           time.Second,
		MaxRetries:            -1,
	})
	sessions := redisstore.NewSessionStore(rdb, redisstore.SessionStorePrefix("support-agent:session:"))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// A read-modify-write of the turn number: fn may run again if another
	// replica wrote first, so it only reads old and returns a new slice.
	err := sessions.Update(ctx, "conversation-42", 30*time.Minute, func(old []byte) ([]byte, error) {
		turn, _ := strconv.Atoi(string(old)) // 0 for a new session
		return strconv.AppendInt(nil, int64(turn+1), 10), nil
	})
	if err != nil {
		fmt.Println("session not saved:", err)
	}
}
