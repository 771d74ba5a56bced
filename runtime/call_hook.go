package runtime

import (
	"context"
	"time"
)

// CallHook runs around every call the registry or a session answers, the
// calls observers are told of (see CallEvent), and around every
// Registry.Revert: before the call, with its context, and after it, with
// the context the call ran with. A tracer puts a span around each call this
// way (runtime/telemetry), and because the call runs with the context
// BeforeCall returned, the calls a tool's body makes with CallTool, and the
// reverts of undo_last_actions, nest under it. Set it with WithCallHook; a
// registry without one pays nothing for it.
//
// Both methods run on the caller's goroutine and must be quick and safe for
// concurrent use.
type CallHook interface {
	// BeforeCall runs before the call; the call runs with the context it
	// returns, which must be ctx or derive from it.
	BeforeCall(ctx context.Context, c CallStart) context.Context
	// AfterCall runs once the call answered, with the context BeforeCall
	// returned, what observers are told and the envelope, which it must
	// not modify nor keep.
	AfterCall(ctx context.Context, ev CallEvent, res Result)
}

// ApprovalHook is implemented by a CallHook that is also told of the
// approvals of a session's calls: when a call is kept pending for the
// user's approval, and when the user approves or denies it (the approved
// call then runs, and the CallHook sees it as any call).
type ApprovalHook interface {
	// ApprovalRequested runs when a session kept pc pending, with the
	// context of the call that asked for it; its preview, a dry run, has
	// run as a call of its own.
	ApprovalRequested(ctx context.Context, pc PendingCall)
	// ApprovalResolved runs when pc was approved or denied (pc.Status) at
	// time at, with the context of Session.Approve or Session.Deny, once per
	// pending call: approving it again replays its result and is not
	// reported. The wait lasted from pc.At to at.
	ApprovalResolved(ctx context.Context, pc PendingCall, at time.Time)
}

// CallStart describes a call about to run, for a CallHook.
type CallStart struct {
	// Tool is the name called (at most 128 bytes of it when Meta is nil).
	Tool string
	// Meta is the tool's catalog entry, nil when the registry has no tool
	// of that name. It must not be modified.
	Meta *Meta
	// Args are the raw arguments as sent; they must not be modified nor
	// kept.
	Args []byte
	// Options are the call's options.
	Options CallOptions
	// CallID is the id the model gave the call (ContextWithCallID), or ""
	// when the host gave none; the calls a tool's body makes have none.
	CallID string
	// Retry is set when the same tool failed earlier in the same step, as
	// in CallEvent.
	Retry bool
	// Revert is set for a Registry.Revert: the call undoes an earlier call
	// of Tool, whose arguments Args are.
	Revert bool
}

type callIDName struct{}

// ContextWithCallID returns ctx carrying id, the id the model gave the
// tool call it runs (a provider's tool_use or tool_call id), for the
// registry's CallHook (a tracer records it as gen_ai.tool.call.id). The
// calls the tool's body makes with CallTool do not inherit it.
func ContextWithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDName{}, id)
}

// CallIDFrom returns the call id ctx carries (ContextWithCallID), or "".
func CallIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(callIDName{}).(string)
	return id
}

// withoutCallID hides the model's call id from a call a tool's body makes:
// that call is the tool's, not the model's.
func withoutCallID(ctx context.Context) context.Context {
	if CallIDFrom(ctx) == "" {
		return ctx
	}
	return context.WithValue(ctx, callIDName{}, "")
}
