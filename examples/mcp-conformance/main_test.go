package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/examples/mcp-conformance/fixtures"
)

// serve runs the command with serve --http on a free loopback port and
// returns the URL it printed; the server stops at the end of the test,
// and the test checks that it exited cleanly.
func serve(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"serve", "--http", "127.0.0.1:0"}, w, &stderr)
		w.Close()
	}()
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no URL printed: %v; stderr: %s", err, stderr.String())
	}
	go io.Copy(io.Discard, out)
	t.Cleanup(func() {
		cancel()
		select {
		case c := <-code:
			if c != 0 {
				t.Errorf("serve exited %d; stderr: %s", c, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop after its context ended")
		}
	})
	return strings.TrimSpace(url)
}

// client is what a test client received besides results.
type client struct {
	mu       sync.Mutex
	progress []float64
	logs     []string
	prompts  []string
	forms    []json.RawMessage
}

// connect opens a session of protocol version to url, as a client that
// samples and elicits.
func (c *client) connect(t *testing.T, url, version string) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			if len(req.Params.Messages) > 0 {
				if tc, ok := req.Params.Messages[0].Content.(*mcp.TextContent); ok {
					c.prompts = append(c.prompts, tc.Text)
				}
			}
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "Paris"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			b, _ := json.Marshal(req.Params.RequestedSchema)
			c.mu.Lock()
			c.forms = append(c.forms, b)
			c.mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "ada", "email": "ada@example.com"}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			c.mu.Lock()
			c.logs = append(c.logs, req.Params.Data.(string))
			c.mu.Unlock()
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, req.Params.Progress)
			c.mu.Unlock()
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fixture-test", Version: "1"}, opts).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// TestServeBothRevisions lists and calls the content fixtures over
// streamable HTTP at 2025-11-25 (a session) and 2026-07-28 (stateless).
func TestServeBothRevisions(t *testing.T) {
	url := serve(t)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			cs := new(client).connect(t, url, version)
			list, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			byName := map[string]*mcp.Tool{}
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
				byName[tool.Name] = tool
				if tool.Description == "" || tool.InputSchema == nil {
					t.Errorf("%s: no description or input schema", tool.Name)
				}
			}
			var want []string
			for _, m := range fixtures.Metas() {
				want = append(want, m.Name)
			}
			if !slices.Equal(names, want) || len(want) != 28 {
				t.Errorf("tools/list:\n got %v\nwant the %d fixtures %v", names, len(want), want)
			}
			if byName["test_simple_text"].OutputSchema == nil || byName["test_image_content"].OutputSchema != nil {
				t.Error("outputSchema: want one exactly for the tools with a result schema")
			}
			in, _ := json.Marshal(byName["json_schema_2020_12_tool"].InputSchema)
			for _, kw := range []string{`"$schema"`, `"$defs"`, `"$anchor":"addressDef"`, `"allOf"`, `"if"`, `"then"`, `"else"`} {
				if !bytes.Contains(in, []byte(kw)) {
					t.Errorf("json_schema_2020_12_tool lost %s: %s", kw, in)
				}
			}
			in, _ = json.Marshal(byName["test_x_mcp_header"].InputSchema)
			if !bytes.Contains(in, []byte(`"x-mcp-header":"Region"`)) {
				t.Errorf("test_x_mcp_header lost its x-mcp-header: %s", in)
			}

			res := call(t, cs, "test_simple_text", map[string]any{})
			if res.IsError || !strings.Contains(string(mustJSON(res.StructuredContent)), "This is a simple text response for testing.") {
				t.Errorf("test_simple_text: %s", mustJSON(res))
			}

			res = call(t, cs, "test_image_content", nil)
			img, ok := only[*mcp.ImageContent](res)
			if !ok || img.MIMEType != "image/png" {
				t.Fatalf("test_image_content: %s", mustJSON(res))
			}
			if p, err := png.Decode(bytes.NewReader(img.Data)); err != nil || p.Bounds().Dx() != 1 {
				t.Errorf("test_image_content: not a 1x1 PNG: %v", err)
			}

			res = call(t, cs, "test_audio_content", nil)
			audio, ok := only[*mcp.AudioContent](res)
			if !ok || audio.MIMEType != "audio/wav" || !bytes.HasPrefix(audio.Data, []byte("RIFF")) || string(audio.Data[8:12]) != "WAVE" {
				t.Errorf("test_audio_content: %s", mustJSON(res))
			}

			res = call(t, cs, "test_embedded_resource", nil)
			if r, ok := only[*mcp.EmbeddedResource](res); !ok || r.Resource.URI != "test://embedded-resource" || r.Resource.Text == "" {
				t.Errorf("test_embedded_resource: %s", mustJSON(res))
			}

			res = call(t, cs, "test_multiple_content_types", nil)
			var kinds []string
			for _, c := range res.Content {
				b, _ := json.Marshal(c)
				var k struct{ Type string }
				json.Unmarshal(b, &k)
				kinds = append(kinds, k.Type)
			}
			if !slices.Equal(kinds, []string{"text", "image", "resource"}) {
				t.Errorf("test_multiple_content_types: blocks %v", kinds)
			}

			res = call(t, cs, "test_error_handling", nil)
			if text := textOf(res); !res.IsError || !strings.Contains(text, `"code":"external_error"`) || !strings.Contains(text, "intentionally") {
				t.Errorf("test_error_handling: %s", mustJSON(res))
			}

			res = call(t, cs, "test_x_mcp_header", map[string]any{"region": "eu-west", "level": 2})
			if !strings.Contains(string(mustJSON(res.StructuredContent)), `"region":"eu-west"`) {
				t.Errorf("test_x_mcp_header: %s", mustJSON(res))
			}
			res = call(t, cs, "test_x_mcp_header", map[string]any{"level": -1})
			if !res.IsError || !strings.Contains(textOf(res), "invalid_args") {
				t.Errorf("test_x_mcp_header with level -1: want invalid_args, got %s", mustJSON(res))
			}
		})
	}
}

