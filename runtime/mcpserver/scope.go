package mcpserver

import (
	"fmt"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionMetaKey is the _meta member by which a request names its
// conversation among those of its principal, so that a client that holds
// several conversations at once keeps them apart: {"_meta":
// {"toolcat/session": "conv-42"}} on tools/list and tools/call. It is
// optional: a stateless request without it is in its principal's default
// conversation (see ConversationID). Requests of a stateful session (stdio,
// 2025-11-25 HTTP) are in their session, and their _meta names nothing.
const SessionMetaKey = "toolcat/session"

// maxSessionName bounds the conversation name a request gives in _meta;
// a longer one is refused.
const maxSessionName = 200

// AnonymousSessionID is the id of the runtime.Session of the stateless
// requests that have no authenticated principal and name no conversation,
// when the server shares one among them (AnonymousShared, the default).
const AnonymousSessionID = "anonymous"

// ConversationID is the id of the runtime.Session that serves the
// stateless (2026-07-28) requests of principal (the UserID of the
// request's auth.TokenInfo, "" without authentication) that name the
// conversation name in their _meta (SessionMetaKey, "" for none):
//
//	principal  name       id
//	""         ""         "anonymous" (AnonymousSessionID)
//	""         "conv-42"  "meta/conv-42"
//	"alice"    ""         "user/alice"
//	"alice"    "conv-42"  "user/alice/conv-42"
//
// The principal is path-escaped, so that no principal and name reach the
// id of another principal's conversation, and the prefixes keep these ids
// apart from stateful sessions, whose ids are their Mcp-Session-Id. A host
// finds the session with Server.Session(ConversationID(...)).
func ConversationID(principal, name string) string {
	switch {
	case principal == "" && name == "":
		return AnonymousSessionID
	case principal == "":
		return "meta/" + name
	case name == "":
		return "user/" + url.PathEscape(principal)
	}
	return "user/" + url.PathEscape(principal) + "/" + name
}

// StatelessSessionID is ConversationID("", name): the conversation name of
// the requests that have no authenticated principal.
func StatelessSessionID(name string) string { return ConversationID("", name) }

// AnonymousPolicy says what a server does with a stateless request that
// neither an authenticated principal nor a conversation name in its _meta
// places in a conversation.
type AnonymousPolicy int

const (
	// AnonymousShared serves every such request in one conversation of the
	// server, AnonymousSessionID: the model's idempotency keys replay, a
	// search's promotions hold and undo finds the calls, as over stdio,
	// for a client that gives the server nothing to tell its users apart.
	// That is right for a server whose port only one user reaches; put
	// several users behind authentication (each principal has its own
	// conversations).
	AnonymousShared AnonymousPolicy = iota
	// AnonymousRefused answers such a tools/call with JSON-RPC error
	// -32602 that says how to name a conversation; their tools/list is
	// that of a new conversation. Nothing of one request carries over to
	// another unless the client names its conversation.
	AnonymousRefused
)

// WithAnonymous sets what the server does with a stateless request that
// has neither an authenticated principal nor a conversation name
// (default AnonymousShared).
func WithAnonymous(p AnonymousPolicy) Option { return func(s *Server) { s.anonymous = p } }

// principal returns the authenticated user of a request: the UserID of
// the token info that go-sdk's bearer-token middleware
// (auth.RequireBearerToken) put on it, "" without one (a token without a
// UserID cannot call tools of a stateless server: see statelessScope).
func principal(req mcp.Request) string {
	if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil {
		return ex.TokenInfo.UserID
	}
	return ""
}

// metaOf returns the _meta of a tools/list or tools/call request.
func metaOf(req mcp.Request) map[string]any {
	switch r := req.(type) {
	case *mcp.ListToolsRequest:
		if r.Params != nil {
			return r.Params.GetMeta()
		}
	case *mcp.CallToolRequest:
		if r.Params != nil {
			return r.Params.GetMeta()
		}
	}
	return nil
}

// conversationName returns the conversation a request names in its _meta,
// "" for none, or the error that refuses a name the server cannot use.
func conversationName(req mcp.Request) (string, error) {
	v, ok := metaOf(req)[SessionMetaKey]
	if !ok || v == nil {
		return "", nil
	}
	name, ok := v.(string)
	switch {
	case !ok:
		return "", invalidParams(fmt.Sprintf("_meta[%q] is a %T; name the conversation with a string", SessionMetaKey, v))
	case len(name) > maxSessionName:
		return "", invalidParams(fmt.Sprintf("_meta[%q] is %d bytes long; a conversation name has at most %d", SessionMetaKey, len(name), maxSessionName))
	}
	return name, nil
}

// statelessScope returns the id of the runtime.Session of a stateless
// request (ConversationID), the error that refuses its tools/call when the
// server cannot tell whose conversation it is (nil when it may call), or
// err, which refuses the request itself.
func (s *Server) statelessScope(req mcp.Request) (id string, refusal, err error) {
	name, err := conversationName(req)
	if err != nil {
		return "", nil, err
	}
	if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil && ex.TokenInfo.UserID == "" {
		// Authenticated, but as nobody in particular: every holder of
		// such a token would share one conversation.
		return AnonymousSessionID, errNoUser, nil
	}
	p := principal(req)
	if p == "" && name == "" && s.anonymous == AnonymousRefused {
		refusal = errAnonymous
	}
	return ConversationID(p, name), refusal, nil
}

// errNoUser refuses a tools/call whose bearer token names no user.
var errNoUser = invalidParams("the request's bearer token names no user (its auth.TokenInfo has no UserID), so this server " +
	"cannot keep what its calls do apart from other users': the token verifier must set UserID")

// errAnonymous refuses a tools/call that no conversation can be found
// for (AnonymousRefused).
var errAnonymous = invalidParams("this server keeps what a call does (idempotency keys, discovered tools, the undo journal) " +
	"per conversation, and this request names none: authenticate, or name the conversation in _meta[\"" + SessionMetaKey + "\"]")

func invalidParams(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}
