package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestScriptedConversation replays conversation.json and checks the
// envelopes the model reads, in order: a good call, a base tool, bad
// arguments and the corrected retry, a side effect and its replay, an
// undo, a dependency failure and its fallback, a hidden tool refused then
// found by search, an approval and the approved call.
func TestScriptedConversation(t *testing.T) {
	s, err := parseScript(defaultScript)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	got, err := replay(context.Background(), &out, io.Discard, s)
	if err != nil {
		t.Fatalf("replay: %v\n%s", err, out.String())
	}
	want := []string{
		"ok",                     // get_ticket OPS-12
		"ok",                     // read_file runbook.md
		"invalid_args",           // get_ticket "ops 7"
		"ok",                     // get_ticket OPS-7
		"ok",                     // create_ticket
		"replayed",               // create_ticket, same key
		"ok",                     // undo_last_actions
		"dependency_unavailable", // get_ticket, tracker down
		"ok",                     // get_ticket_snapshot
		"not_found",              // notify_oncall_engineer before a search
		"ok",                     // search_tools_by_keywords
		"approval_required",      // notify_oncall_engineer
		"ok",                     // approved
	}
	if !slices.Equal(got, want) {
		t.Fatalf("outcomes\n got %q\nwant %q\n%s", got, want, out.String())
	}
	text := out.String()
	rest := text
	for _, w := range []string{
		`"field": "/ticket_id"`,
		`"ticket_id": "OPS-100"`,
		`"replayed": true`,
		`"tool": "create_ticket"`,
		"get_ticket_snapshot",
		"tool notify_oncall_engineer is not listed to you yet",
		`"name": "notify_oncall_engineer"`,
		"undo_last_actions, notify_oncall_engineer\n",
		"host shows the user the preview: would page Dana (platform team) about OPS-12",
		`"page_id": "page-1"`,
		"2 tickets in the tracker, 1 page(s) sent",
	} {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("the output lacks, at this point, %q:\n%s", w, text)
		}
		rest = rest[i+len(w):]
	}
	if n := strings.Count(text, "\n== "); n != 10 {
		t.Errorf("%d sections, want 10", n)
	}
}

func TestMainReplays(t *testing.T) {
	var out, errs bytes.Buffer
	if code := Main(nil, strings.NewReader(""), &out, &errs, func(string) string { return "" }); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if !strings.Contains(out.String(), "== 10. An approval, with its dry-run preview") {
		t.Fatalf("no approval section:\n%s", out.String())
	}
}

func TestMainUsage(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		desc string
		args []string
		env  map[string]string
		want string
	}{
		{"live without the endpoint", []string{"--live", "hi"}, nil, "needs OPENAI_BASE_URL and OPENAI_API_KEY"},
		{"live without a key", []string{"--live", "hi"}, map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1"}, "needs OPENAI_BASE_URL and OPENAI_API_KEY"},
		{"live without a message", []string{"--live"}, map[string]string{"OPENAI_BASE_URL": "http://x", "OPENAI_API_KEY": "k"}, "needs the user's message"},
		{"a message without live", []string{"hi"}, nil, "only read with --live"},
		{"no such script", []string{"--script", "testdata/none.json"}, nil, "none.json"},
		{"unknown flag", []string{"--nope"}, nil, "flag provided but not defined"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			var out, errs bytes.Buffer
			if code := Main(tc.args, strings.NewReader(""), &out, &errs, env(tc.env)); code != 2 {
				t.Fatalf("exit %d, want 2: %s", code, errs.String())
			}
			if !strings.Contains(errs.String(), tc.want) {
				t.Fatalf("stderr %q lacks %q", errs.String(), tc.want)
			}
		})
	}
}