// TestServeClientFeatures checks the fixtures that talk to the client
// during a call, in a 2025-11-25 session: progress, logging, sampling and
// elicitation.
func TestServeClientFeatures(t *testing.T) {
	url := serve(t)
	c := new(client)
	cs := c.connect(t, url, "2025-11-25")
	ctx := context.Background()

	p := &mcp.CallToolParams{Name: "test_tool_with_progress", Arguments: map[string]any{}}
	p.SetProgressToken("tok-1")
	if res, err := cs.CallTool(ctx, p); err != nil || res.IsError {
		t.Fatalf("test_tool_with_progress: %v %s", err, mustJSON(res))
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	if res := call(t, cs, "test_tool_with_logging", nil); !strings.Contains(string(mustJSON(res.StructuredContent)), `"messages":3`) {
		t.Errorf("test_tool_with_logging: %s", mustJSON(res))
	}
	res := call(t, cs, "test_sampling", map[string]any{"prompt": "Capital of France?"})
	if !strings.Contains(string(mustJSON(res.StructuredContent)), "LLM response: Paris") {
		t.Errorf("test_sampling: %s", mustJSON(res))
	}
	res = call(t, cs, "test_elicitation", map[string]any{"message": "Who are you?"})
	if got := string(mustJSON(res.StructuredContent)); !strings.Contains(got, `"action":"accept"`) || !strings.Contains(got, `"username":"ada"`) {
		t.Errorf("test_elicitation: %s", got)
	}
	call(t, cs, "test_elicitation_sep1034_defaults", nil)
	// test_elicitation_sep1330_enums is left to the conformance suite: the
	// go-sdk v1.8 client refuses its titled multi-select (items with anyOf)
	// before its handler sees the form.
	res = call(t, cs, "test_sampling", map[string]any{})
	if !res.IsError || !strings.Contains(textOf(res), "invalid_args") {
		t.Errorf("test_sampling without a prompt: want invalid_args, got %s", mustJSON(res))
	}

	// Notifications may trail the result that follows them.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c.mu.Lock()
		n, l := len(c.progress), len(c.logs)
		c.mu.Unlock()
		if (n >= 3 && l >= 3) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !slices.Equal(c.progress, []float64{0, 50, 100}) {
		t.Errorf("progress: got %v, want [0 50 100]", c.progress)
	}
	if len(c.logs) != 3 || c.logs[0] != "Tool execution started" {
		t.Errorf("logs: %q", c.logs)
	}
	if !slices.Equal(c.prompts, []string{"Capital of France?"}) {
		t.Errorf("sampling prompts: %q", c.prompts)
	}
	if len(c.forms) != 2 || !bytes.Contains(c.forms[0], []byte(`"required":["username","email"]`)) || !bytes.Contains(c.forms[1], []byte(`"default":"John Doe"`)) {
		t.Errorf("elicitation forms: %s", c.forms)
	}
}

// TestUsage checks the command's usage errors.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"serve"}, {"serve", "--stdio", "--http", "127.0.0.1:0"}, {"listen"}, {"serve", "--http"}, {"serve", "--stdio", "extra"}} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "usage:") {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--http", "256.0.0.1:bad"}, io.Discard, &stderr); code != 1 {
		t.Errorf("bad address: exit %d, stderr %q", code, stderr.String())
	}
}

