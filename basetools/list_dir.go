package basetools

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// listDir implements the tool list_dir.
type listDir struct{}

var _ ListDir = (*listDir)(nil)

// Execute does the work of list_dir.
func (t *listDir) Execute(ctx context.Context, args *ListDirArgs) (*ListDirResult, error) {
	return nil, runtime.ErrNotImplemented
}
