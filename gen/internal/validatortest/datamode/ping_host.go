package validatortest

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// pingHost implements the tool ping_host.
type pingHost struct{}

var _ PingHost = (*pingHost)(nil)

// Execute does the work of ping_host.
func (t *pingHost) Execute(ctx context.Context, args *PingHostArgs) (PingHostResult, error) {
	return nil, runtime.ErrNotImplemented
}
