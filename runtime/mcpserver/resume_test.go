package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/mcpserver"
)

// TestResumeStream: a tool's call whose SSE stream the server closes
// (SEP-1699) is answered all the same: the client resumes the stream
// with Last-Event-ID and gets the progress and the result from the
// event store. Without one, the client cannot resume.
func TestResumeStream(t *testing.T) {
	for _, tc := range []struct {
		desc    string
		opts    []mcpserver.Option
		resumes bool
	}{
		{"the default event store", nil, true},
		{"no event store", []mcpserver.Option{mcpserver.WithEventStore(nil)}, false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			reg := runtime.New()
			reg.MustRegister(runtime.Tool{
				Meta: runtime.Meta{Name: "export_report", Description: "Exports a long report.", Risk: runtime.RiskLow,
					ArgsSchema: schema(`{"type":"object"}`)},
				Execute: func(ctx context.Context, _ any) (any, error) {
					if ex := mcpserver.Request(ctx).Extra; ex != nil && ex.CloseSSEStream != nil {
						ex.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: time.Millisecond})
					}
					runtime.ReportProgress(ctx, 1, 1, "written")
					return map[string]any{"pages": 12}, nil
				},
			})
			srv := mcpserver.New(reg, append([]mcpserver.Option{mcpserver.WithLogger(quiet())}, tc.opts...)...)
			var resumed atomic.Int32
			h := srv.Handler()
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
					resumed.Add(1)
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(hs.Close)
			progress := make(chan string, 4)
			cl := mcp.NewClient(&mcp.Implementation{Name: "resuming", Version: "1"}, &mcp.ClientOptions{Logger: quiet(),
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { progress <- r.Params.Message }})
			cs, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: 2},
				&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			p := &mcp.CallToolParams{Name: "export_report", Arguments: map[string]any{}}
			p.SetProgressToken("p1")
			res, err := cs.CallTool(ctx, p)
			if !tc.resumes {
				// The stream closed with no event id to resume from: the
				// result it would have carried is lost.
				if err == nil || resumed.Load() > 0 {
					t.Errorf("without an event store: %v, %+v, resumed %d times; want the call lost", err, res, resumed.Load())
				}
				return
			}
			if err != nil || res.IsError || !strings.Contains(text(t, res), `"pages":12`) {
				t.Fatalf("the call of a closed stream: %v %+v", err, res)
			}
			if resumed.Load() == 0 {
				t.Error("the client never resumed the stream: it was not closed")
			}
			// Notifications are handled apart from the result: wait for it.
			select {
			case msg := <-progress:
				if msg != "written" {
					t.Errorf("progress %q", msg)
				}
			case <-ctx.Done():
				t.Error("the progress sent while the stream was closed never came")
			}
		})
	}
}
