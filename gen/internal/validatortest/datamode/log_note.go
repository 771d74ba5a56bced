package validatortest

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// logNote implements the tool log_note.
type logNote struct{}

var _ LogNote = (*logNote)(nil)

// Execute does the work of log_note.
func (t *logNote) Execute(ctx context.Context, args *LogNoteArgs) (LogNoteResult, error) {
	return nil, runtime.ErrNotImplemented
}