func TestParseScriptRefuses(t *testing.T) {
	for _, tc := range []struct{ desc, in, want string }{
		{"not JSON", `{"session":`, "script:"},
		{"unknown field", `{"session":"s","steps":[{"tol":"x"}]}`, "unknown field"},
		{"no session", `{"steps":[{"host":"tools"}]}`, "session"},
		{"no steps", `{"session":"s","steps":[]}`, "0 steps"},
		{"two values", `{"session":"s","steps":[{"host":"tools"}]} {}`, "more than one"},
		{"args not an object", `{"session":"s","steps":[{"tool":"get_ticket","args":[1]}]}`, "JSON object"},
		{"call without args", `{"session":"s","steps":[{"tool":"get_ticket"}]}`, "JSON object"},
		{"args without a tool", `{"session":"s","steps":[{"args":{}}]}`, "without a tool"},
		{"tool and host", `{"session":"s","steps":[{"tool":"get_ticket","args":{},"host":"tools"}]}`, "both"},
		{"unknown host action", `{"session":"s","steps":[{"host":"reboot"}]}`, `unknown host action "reboot"`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := parseScript([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestReplayApproveWithoutPending checks that a script approving when no
// call waits fails with an error, not a panic.
func TestReplayApproveWithoutPending(t *testing.T) {
	s, err := parseScript([]byte(`{"session":"s","steps":[{"host":"approve"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay(context.Background(), io.Discard, io.Discard, s); err == nil || !strings.Contains(err.Error(), "no call waits") {
		t.Fatalf("err %v", err)
	}
}

// fakeModel is a chat-completions endpoint that answers with the replies
// it is given, in order, and keeps every request.
type fakeModel struct {
	t       *testing.T
	mu      sync.Mutex
	replies []string
	reqs    []chatRequest
	auth    []string
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.reqs = append(f.reqs, req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	if len(f.replies) == 0 {
		http.Error(w, "no more replies", http.StatusInternalServerError)
		return
	}
	reply := f.replies[0]
	f.replies = f.replies[1:]
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":%s,"finish_reason":"stop"}]}`, reply)
}

func toolCallsReply(calls ...[3]string) string {
	var parts []string
	for _, c := range calls {
		args, _ := json.Marshal(c[2])
		parts = append(parts, fmt.Sprintf(`{"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}`, c[0], c[1], args))
	}
	return `{"role":"assistant","content":null,"tool_calls":[` + strings.Join(parts, ",") + `]}`
}

func toolNamesOf(t *testing.T, defs json.RawMessage) []string {
	t.Helper()
	var tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(defs, &tools); err != nil {
		t.Fatalf("tools: %v\n%s", err, defs)
	}
	var names []string
	for _, x := range tools {
		if x.Type != "function" {
			t.Errorf("tool %s has type %q", x.Function.Name, x.Type)
		}
		names = append(names, x.Function.Name)
	}
	return names
}

// envelopeOf decodes a tool message's content, an envelope.
func envelopeOf(t *testing.T, m chatMessage) (ok bool, code string, raw string) {
	t.Helper()
	if m.Content == nil {
		t.Fatalf("tool message %s without content", m.ToolCallID)
	}
	var env struct {
		Success bool `json:"success"`
		Error   *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(*m.Content), &env); err != nil {
		t.Fatalf("tool message %s: %v: %s", m.ToolCallID, err, *m.Content)
	}
	if env.Error != nil {
		code = env.Error.Code
	}
	return env.Success, code, *m.Content
}

// TestLive runs the live mode against a fake endpoint: it checks the
// requests the host sends (the model, the key, the session's tools as
// OpenAI functions, the model's tool calls sent back with their ids, each
// envelope as the tool message of its call, the tools found by a search
// added) and that the loop ends when the model answers.
func TestLive(t *testing.T) {
	fake := &fakeModel{t: t, replies: []string{
		toolCallsReply(
			[3]string{"call_a", "get_ticket", `{"ticket_id":"OPS-12"}`},
			[3]string{"call_b", "get_ticket", `{"ticket_id":"ops 12"}`},
		),
		toolCallsReply([3]string{"call_c", "search_tools_by_keywords", `{"query":"wake up the engineer on call"}`}),
		toolCallsReply([3]string{"call_d", "notify_oncall_engineer", `{"ticket_id":"OPS-12","message":"Checkout is down","idempotency_key":"p1"}`}),
		`{"role":"assistant","content":"Dana is paged about OPS-12."}`,
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	var asked []string
	cfg := liveConfig{
		BaseURL: srv.URL + "/v1/", APIKey: "sk-test", Model: "test-model", MaxRounds: 6, Client: srv.Client(),
		Approve: func(tool, preview string) bool { asked = append(asked, tool+": "+preview); return true },
	}
	var out bytes.Buffer
	if err := runLive(context.Background(), &out, io.Discard, cfg, "Is OPS-12 fixed? If not, page someone."); err != nil {
		t.Fatalf("runLive: %v\n%s", err, out.String())
	}
	if len(fake.reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(fake.reqs))
	}
	for i, a := range fake.auth {
		if a != "Bearer sk-test" {
			t.Errorf("request %d: Authorization %q", i, a)
		}
		if fake.reqs[i].Model != "test-model" {
			t.Errorf("request %d: model %q", i, fake.reqs[i].Model)
		}
	}

	first := fake.reqs[0]
	names := toolNamesOf(t, first.Tools)
	for _, w := range []string{"get_ticket", "create_ticket", "read_file", "search_tools_by_keywords", "undo_last_actions"} {
		if !slices.Contains(names, w) {
			t.Errorf("first request lacks tool %s: %v", w, names)
		}
	}
	if slices.Contains(names, "notify_oncall_engineer") {
		t.Errorf("the hidden tool is sent before a search: %v", names)
	}
	if len(first.Messages) != 2 || first.Messages[0].Role != "system" || first.Messages[1].Role != "user" ||
		*first.Messages[1].Content != "Is OPS-12 fixed? If not, page someone." {
		t.Fatalf("first messages: %+v", first.Messages)
	}

	second := fake.reqs[1].Messages
	if len(second) != 5 {
		t.Fatalf("second request: %d messages, want 5 (system, user, assistant, 2 tool)", len(second))
	}
	asst := second[2]
	if asst.Role != "assistant" || len(asst.ToolCalls) != 2 || asst.ToolCalls[0].ID != "call_a" || asst.ToolCalls[1].ID != "call_b" ||
		asst.ToolCalls[0].Type != "function" || asst.ToolCalls[0].Function.Name != "get_ticket" {
		t.Fatalf("assistant message sent back: %+v", asst)
	}
	for i, w := range []struct {
		id, code string
		ok       bool
	}{{"call_a", "", true}, {"call_b", "invalid_args", false}} {
		m := second[3+i]
		if m.Role != "tool" || m.ToolCallID != w.id {
			t.Fatalf("message %d: role %q id %q, want tool %s", 3+i, m.Role, m.ToolCallID, w.id)
		}
		ok, code, raw := envelopeOf(t, m)
		if ok != w.ok || code != w.code {
			t.Errorf("%s: envelope %s, want success %v code %q", w.id, raw, w.ok, w.code)
		}
	}
	if _, _, raw := envelopeOf(t, second[3]); !strings.Contains(raw, `"title":"Checkout returns 502 for some users"`) {
		t.Errorf("call_a envelope: %s", raw)
	}

	if names := toolNamesOf(t, fake.reqs[2].Tools); !slices.Contains(names, "notify_oncall_engineer") {
		t.Errorf("after the search the hidden tool is not sent: %v", names)
	}
	last := fake.reqs[3].Messages
	m := last[len(last)-1]
	if m.Role != "tool" || m.ToolCallID != "call_d" {
		t.Fatalf("last message: %+v", m)
	}
	if ok, _, raw := envelopeOf(t, m); !ok || !strings.Contains(raw, `"page_id":"page-1"`) {
		t.Errorf("approved call's envelope: %s", raw)
	}
	if len(asked) != 1 || !strings.HasPrefix(asked[0], "notify_oncall_engineer: would page Dana") {
		t.Errorf("approvals asked: %q", asked)
	}
	if !strings.Contains(out.String(), "model: Dana is paged about OPS-12.\n") {
		t.Errorf("no final answer:\n%s", out.String())
	}
}

// TestLiveDenied checks that a call the user does not approve is sent back
// as the permission_denied envelope, and nothing is paged.
func TestLiveDenied(t *testing.T) {
	fake := &fakeModel{t: t, replies: []string{
		toolCallsReply([3]string{"call_1", "create_ticket", `{"title":"Nightly backup failed","idempotency_key":"k"}`}),
		`{"role":"assistant","content":"Filed."}`,
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	cfg := liveConfig{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m", MaxRounds: 3, Client: srv.Client(),
		Approve: askApproval(strings.NewReader("n\n"), io.Discard, false)}
	if err := runLive(context.Background(), io.Discard, io.Discard, cfg, "file it"); err != nil {
		t.Fatal(err)
	}
	// create_ticket is low risk: it runs without asking.
	msgs := fake.reqs[1].Messages
	if ok, _, raw := envelopeOf(t, msgs[len(msgs)-1]); !ok {
		t.Fatalf("create_ticket: %s", raw)
	}

	fake = &fakeModel{t: t, replies: []string{
		toolCallsReply([3]string{"call_1", "run_shell_command", `{"argv":["ls"]}`}),
		`{"role":"assistant","content":"I was not allowed."}`,
	}}
	srv2 := httptest.NewServer(fake)
	defer srv2.Close()
	cfg.BaseURL, cfg.Client = srv2.URL+"/v1", srv2.Client()
	if err := runLive(context.Background(), io.Discard, io.Discard, cfg, "list the files"); err != nil {
		t.Fatal(err)
	}
	msgs = fake.reqs[1].Messages
	if _, code, raw := envelopeOf(t, msgs[len(msgs)-1]); code != "permission_denied" || !strings.Contains(raw, "the user said no") {
		t.Fatalf("denied call: %s", raw)
	}
}

func TestLiveErrors(t *testing.T) {
	loop := toolCallsReply([3]string{"c", "get_ticket", `{"ticket_id":"OPS-12"}`})
	for _, tc := range []struct {
		desc    string
		replies []string
		handler http.HandlerFunc
		want    string
	}{
		{desc: "the model never answers", replies: []string{loop, loop, loop}, want: "did not answer within 3 requests"},
		{desc: "an HTTP error", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
		}, want: "401 Unauthorized: {\"error\":{\"message\":\"bad key\"}}"},
		{desc: "not JSON", handler: func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>") }, want: "decoding the answer"},
		{desc: "no choices", handler: func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"choices":[]}`) }, want: "no choices"},
		{desc: "a tool call without an id", replies: []string{`{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"get_ticket","arguments":"{}"}}]}`}, want: "without an id"},
		{desc: "an answer too large", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Write(bytes.Repeat([]byte(" "), maxResponseBytes+10))
		}, want: "larger than"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			var h http.Handler = tc.handler
			if tc.handler == nil {
				h = &fakeModel{t: t, replies: tc.replies}
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			cfg := liveConfig{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m", MaxRounds: 3, Client: srv.Client()}
			err := runLive(context.Background(), io.Discard, io.Discard, cfg, "hi")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestLiveMalformedArguments checks that arguments the model garbled, and
// a tool that does not exist, go back as envelopes the model can act on,
// and the loop goes on.
func TestLiveMalformedArguments(t *testing.T) {
	fake := &fakeModel{t: t, replies: []string{
		toolCallsReply(
			[3]string{"call_1", "get_ticket", `{"ticket_id": "OPS-12"`},
			[3]string{"call_2", "get_tickets", `{"ticket_id":"OPS-12"}`},
			[3]string{"call_3", "get_current_time", ``},
		),
		`{"role":"assistant","content":"Sorry."}`,
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	cfg := liveConfig{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m", MaxRounds: 3, Client: srv.Client()}
	if err := runLive(context.Background(), io.Discard, io.Discard, cfg, "hi"); err != nil {
		t.Fatal(err)
	}
	msgs := fake.reqs[1].Messages
	for i, w := range []string{"invalid_args", "not_found", ""} {
		ok, code, raw := envelopeOf(t, msgs[3+i])
		if code != w || ok != (w == "") {
			t.Errorf("%s: %s, want code %q", msgs[3+i].ToolCallID, raw, w)
		}
	}
	if _, _, raw := envelopeOf(t, msgs[4]); !strings.Contains(raw, "get_ticket") {
		t.Errorf("not_found names no close tool: %s", raw)
	}
}
