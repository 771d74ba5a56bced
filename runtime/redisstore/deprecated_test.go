package redisstore_test

import (
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/redisstore"
)

// The earlier names still compile, with the types of their new names.
var (
	oldClient                             = redis.NewClient(&redis.Options{Addr: "127.0.0.1:0"})
	_         *redisstore.Store           = redisstore.New(oldClient, redisstore.WithPrefix("p:"), redisstore.WithPollInterval(time.Millisecond, time.Second))
	_         runtime.IdempotencyStore    = (*redisstore.IdempotencyStore)(nil)
	_         redisstore.Option           = redisstore.IdempotencyStorePrefix("p:")
	_         redisstore.SessionOption    = redisstore.WithSessionPrefix("p:")
	_                                     = redisstore.NewSessionStore(oldClient, redisstore.WithSessionRetries(3, time.Millisecond, time.Second))
	_         *redisstore.ToolStates      = redisstore.NewToolStates(oldClient, redisstore.WithToolStatesPrefix("p:"), redisstore.WithToolStatesPoll(time.Second))
	_         redisstore.ToolStatesOption = redisstore.ToolStateStorePoll(time.Second)
)
