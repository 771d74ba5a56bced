package runtime

import (
	"errors"
	"fmt"
	"maps"
	"strings"
)

// Code is an error code of toolcat's taxonomy. The model reads it, together
// with the suggestion, to decide what to do next.
type Code string

// The error codes. Each has a default retry_allowed and a default suggestion
// (see DefaultRetryAllowed and DefaultSuggestion); a tool's catalog entry may
// override the suggestion per code (Meta.ErrorHints).
const (
	CodeInvalidArgs           Code = "invalid_args"
	CodeNotFound              Code = "not_found"
	CodePermissionDenied      Code = "permission_denied"
	CodeApprovalRequired      Code = "approval_required"
	CodeRateLimited           Code = "rate_limited"
	CodeQuotaExceeded         Code = "quota_exceeded"
	CodeDependencyUnavailable Code = "dependency_unavailable"
	CodeExternalError         Code = "external_error"
	CodeTimeout               Code = "timeout"
	CodeIdempotencyConflict   Code = "idempotency_conflict"
	CodeRetryExhausted        Code = "retry_exhausted"
	CodeUnsupported           Code = "unsupported"
	CodeInternal              Code = "internal"
)

type codeInfo struct {
	retry      bool
	suggestion string
}

var codeTable = map[Code]codeInfo{
	CodeInvalidArgs:           {true, "Fix the arguments as the message says and call the tool again."},
	CodeNotFound:              {false, "The resource does not exist. Check the identifier, search for it with another tool, or ask the user."},
	CodePermissionDenied:      {false, "You are not allowed to do this. Do not retry; tell the user what was refused."},
	CodeApprovalRequired:      {false, "This action needs the user's approval. Describe what you intend to do and ask the user to confirm."},
	CodeRateLimited:           {true, "Too many calls. Wait a moment before retrying the same call."},
	CodeQuotaExceeded:         {false, "The quota is used up. Do not retry; tell the user."},
	CodeDependencyUnavailable: {true, "A service this tool needs is unavailable. Retry later or tell the user."},
	CodeExternalError:         {true, "The external service answered with an error. Retry once; if it fails again, tell the user."},
	CodeTimeout:               {true, "The tool took too long. Retry once, perhaps with a narrower request."},
	CodeIdempotencyConflict:   {false, "This idempotency key was already used with other arguments. Use a new key for a new operation, or repeat the original arguments."},
	CodeRetryExhausted:        {false, "Stop retrying this tool for this step and tell the user what failed."},
	CodeUnsupported:           {false, "This combination is not supported. Use another tool or other arguments."},
	CodeInternal:              {false, "The tool failed unexpectedly. Do not retry; tell the user."},
}

// Codes returns every code of the taxonomy, in the order of DESIGN.md.
func Codes() []Code {
	return []Code{
		CodeInvalidArgs, CodeNotFound, CodePermissionDenied, CodeApprovalRequired,
		CodeRateLimited, CodeQuotaExceeded, CodeDependencyUnavailable, CodeExternalError,
		CodeTimeout, CodeIdempotencyConflict, CodeRetryExhausted, CodeUnsupported, CodeInternal,
	}
}

// Valid reports whether c is a code of the taxonomy.
func (c Code) Valid() bool {
	_, ok := codeTable[c]
	return ok
}

// DefaultRetryAllowed reports whether an error with code c may be retried
// unless the error says otherwise.
func (c Code) DefaultRetryAllowed() bool { return codeTable[c].retry }

// DefaultSuggestion is the suggestion an error with code c carries unless the
// tool or its catalog entry gives another.
func (c Code) DefaultSuggestion() string { return codeTable[c].suggestion }

// ToolError is a failure as data: the error half of the envelope. Tools
// return it (directly or wrapped) from Execute, DryRun and Revert; any other
// error becomes an internal error. It implements error.
//
// Build one with a constructor (InvalidArgs, NotFound, ...) or Errorf, then
// refine it with the With methods, which change and return the receiver.
type ToolError struct {
	Code         Code           `json:"code"`
	Message      string         `json:"message"`
	Suggestion   string         `json:"suggestion"`
	RetryAllowed bool           `json:"retry_allowed"`
	Details      map[string]any `json:"details,omitempty"`

	cause      error
	internal   bool // raised by the runtime itself: no fallback, no hint override
	appendHint bool // a validation error: the catalog's hint follows its own suggestion
	toolText   bool // carries text the tool wrote: wrapped when the tool returns untrusted output
	lastTry    bool // the retry guard's last allowed failure of its step: the model is told to stop
}

// Error returns "code: message".
func (e *ToolError) Error() string {
	return string(e.Code) + ": " + e.Message
}

// Unwrap returns the error set with WithCause.
func (e *ToolError) Unwrap() error { return e.cause }

// NewError returns an error with code c, message msg and the code's default
// retry_allowed. The suggestion is filled in when the envelope is built.
func NewError(c Code, msg string) *ToolError {
	return &ToolError{Code: c, Message: msg, RetryAllowed: c.DefaultRetryAllowed()}
}

// Errorf is NewError with a formatted message.
func Errorf(c Code, format string, args ...any) *ToolError {
	return NewError(c, fmt.Sprintf(format, args...))
}

// InvalidArgs returns an invalid_args error.
func InvalidArgs(msg string) *ToolError { return NewError(CodeInvalidArgs, msg) }

