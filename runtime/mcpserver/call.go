package mcpserver

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime"
)

// approvalInput is the id of the elicitation that asks the user to
// approve a call.
const approvalInput = "toolcat_approval"

// handle runs one tools/call through the session.
func (c *conn) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if name, ok := ctx.Value(routedKey{}).(string); ok && req.Params.Name == routeName {
		// Called through the route: the tool's name is the one the
		// client sent, on a copy, so that the SDK's request (which it
		// may send to handle again with the client's input) keeps the
		// route.
		r, p := *req, *req.Params
		p.Name = name
		r.Params = &p
		req = &r
	}
	p := req.Params
	ctx = context.WithValue(ctx, peerKey{}, req.Session)
	ctx = context.WithValue(ctx, requestKey{}, req)
	if tok := p.GetProgressToken(); tok != nil && req.Session != nil {
		ss, logger := req.Session, c.s.logger
		ctx = runtime.WithProgressReporter(ctx, func(progress, total float64, msg string) {
			err := ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: progress, Total: total, Message: msg})
			if err != nil {
				logger.Debug("mcpserver: progress not sent", "tool", p.Name, "err", err)
			}
		})
	}
	if strings.HasPrefix(p.RequestState, approvalPrefix) {
		return c.resume(ctx, req)
	}
	sess, err := c.session(req)
	if err != nil {
		return nil, err
	}
	raw := []byte(p.Arguments)
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		raw = []byte("{}") // arguments are optional in MCP
	}
	res := sess.Call(ctx, p.Name, raw, runtime.CallOptions{})
	if pe, ok := res.Data.(ProtocolError); ok && res.Success && !res.Replayed && res.Untrusted == nil {
		if err := pe.MCPError(); err != nil {
			return nil, err
		}
	}
	if res.Pending != nil && canElicit(req) {
		ask := c.s.askApproval(sess, res.Pending)
		if req.ProtocolVersion() >= statelessVersion {
			return ask, nil // the client asks the user and retries the call
		}
		answer, err := req.Session.Elicit(ctx, ask.InputRequests[approvalInput].(*mcp.ElicitParams))
		if err != nil {
			// The call stays pending: the model reads approval_required,
			// and the host may still approve it (Server.Session).
			c.s.logger.Warn("mcpserver: the client could not be asked to approve a call", "tool", p.Name, "call", res.Pending.ID, "err", err)
			return toResult(res), nil
		}
		return toResult(decide(ctx, sess, res.Pending.ID, answer)), nil
	}
	if (p.Name == runtime.SearchToolsByKeywords || p.Name == runtime.SearchToolsByRegex) && promoted(res) {
		c.changed(ctx, sess)
	}
	return toResult(res), nil
}

// promoted reports whether a search may have promoted a hidden tool: it
// found one that was not listed yet. A search that found only listed tools
// sends no list_changed, so that every list_changed is followed by a
// tools/list that differs.
func promoted(res runtime.Result) bool {
	sr, ok := res.Data.(runtime.SearchResult)
	if !ok || !res.Success {
		return res.Success // not the built-in's result: list again to be sure
	}
	for _, m := range sr.Matches {
		if !m.Listed {
			return true
		}
	}
	return false
}

// canElicit reports whether the client takes form elicitations.
func canElicit(req *mcp.CallToolRequest) bool {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// toResult maps an envelope onto a tools/call result. A result whose
// MCPContent or MCPResult panics is answered as an internal error.
func toResult(res runtime.Result) (out *mcp.CallToolResult) {
	defer func() {
		if p := recover(); p != nil {
			out = toResult(runtime.Fail(runtime.Internal(fmt.Sprintf("the tool's result could not be turned into MCP content: %v", p))))
		}
	}()
	env := res.JSON()
	if !res.Success {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(env)}}}
	}
	if res.Untrusted == nil && !res.Replayed {
		if r, ok := res.Data.(ToolResult); ok {
			if out := r.MCPResult(); out != nil {
				return out
			}
		}
		if cc, ok := res.Data.(Content); ok {
			blocks := cc.MCPContent()
			if blocks == nil {
				blocks = []mcp.Content{}
			}
			return &mcp.CallToolResult{Content: blocks}
		}
	}
	out = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(env)}}}
	if res.Untrusted == nil {
		if d := dataOf(env); len(d) > 0 && d[0] == '{' {
			out.StructuredContent = json.RawMessage(d)
		}
	}
	return out
}

// dataOf returns the data of a successful envelope as it is encoded in it.
func dataOf(env []byte) []byte {
	const head = `{"success":true,"data":`
	if !bytes.HasPrefix(env, []byte(head)) {
		return nil
	}
	d := env[len(head):]
	if t, ok := bytes.CutSuffix(d, []byte(`,"replayed":true}`)); ok {
		return t
	}
	d, _ = bytes.CutSuffix(d, []byte("}"))
	return d
}

