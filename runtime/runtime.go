// Package runtime is the library that toolcat's generated code and users'
// agent hosts import: a registry of tools described by their catalog
// metadata, and a dispatcher that turns every call into one JSON envelope.
//
// It depends on the standard library, santhosh-tekuri/jsonschema (the
// general argument validator) and golang.org/x/text (the validator's
// messages, and the Unicode folding of runtime/discovery); go-redis is
// linked only through runtime/redisstore, the MCP go-sdk only through
// runtime/mcpserver and runtime/mcpclient, and OpenTelemetry only through
// runtime/telemetry (a CallHook, see WithCallHook) and those two.
//
// # Tools
//
// A Tool binds a Meta (the Go form of a catalog entry) to a Validator and
// to Execute, DryRun and Revert functions. Generated code builds one per
// tool, with a specialised one-pass Validator that decodes straight into the
// tool's Args struct (see package jsonscan and the Arg* error helpers) and
// typed adapters around the user's methods:
//
//	reg := runtime.New(runtime.WithLogger(logger))
//	reg.MustRegister(runtime.Tool{
//		Meta:      searchArticlesMeta,
//		Validator: searchArticlesValidator{},
//		Execute:   runtime.Bind(impl.Execute), // func(ctx, *SearchArticlesArgs) (*SearchArticlesResult, error)
//	})
//
// A tool without a Validator gets a SchemaValidator built from its schema.
//
// # Calls
//
// Registry.Call(ctx, name, rawArgs, CallOptions) returns a Result, the
// envelope of the design:
//
//	{"success":true,"data":{...}}
//	{"success":true,"data":{...},"replayed":true}
//	{"success":false,"error":{"code":"invalid_args","message":"...","suggestion":"...","retry_allowed":true,"details":{...}}}
//
// Dispatch runs in this order: look the tool up (an unknown name answers
// not_found naming the closest tools); the autonomy gate and any Policy;
// validation, applying the additional_args policy and the schema's
// defaults; for dry runs, the tool's DryRun; the idempotency key (required
// where the catalog says so; a stored result is replayed, other arguments
// under one key answer idempotency_conflict, concurrent calls with one key
// run once, and an unreachable store fails closed); the retry guard per
// (step, tool); the deadline from sla_ms; the call itself, panics recovered
// as internal with the stack sent to the host's logger only; the untrusted
// wrapping of returns_untrusted output (the whole envelope, data or error,
// in one block; see Untrusted); the envelope. A tool answering
// dependency_unavailable is followed by its fallback tool when
// WithAutoFallback is set.
//
// # Errors
//
// Tools fail by returning a *ToolError, built with the constructor of its
// Code (InvalidArgs, NotFound, ... or Errorf) and refined with
// WithSuggestion, WithDetails and WithRetryAllowed. Each code has a default
// retry_allowed and suggestion; the catalog's per-code hints
// (Meta.ErrorHints) override the suggestion. Any other error becomes
// internal; ErrNotImplemented, which scaffolded bodies return, becomes
// unsupported.
//
// # Options
//
// An option's name says what it configures. A Registry's options, given
// to New, are With<Setting> (WithLogger, WithIdempotencyStore,
// WithSessionTTL; all in registry_options.go). Every other receiver's are
// <Receiver><Setting>: a Session's, given to Registry.Session, are
// SessionSender, SessionAutonomy and the like (session_options.go); the
// memory stores' are IdempotencyStoreMaxEntries, SessionStoreClock and the
// like. A store implementing one of the store interfaces is named
// <Backend><Interface>: MemoryIdempotencyStore, MemorySessionStore,
// MemoryToolStateStore here, and IdempotencyStore, SessionStore and
// ToolStateStore in runtime/redisstore. The earlier names remain as
// deprecated aliases (deprecated.go).
//
// # Where things are
//
// The files are named by concern: registry.go (Tool, Registry, New,
// Register), dispatch.go (Call: look-up, gate, validation, dry run,
// execute, panic recovery, fallback; Revert), dispatch_idempotent.go (the
// idempotency key's claim, replay and conflict), dispatch_result.go (a
// success: the size cap, the result check, the untrusted wrapping),
// result.go (the envelope), errors.go and arg_errors.go (the error codes
// and the builders of invalid_args errors), idempotency.go,
// idempotency_store.go and idempotency_key_arg.go (keys, the memory store,
// the model's idempotency_key argument), retry_guard.go, deadline.go,
// session*.go (a conversation: approval, undo, built-in tools, state and
// its store), tool_state*.go (tools switched off), compose.go (tools
// calling their dependencies), untrusted.go, validate.go (SchemaValidator).
//
// # Generated code
//
// The files named gen_*.go hold what generated code calls and people do
// not: the one-pass readers (OnePass, Object, ReadString, ...), the
// data-mode validators (DataPassFor, StructDesc), exact number and member
// handling, and the GeneratedCodeVersion constants; the registration table
// (Binding, RegisterAll) and the Arg* builders that take a reader's error
// belong to them too. Each of those identifiers says "For generated code"
// in its doc. Like protobuf-go's protoimpl, they are kept stable only
// together with the generator of the same release: generated code refers
// to GeneratedCodeVersionN, so a generation that does not fit this runtime
// fails to compile rather than misbehave, and `toolcat gen` regenerates
// it. Hand-written tools and validators use the rest of the package.
package runtime

// Version is the version of the runtime API. Generated code checks it at
// compile time through the constant GeneratedCodeVersion.
const Version = "0.1.0"
