package basetools

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// findFiles implements the tool find_files.
type findFiles struct{}

var _ FindFiles = (*findFiles)(nil)

// Execute does the work of find_files.
func (t *findFiles) Execute(ctx context.Context, args *FindFilesArgs) (*FindFilesResult, error) {
	return nil, runtime.ErrNotImplemented
}