// approvalState is what the approval's elicitation carries to the retried
// call: which session's pending call it approves, and of which tool.
type approvalState struct {
	Session string `json:"s"`
	Call    string `json:"c"`
	Tool    string `json:"t"`
}

// maxStateLen bounds the requestState a client sends back.
const maxStateLen = 2048

// approvalPrefix starts the requestState of an approval; a call retried
// with another requestState goes to its tool (see Request).
const approvalPrefix = "toolcat-approval."

func (s *Server) sign(st approvalState) string {
	b, _ := json.Marshal(st)
	m := hmac.New(sha256.New, s.stateKey)
	m.Write(b)
	return approvalPrefix + base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *Server) verify(state string) (approvalState, error) {
	var st approvalState
	body, sig, ok := strings.Cut(strings.TrimPrefix(state, approvalPrefix), ".")
	if !ok || len(state) > maxStateLen {
		return st, errors.New("requestState is not one this server made")
	}
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return st, errors.New("requestState is not one this server made")
	}
	m := hmac.New(sha256.New, s.stateKey)
	m.Write(b)
	if !hmac.Equal(got, m.Sum(nil)) {
		return st, errors.New("requestState does not carry this server's signature")
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, errors.New("requestState is not one this server made")
	}
	return st, nil
}

// approvalSchema is the form of the approval: submitting it approves the
// call unless approve is false; declining it denies the call.
var approvalSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"approve":{"type":"boolean","title":"Approve","description":"Run the call as previewed","default":true},` +
	`"reason":{"type":"string","title":"Reason","description":"If you do not approve it: why (the assistant is told)"}}}`)

// askApproval returns the elicitation of a call that waits for the user's
// approval: a stateful client is asked at once (elicitation/create); a
// 2026-07-28 client gets it as an input_required result and retries the
// call with the answer and the signed requestState.
func (s *Server) askApproval(sess *runtime.Session, pc *runtime.PendingCall) *mcp.CallToolResult {
	var msg strings.Builder
	fmt.Fprintf(&msg, "Approve the call of %s? %s\n", pc.Tool, pc.Reason)
	fmt.Fprintf(&msg, "Preview: %s\n", pc.Preview.Summary)
	for _, e := range pc.Preview.Effects {
		fmt.Fprintf(&msg, "- %s\n", e)
	}
	args := string(pc.Args)
	if len(args) > 1000 {
		args = strings.ToValidUTF8(args[:1000], "") + "…"
	}
	fmt.Fprintf(&msg, "Arguments: %s", args)
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approvalInput: &mcp.ElicitParams{
			Mode: "form", Message: msg.String(), RequestedSchema: approvalSchema,
		}},
		RequestState: s.sign(approvalState{Session: sess.ID(), Call: pc.ID, Tool: pc.Tool}),
	}
}

// resume handles the call retried with the user's answer to the approval.
func (c *conn) resume(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p := req.Params
	st, err := c.s.verify(p.RequestState)
	if err == nil && st.Tool != p.Name {
		err = fmt.Errorf("requestState is for a call of %s, not %s", st.Tool, p.Name)
	}
	if err != nil {
		return nil, invalidParams(err.Error())
	}
	sess, err := c.session(req)
	if err != nil {
		return nil, err
	}
	if st.Session != sess.ID() {
		// Signed for another conversation: another principal's, or
		// another session's. Its approval is not this request's to give.
		return nil, invalidParams("requestState is for another conversation")
	}
	answer, _ := p.InputResponses[approvalInput].(*mcp.ElicitResult)
	if answer == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "inputResponses holds no answer to " + approvalInput}
	}
	return toResult(decide(ctx, sess, st.Call, answer)), nil
}

// decide approves or denies the pending call id with the user's answer to
// its elicitation.
func decide(ctx context.Context, sess *runtime.Session, id string, answer *mcp.ElicitResult) runtime.Result {
	approve, reason := false, ""
	switch answer.Action {
	case "accept":
		approve = true
		if v, ok := answer.Content["approve"].(bool); ok {
			approve = v
		}
		reason, _ = answer.Content["reason"].(string)
		if !approve && reason == "" {
			reason = "the user did not approve it"
		}
	case "decline":
		reason = "the user declined it"
	default:
		reason = "the user dismissed the request for approval"
	}
	var res runtime.Result
	var err error
	if approve {
		res, err = sess.Approve(ctx, id)
	} else {
		res, err = sess.Deny(ctx, id, reason)
	}
	if err != nil {
		code := runtime.CodeNotFound
		if errors.Is(err, runtime.ErrSessionState) {
			code = runtime.CodeDependencyUnavailable
		}
		res = runtime.Fail(runtime.Errorf(code, "%s", err.Error()))
	}
	return res
}
