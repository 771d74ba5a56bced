package basetools

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// appendFile implements the tool append_file.
type appendFile struct{}

var _ AppendFile = (*appendFile)(nil)

// Execute does the work of append_file.
func (t *appendFile) Execute(ctx context.Context, args *AppendFileArgs) (*AppendFileResult, error) {
	return nil, runtime.ErrNotImplemented
}

// DryRun previews what Execute would do, changing nothing.
func (t *appendFile) DryRun(ctx context.Context, args *AppendFileArgs) (*runtime.Preview, error) {
	return nil, runtime.ErrNotImplemented
}

// Revert undoes a call of append_file that returned result.
func (t *appendFile) Revert(ctx context.Context, args *AppendFileArgs, result *AppendFileResult) error {
	return runtime.ErrNotImplemented
}
