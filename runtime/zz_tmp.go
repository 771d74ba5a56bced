package runtime

import "context"

//go:noinline
func BindP[P, R any](fn func(context.Context, P) (R, error)) Func {
	return func(ctx context.Context, a any) (any, error) {
		args, ok := a.(P)
		if !ok {
			return nil, Internal("bad")
		}
		r, err := fn(ctx, args)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}
