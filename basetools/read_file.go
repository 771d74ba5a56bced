package basetools

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// readFile implements the tool read_file.
type readFile struct{}

var _ ReadFile = (*readFile)(nil)

// Execute does the work of read_file.
func (t *readFile) Execute(ctx context.Context, args *ReadFileArgs) (*ReadFileResult, error) {
	return nil, runtime.ErrNotImplemented
}
