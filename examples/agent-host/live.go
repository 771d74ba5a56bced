package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/export"
)

// liveConfig configures the live mode.
type liveConfig struct {
	BaseURL   string // such as https://api.openai.com/v1; /chat/completions is added
	APIKey    string
	Model     string
	MaxRounds int // requests to the model at most
	Client    *http.Client
	// Approve asks the user about a call that waits for approval, showing
	// the tool and its dry-run preview; true approves it.
	Approve func(tool, preview string) bool
}

const (
	maxResponseBytes = 8 << 20
	systemPrompt     = "You are the on-call assistant of a small operations team. Use the tools to read and file tickets, " +
		"read the runbooks in the workspace, and page the engineer on call when the user asks. " +
		"Every tool answers with a JSON envelope: on failure, follow its suggestion."
)

// chatMessage is a message of the chat-completions API.
type chatMessage struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatRequest struct {
	Model    string          `json:"model"`
	Messages []chatMessage   `json:"messages"`
	Tools    json.RawMessage `json:"tools,omitempty"`
}

type chatResponse struct {
	Choices []struct {
		Message      chatMessage `json:"message"`
		FinishReason string      `json:"finish_reason"`
	} `json:"choices"`
}

func text(s string) *string { return &s }

// runLive holds one turn of a conversation with a model: the user's
// message, then requests to the endpoint, each with the session's tool
// definitions as they are now (a search adds the tools it finds), running
// the model's tool calls in the session and sending their envelopes back
// as tool messages, until the model answers without a tool call. It prints
// the calls, the envelopes and the answer to out.
func runLive(ctx context.Context, out, logs io.Writer, cfg liveConfig, msg string, opts ...runtime.Option) error {
	h, err := newHost("live-conversation", logs, opts...)
	if err != nil {
		return err
	}
	defer h.Close()
	p := &printer{out: out}
	messages := []chatMessage{
		{Role: "system", Content: text(systemPrompt)},
		{Role: "user", Content: text(msg)},
	}
	fmt.Fprintf(out, "user: %s\n", msg)
	for round := 0; round < cfg.MaxRounds; round++ {
		defs, err := h.sess.Definitions(ctx, export.Format(export.OpenAIChat))
		if err != nil {
			return err
		}
		reply, err := complete(ctx, cfg, chatRequest{Model: cfg.Model, Messages: messages, Tools: defs})
		if err != nil {
			return err
		}
		if len(reply.ToolCalls) == 0 {
			answer := ""
			if reply.Content != nil {
				answer = *reply.Content
			}
			fmt.Fprintf(out, "model: %s\n", answer)
			return h.sess.EndTurn(ctx)
		}
		for i := range reply.ToolCalls {
			reply.ToolCalls[i].Type = "function"
		}
		messages = append(messages, chatMessage{Role: "assistant", Content: reply.Content, ToolCalls: reply.ToolCalls})
		for _, c := range reply.ToolCalls {
			res := h.call(ctx, out, p, cfg, c)
			messages = append(messages, chatMessage{Role: "tool", ToolCallID: c.ID, Content: text(string(res.JSON()))})
		}
	}
	return fmt.Errorf("the model did not answer within %d requests (--max-rounds)", cfg.MaxRounds)
}

// call runs one tool call of the model in the session and prints it. A
// call that waits for approval is shown to the user at once; the envelope
// the model reads is the approved call's, or the denial.
func (h *host) call(ctx context.Context, out io.Writer, p *printer, cfg liveConfig, c toolCall) runtime.Result {
	args := []byte(c.Function.Arguments)
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	fmt.Fprintf(out, "model calls %s %s\n", c.Function.Name, compact(args))
	res := h.sess.Call(runtime.ContextWithCallID(ctx, c.ID), c.Function.Name, args, runtime.CallOptions{})
	if res.Pending != nil {
		p.envelope(res)
		id := res.Pending.ID
		var err error
		if cfg.Approve != nil && cfg.Approve(res.Pending.Tool, previewText(res.Pending.Preview)) {
			fmt.Fprintf(out, "host: the user approves %s\n", id)
			res, err = h.sess.Approve(ctx, id)
		} else {
			fmt.Fprintf(out, "host: the user denies %s\n", id)
			res, err = h.sess.Deny(ctx, id, "the user said no")
		}
		if err != nil {
			res = runtime.Fail(runtime.Internal("the host could not resolve the approval: " + err.Error()))
		}
	}
	p.envelope(res)
	return res
}

// complete sends one chat-completions request and returns the model's
// message.
func complete(ctx context.Context, cfg liveConfig, body chatRequest) (chatMessage, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return chatMessage{}, err
	}
	url := strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return chatMessage{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+cfg.APIKey)
	client := cfg.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return chatMessage{}, fmt.Errorf("chat completions: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return chatMessage{}, fmt.Errorf("chat completions: reading the answer: %w", err)
	}
	if len(data) > maxResponseBytes {
		return chatMessage{}, fmt.Errorf("chat completions: answer larger than %d bytes", maxResponseBytes)
	}
	if resp.StatusCode != http.StatusOK {
		return chatMessage{}, fmt.Errorf("chat completions: %s: %s", resp.Status, clip(string(data), 500))
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return chatMessage{}, fmt.Errorf("chat completions: decoding the answer: %w", err)
	}
	if len(cr.Choices) == 0 {
		return chatMessage{}, errors.New("chat completions: the answer has no choices")
	}
	m := cr.Choices[0].Message
	for _, c := range m.ToolCalls {
		if c.ID == "" || c.Function.Name == "" {
			return chatMessage{}, errors.New("chat completions: a tool call without an id or a name")
		}
	}
	return m, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// askApproval asks the user on in whether to approve a call; with yes it
// approves every call without asking.
func askApproval(in io.Reader, out io.Writer, yes bool) func(tool, preview string) bool {
	r := bufio.NewReader(in)
	return func(tool, preview string) bool {
		fmt.Fprintf(out, "%s needs your approval: %s\napprove? [y/N] ", tool, preview)
		if yes {
			fmt.Fprintln(out, "y (--yes)")
			return true
		}
		line, _ := r.ReadString('\n')
		line = strings.ToLower(strings.TrimSpace(line))
		return line == "y" || line == "yes"
	}
}
