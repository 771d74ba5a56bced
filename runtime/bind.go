package runtime

import (
	"context"
	"encoding/json"
	"fmt"
)

// Bind adapts a typed tool function to Func, for generated registration
// code: the function receives the *A its validator returned, and a failed
// call returns no data (never a typed nil).
//
//	Execute: runtime.Bind(impl.Execute), // func(context.Context, *SearchArticlesArgs) (*SearchArticlesResult, error)
func Bind[A, R any](fn func(context.Context, *A) (R, error)) Func {
	return func(ctx context.Context, a any) (any, error) {
		args, ok := a.(*A)
		if !ok {
			return nil, Internal(fmt.Sprintf("the validator returned %T, the tool takes *%T", a, *new(A)))
		}
		r, err := fn(ctx, args)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}

// BindRevert adapts a typed revert function to RevertFunc: the result of the
// call being undone is decoded into an R.
func BindRevert[A, R, U any](fn func(context.Context, *A, *R) (U, error)) RevertFunc {
	return func(ctx context.Context, a any, result json.RawMessage) (any, error) {
		args, ok := a.(*A)
		if !ok {
			return nil, Internal(fmt.Sprintf("the validator returned %T, the tool takes *%T", a, *new(A)))
		}
		res := new(R)
		if len(result) > 0 {
			if err := json.Unmarshal(result, res); err != nil {
				return nil, InvalidArgs("the result to revert does not fit the tool's result type: " + err.Error())
			}
		}
		u, err := fn(ctx, args, res)
		if err != nil {
			return nil, err
		}
		return u, nil
	}
}