// only returns the one content block of res, of type T.
func only[T mcp.Content](res *mcp.CallToolResult) (T, bool) {
	var zero T
	if res.IsError || len(res.Content) != 1 {
		return zero, false
	}
	c, ok := res.Content[0].(T)
	return c, ok
}

func textOf(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// TestServeStdio runs serve --stdio on pipes standing for the process's
// standard input and output, and calls a fixture through them; closing
// the input ends the command.
func TestServeStdio(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, stdout := os.Stdin, os.Stdout
	os.Stdin, os.Stdout = inR, outW
	t.Cleanup(func() { os.Stdin, os.Stdout = stdin, stdout })

	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() { code <- run(context.Background(), []string{"serve", "--stdio"}, io.Discard, &stderr) }()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fixture-test", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, cs, "test_image_content", nil)
	if img, ok := only[*mcp.ImageContent](res); !ok || img.MIMEType != "image/png" {
		t.Errorf("test_image_content over stdio: %s", mustJSON(res))
	}
	cs.Close()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("serve --stdio exited %d; stderr: %s", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Error("serve --stdio did not stop when its input closed")
	}
}

// TestServeInputRequired runs the multi-round-trip fixtures at 2026-07-28
// with go-sdk's client, which answers input_required results with its
// handlers and calls again; then it hands back a changed requestState.
func TestServeInputRequired(t *testing.T) {
	url := serve(t)
	answers := map[string]any{"name": "Ada", "color": "blue", "ok": true}
	opts := &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "Paris"}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: answers}, nil
		},
	}
	connect := func(opts *mcp.ClientOptions) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "fixture-test", Version: "1"}, opts)
		c.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	cs := connect(opts)
	for name, want := range map[string]string{
		"test_input_required_result_elicitation":     "Hello, Ada!",
		"test_input_required_result_sampling":        "Sampling response: Paris",
		"test_input_required_result_list_roots":      "1 root(s): file:///work",
		"test_input_required_result_request_state":   "state-ok",
		"test_input_required_result_multiple_inputs": "Paris Ada: 1 root(s) visible",
		"test_input_required_result_multi_round":     "Multi-round complete: Ada likes blue",
		"test_input_required_result_tampered_state":  "state-ok",
		"test_input_required_result_capabilities":    "were answered",
	} {
		if res := call(t, cs, name, nil); res.IsError || !strings.Contains(textOf(res), want) {
			t.Errorf("%s: want %q, got %s", name, want, mustJSON(res))
		}
	}

	// By hand: the first round, then the answer with a changed state.
	cs = connect(&mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	first := call(t, cs, "test_input_required_result_tampered_state", nil)
	if !first.NeedsInput() || first.RequestState == "" || first.InputRequests["confirm"] == nil {
		t.Fatalf("first round: want input_required asking to confirm, with a requestState; got %s", mustJSON(first))
	}
	yes := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}}
	for _, state := range []string{first.RequestState + "-TAMPERED", "x" + first.RequestState[1:], "not.signed", strings.Repeat("a", 5000)} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_input_required_result_tampered_state", InputResponses: yes, RequestState: state})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("state %.40q: want JSON-RPC invalid params, got %v %s", state, err, mustJSON(res))
		}
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_input_required_result_tampered_state", InputResponses: yes, RequestState: first.RequestState})
	if err != nil || res.IsError || !strings.Contains(textOf(res), "state-ok") {
		t.Errorf("the state as given: want state-ok, got %v %s", err, mustJSON(res))
	}
}

// TestServeMissingCapability calls test_missing_capability at 2026-07-28
// without and with the sampling capability.
func TestServeMissingCapability(t *testing.T) {
	url := serve(t)
	cs := new(client).connect(t, url, "2026-07-28") // samples: declares sampling
	if res := call(t, cs, "test_missing_capability", nil); res.IsError || !strings.Contains(textOf(res), "the tool ran") {
		t.Errorf("with sampling: %s", mustJSON(res))
	}
	bare, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	res, err := bare.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_missing_capability"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapabilities || !bytes.Contains(je.Data, []byte(`"sampling":{}`)) {
		t.Errorf("without sampling: want -32021 naming sampling, got %v %s", err, mustJSON(res))
	}
}
