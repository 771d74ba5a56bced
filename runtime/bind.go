package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
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

// A Binding is one row of the table a generated package registers its
// tools from: the tool's name, its catalog entry, and the function that
// binds the implementation the package's Tools struct T holds. Generated
// code keeps the table as static data, so that a catalog of thousands of
// tools compiles to a loop over it rather than to one statement a tool.
//
// For generated code.
type Binding[T any] struct {
	// Name is the tool's name.
	Name string
	// Meta returns the tool's catalog entry.
	Meta func() Meta
	// Bind returns the tool bound to its implementation in impls; ok is
	// false when impls holds none.
	Bind func(impls *T) (tool Tool, ok bool, err error)
}

// RegisterAll registers the tool of every binding with its implementation
// in impls, all at once (Registry.RegisterTools): on the first tool that
// does not bind or register, none is. A tool without an implementation is
// an error too, reported once with every such tool named.
//
// For generated code.
func RegisterAll[T any](reg *Registry, impls *T, table []Binding[T]) error {
	tools := make([]Tool, 0, len(table))
	var missing []string
	for i := range table {
		b := &table[i]
		t, ok, err := b.Bind(impls)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w", b.Name, err)
		case !ok:
			missing = append(missing, b.Name)
		default:
			tools = append(tools, t)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no implementation of %s", strings.Join(missing, ", "))
	}
	return reg.RegisterTools(tools...)
}

// BindingMetas returns the catalog entry of every binding, in the table's
// order.
//
// For generated code.
func BindingMetas[T any](table []Binding[T]) []Meta {
	metas := make([]Meta, len(table))
	for i := range table {
		metas[i] = table[i].Meta()
	}
	return metas
}