// NotFound returns a not_found error.
func NotFound(msg string) *ToolError { return NewError(CodeNotFound, msg) }

// PermissionDenied returns a permission_denied error.
func PermissionDenied(msg string) *ToolError { return NewError(CodePermissionDenied, msg) }

// ApprovalRequired returns an approval_required error.
func ApprovalRequired(msg string) *ToolError { return NewError(CodeApprovalRequired, msg) }

// RateLimited returns a rate_limited error.
func RateLimited(msg string) *ToolError { return NewError(CodeRateLimited, msg) }

// QuotaExceeded returns a quota_exceeded error.
func QuotaExceeded(msg string) *ToolError { return NewError(CodeQuotaExceeded, msg) }

// DependencyUnavailable returns a dependency_unavailable error. When the tool
// has a fallback tool, the envelope's suggestion names it.
func DependencyUnavailable(msg string) *ToolError {
	return NewError(CodeDependencyUnavailable, msg)
}

// ExternalError returns an external_error error.
func ExternalError(msg string) *ToolError { return NewError(CodeExternalError, msg) }

// Timeout returns a timeout error.
func Timeout(msg string) *ToolError { return NewError(CodeTimeout, msg) }

// IdempotencyConflict returns an idempotency_conflict error.
func IdempotencyConflict(msg string) *ToolError { return NewError(CodeIdempotencyConflict, msg) }

// RetryExhausted returns a retry_exhausted error.
func RetryExhausted(msg string) *ToolError { return NewError(CodeRetryExhausted, msg) }

// Unsupported returns an unsupported error.
func Unsupported(msg string) *ToolError { return NewError(CodeUnsupported, msg) }

// Internal returns an internal error.
func Internal(msg string) *ToolError { return NewError(CodeInternal, msg) }

// WithSuggestion sets the suggestion, overriding the catalog's and the
// code's default.
func (e *ToolError) WithSuggestion(s string) *ToolError {
	e.Suggestion = s
	return e
}

// WithDetails merges d into the error's details.
func (e *ToolError) WithDetails(d map[string]any) *ToolError {
	if e.Details == nil {
		e.Details = make(map[string]any, len(d))
	}
	maps.Copy(e.Details, d)
	return e
}

// WithDetail sets one detail.
func (e *ToolError) WithDetail(key string, value any) *ToolError {
	if e.Details == nil {
		e.Details = make(map[string]any, 2)
	}
	e.Details[key] = value
	return e
}

// WithRetryAllowed overrides the code's default retry_allowed.
func (e *ToolError) WithRetryAllowed(ok bool) *ToolError {
	e.RetryAllowed = ok
	return e
}

// WithCause records the underlying error, for errors.Is and errors.As and
// for the host's logs. It is not shown to the model.
func (e *ToolError) WithCause(err error) *ToolError {
	e.cause = err
	return e
}

// ErrNotImplemented is what a scaffolded tool body returns until someone
// writes it. A call answers unsupported.
var ErrNotImplemented = errors.New("tool not implemented")

// AsToolError converts any error a tool returned to a *ToolError: a
// *ToolError anywhere in the chain is used as is, ErrNotImplemented becomes
// unsupported, and anything else internal (with the error's text, its
// first 512 bytes; the error itself is the cause, for the host's logs).
func AsToolError(err error) *ToolError {
	if err == nil {
		return nil
	}
	if te, ok := err.(*ToolError); ok {
		return te
	}
	var te *ToolError
	if errors.As(err, &te) {
		return te
	}
	if errors.Is(err, ErrNotImplemented) {
		return Unsupported("this tool is not implemented yet").WithCause(err)
	}
	return Internal(clip(err.Error(), maxEchoText)).WithCause(err)
}

// finish fills the suggestion of e for tool m: the error's own, else the
// catalog's hint for the code, else the code's default; a
// dependency_unavailable error always names the fallback tool.
//
// finish works on a copy, so a tool may return a shared *ToolError value.
func finish(orig *ToolError, m *Meta) *ToolError {
	cp := *orig
	e := &cp
	if !e.Code.Valid() {
		e.Details = maps.Clone(e.Details)
		e.Details = mergeDetail(e.Details, "original_code", string(e.Code))
		e.Code = CodeInternal
	}
	if m != nil && !e.internal {
		switch hint := m.ErrorHints[e.Code]; {
		case hint == "":
		case e.Suggestion == "":
			e.Suggestion = hint
		case e.appendHint:
			e.Suggestion += " " + hint
		}
	}
	const stop = "That was the last attempt this step allows: do not call this tool again now; tell the user what failed."
	switch {
	case e.Suggestion == "" && e.lastTry:
		e.Suggestion = stop // the code's default would invite a retry
	case e.Suggestion == "":
		e.Suggestion = e.Code.DefaultSuggestion()
	case e.lastTry:
		e.Suggestion += " " + stop
	}
	if e.lastTry {
		e.RetryAllowed = false
	}
	if e.Code == CodeDependencyUnavailable && m != nil && m.FallbackTool != "" && !e.internal &&
		!strings.Contains(e.Suggestion, m.FallbackTool) {
		e.Suggestion += " The fallback tool is " + m.FallbackTool + ": call it with the same arguments if they fit."
	}
	return e
}

func mergeDetail(d map[string]any, k string, v any) map[string]any {
	if d == nil {
		d = map[string]any{}
	}
	d[k] = v
	return d
}
