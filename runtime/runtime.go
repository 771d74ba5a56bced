// Package runtime is the library that toolcat's generated code and users'
// agent hosts import: a registry of tools described by their catalog
// metadata, and a dispatcher that turns every call into one JSON envelope.
//
// It depends only on the standard library, santhosh-tekuri/jsonschema (the
// general argument validator) and, in runtime/redisstore only, go-redis.
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
package runtime

// Version is the version of the runtime API. Generated code checks it at
// compile time through the constant GeneratedCodeVersion.
const Version = "0.1.0"
