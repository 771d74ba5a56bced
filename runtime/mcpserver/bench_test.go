package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime/mcpserver"
)

type noteIn struct {
	ID int `json:"id" jsonschema:"the note's id"`
}

type noteOut struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
}

// BenchmarkCallHTTP calls get_note over streamable HTTP on loopback, one
// client session per server, through the toolcat server (the full
// dispatcher: session, validation, envelope) and through a go-sdk server
// with mcp.AddTool (typed arguments and result, schemas inferred and
// checked by the SDK) doing the same work, in the same run.
// toolcat-indirect is the toolcat server without the direct path
// (WithDirectCalls(false)): every call through go-sdk's transport.
// client-only answers every call after the first with the go-sdk server's
// first answer, replayed (replayCalls): what is left is the go-sdk
// client's share of an iteration, with net/http on both ends.
func BenchmarkCallHTTP(b *testing.B) {
	reg, _ := newRegistry(b)
	toolcat := mcpserver.New(reg, mcpserver.WithLogger(quiet())).Handler()
	reg2, _ := newRegistry(b)
	indirect := mcpserver.New(reg2, mcpserver.WithLogger(quiet()), mcpserver.WithDirectCalls(false)).Handler()

	sdk := mcp.NewServer(&mcp.Implementation{Name: "sdk", Version: "1"}, &mcp.ServerOptions{Logger: quiet()})
	mcp.AddTool(sdk, &mcp.Tool{Name: "get_note", Description: "Reads a note by id."},
		func(_ context.Context, _ *mcp.CallToolRequest, in noteIn) (*mcp.CallToolResult, noteOut, error) {
			return nil, noteOut{ID: in.ID, Text: "buy milk"}, nil
		})
	stateful := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return sdk }, &mcp.StreamableHTTPOptions{Logger: quiet()})
	stateless := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return sdk }, &mcp.StreamableHTTPOptions{Logger: quiet(), Stateless: true})
	sdkHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})

	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		for _, srv := range []struct {
			name string
			h    http.Handler
		}{{"toolcat", toolcat}, {"toolcat-indirect", indirect}, {"go-sdk", sdkHandler}, {"client-only", replayCalls(sdkHandler)}} {
			b.Run(version+"/"+srv.name, func(b *testing.B) {
				hs := httptest.NewServer(srv.h)
				defer hs.Close()
				ctx := context.Background()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Logger: quiet()}).
					Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true},
						&mcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				p := &mcp.CallToolParams{Name: "get_note", Arguments: map[string]any{"id": 7}}
				b.ReportAllocs()
				for b.Loop() {
					res, err := cs.CallTool(ctx, p)
					if err != nil || res.IsError {
						b.Fatalf("call: %v %+v", err, res)
					}
				}
			})
		}
	}
}

// BenchmarkCallHTTPAuth measures what authorization costs a tools/call
// over streamable HTTP on loopback: the same registry served with
// WithAuthorization (a JWT of the test provider, RS256, verified with
// runtime/mcpserver/oauth; the body read for the tool's scope) and
// without, in the same run. token-ignored sends the token to the server
// without authorization, which reads no further than its header: what
// is left of auth-on's cost is the server's.
func BenchmarkCallHTTPAuth(b *testing.B) {
	e := startAuth(b, authSetup{})
	tok, err := e.op.ClientCredentials(context.Background(), "robot", "robot-secret", e.resource, "mcp", "notes:read")
	if err != nil {
		b.Fatal(err)
	}
	off := httptest.NewServer(mcpserver.New(notesRegistry(b), mcpserver.WithLogger(quiet())).Handler())
	defer off.Close()
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		for _, srv := range []struct{ name, url, token string }{{"auth-off", off.URL, ""}, {"token-ignored", off.URL, tok}, {"auth-on", e.resource, tok}} {
			b.Run(version+"/"+srv.name, func(b *testing.B) {
				ctx := context.Background()
				hc := http.DefaultClient
				if srv.token != "" {
					hc = &http.Client{Transport: bearer(srv.token)}
				}
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Logger: quiet()}).
					Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.url, DisableStandaloneSSE: true, HTTPClient: hc},
						&mcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				p := &mcp.CallToolParams{Name: "read_notes", Arguments: map[string]any{}}
				b.ReportAllocs()
				for b.Loop() {
					res, err := cs.CallTool(ctx, p)
					if err != nil || res.IsError {
						b.Fatalf("call: %v %+v", err, res)
					}
				}
			})
		}
	}
}

// replayCalls serves h, but answers each tools/call after the first with
// the bytes h answered the first (its JSON-RPC id replaced), so that no
// MCP server runs for it.
func replayCalls(h http.Handler) http.Handler {
	var mu sync.Mutex
	type answer struct {
		header     http.Header
		head, tail []byte // the body around the request's id
	}
	answers := map[string]*answer{} // by protocol version
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &msg)
		if msg.Method != "tools/call" {
			h.ServeHTTP(w, r)
			return
		}
		v := r.Header.Get("Mcp-Protocol-Version")
		mu.Lock()
		a := answers[v]
		mu.Unlock()
		if a == nil {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			out := rec.Body.Bytes()
			id := []byte(`"id":` + string(msg.ID) + `,`)
			i := bytes.Index(out, id)
			if i < 0 {
				http.Error(w, "no id in the answer", http.StatusInternalServerError)
				return
			}
			a = &answer{header: rec.Header().Clone(), head: out[:i+5], tail: out[i+len(id)-1:]}
			mu.Lock()
			answers[v] = a
			mu.Unlock()
		}
		for k, vs := range a.header {
			w.Header()[k] = vs
		}
		w.Write(a.head)
		w.Write(msg.ID)
		w.Write(a.tail)
	})
}
