package basetools

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// editFile implements the tool edit_file.
type editFile struct{}

var _ EditFile = (*editFile)(nil)

// Execute does the work of edit_file.
func (t *editFile) Execute(ctx context.Context, args *EditFileArgs) (*EditFileResult, error) {
	return nil, runtime.ErrNotImplemented
}

// DryRun previews what Execute would do, changing nothing.
func (t *editFile) DryRun(ctx context.Context, args *EditFileArgs) (*runtime.Preview, error) {
	return nil, runtime.ErrNotImplemented
}

// Revert undoes a call of edit_file that returned result.
func (t *editFile) Revert(ctx context.Context, args *EditFileArgs, result *EditFileResult) error {
	return runtime.ErrNotImplemented
}
