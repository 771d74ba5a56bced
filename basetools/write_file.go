package basetools

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// writeFile implements the tool write_file.
type writeFile struct{}

var _ WriteFile = (*writeFile)(nil)

// Execute does the work of write_file.
func (t *writeFile) Execute(ctx context.Context, args *WriteFileArgs) (*WriteFileResult, error) {
	return nil, runtime.ErrNotImplemented
}

// DryRun previews what Execute would do, changing nothing.
func (t *writeFile) DryRun(ctx context.Context, args *WriteFileArgs) (*runtime.Preview, error) {
	return nil, runtime.ErrNotImplemented
}

// Revert undoes a call of write_file that returned result.
func (t *writeFile) Revert(ctx context.Context, args *WriteFileArgs, result *WriteFileResult) error {
	return runtime.ErrNotImplemented
}
