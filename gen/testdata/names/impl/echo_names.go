package names

import "context"

// echoNames returns the arguments it gets, so that a test sees them as the
// result's JSON.
type echoNames struct{}

var _ EchoNames = (*echoNames)(nil)

func (t *echoNames) Execute(ctx context.Context, args *EchoNamesArgs) (EchoNamesResult, error) {
	return args, nil
}
