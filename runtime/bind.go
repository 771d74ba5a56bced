package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
)

// Bind adapts a typed tool function to Func, for generated registration
// code: the function receives the P (a pointer to the arguments struct)
// its validator returned, and a failed call returns no data (never a typed
// nil).
//
//	Execute: runtime.Bind(impl.Execute), // func(context.Context, *SearchArticlesArgs) (*SearchArticlesResult, error)
//	DryRun:  runtime.Bind(impl.DryRun),  // func(context.Context, *SearchArticlesArgs) (*runtime.Preview, error)
//
// Bind is never inlined, and its type parameters are pointers: the Go
// compiler then compiles its body once for every tool of a package,
// instead of once a tool.
//
//go:noinline
func Bind[P, R any](fn func(context.Context, P) (R, error)) Func {
	return func(ctx context.Context, a any) (any, error) {
		args, ok := a.(P)
		if !ok {
			return nil, wrongArgs[P](a)
		}
		r, err := fn(ctx, args)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}

// BindRevert adapts a typed revert function to RevertFunc, for generated
// registration code: the JSON of the result being undone is decoded into
// an R, the type Execute returns. A pointer R is never nil: a JSON null
// gives a pointer to the zero value. A result that does not decode answers
// invalid_args.
//
//	Revert: runtime.BindRevert(impl.Revert), // func(context.Context, *PublishArticleArgs, *PublishArticleResult) error
//
//go:noinline
func BindRevert[P, R any](fn func(context.Context, P, R) error) RevertFunc {
	return func(ctx context.Context, a any, result json.RawMessage) (any, error) {
		args, ok := a.(P)
		if !ok {
			return nil, wrongArgs[P](a)
		}
		res, err := decodeResult[R](result)
		if err != nil {
			return nil, err
		}
		return nil, fn(ctx, args, res)
	}
}

func wrongArgs[P any](a any) *ToolError {
	return Internal(fmt.Sprintf("the validator returned %T, the tool takes %v", a, reflect.TypeFor[P]()))
}

// decodeResult decodes the JSON result of a call into an R.
func decodeResult[R any](data json.RawMessage) (R, error) {
	var res R
	if len(data) == 0 {
		return res, InvalidArgs("no result to revert: give the JSON data the call returned")
	}
	target := any(&res)
	if t := reflect.TypeFor[R](); t.Kind() == reflect.Pointer {
		p := reflect.New(t.Elem())
		res = p.Interface().(R)
		target = res // decoding into the value keeps the pointer when the JSON is null
	}
	if err := UnmarshalExact(data, target); err != nil {
		return res, InvalidArgs(fmt.Sprintf("the result to revert does not fit %v: %s", reflect.TypeFor[R](), clip(err.Error(), maxEchoText)))
	}
	return res, nil
}
