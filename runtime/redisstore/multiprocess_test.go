package redisstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/redistest"
	"github.com/toolcat/toolcat/runtime/redisstore"
)

const childEnv = "TOOLCAT_REDISSTORE_CHILD"

// TestMultiProcess runs replicas as separate processes (this test binary,
// re-executed) sharing one Redis. The tool's side effect is an INCR in
// Redis, so executions are counted across processes.
func TestMultiProcess(t *testing.T) {
	if addr := os.Getenv(childEnv); addr != "" {
		t.Skip("child process")
	}
	srv := redistest.Start(t)
	const procs, perProc = 4, 100
	var wg sync.WaitGroup
	outs := make([][]byte, procs)
	errs := make([]error, procs)
	for i := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMultiProcessChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"="+srv.Addr, "TOOLCAT_CHILD_CALLS="+strconv.Itoa(perProc))
			outs[i], errs[i] = cmd.CombinedOutput()
		})
	}
	wg.Wait()
	for i := range procs {
		if errs[i] != nil {
			t.Fatalf("process %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	c := client(t, srv.Addr)
	n, err := c.Get(context.Background(), "side-effects").Int()
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("the tool ran %d times across %d processes, want 1", n, procs)
	}
}

// TestMultiProcessChild is the replica TestMultiProcess starts.
func TestMultiProcessChild(t *testing.T) {
	addr := os.Getenv(childEnv)
	if addr == "" {
		t.Skip("run by TestMultiProcess")
	}
	calls, _ := strconv.Atoi(os.Getenv("TOOLCAT_CHILD_CALLS"))
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	r := runtime.New(runtime.WithIdempotencyStore(redisstore.NewIdempotencyStore(c)))
	err := r.Register(runtime.Tool{
		Meta: runtime.Meta{Name: "charge_card", HasSideEffects: true, IdempotencyRequired: true, SLA: 5 * time.Second},
		Execute: func(ctx context.Context, _ any) (any, error) {
			time.Sleep(50 * time.Millisecond) // let the other processes pile up
			n, err := c.Incr(ctx, "side-effects").Result()
			if err != nil {
				return nil, runtime.DependencyUnavailable(err.Error())
			}
			return map[string]int64{"charge": n}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			res := r.Call(context.Background(), "charge_card", []byte(`{"amount":5}`), runtime.CallOptions{IdempotencyKey: "charge-1"})
			if !res.Success {
				t.Errorf("call failed: %s", res.JSON())
				return
			}
			b, _ := json.Marshal(res.Data)
			if string(b) != `{"charge":1}` {
				t.Errorf("got %s, want the result of the one execution", b)
			}
		})
	}
	wg.Wait()
	fmt.Println("child done")
}
