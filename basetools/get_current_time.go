package basetools

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// getCurrentTime implements the tool get_current_time.
type getCurrentTime struct{}

var _ GetCurrentTime = (*getCurrentTime)(nil)

// Execute does the work of get_current_time.
func (t *getCurrentTime) Execute(ctx context.Context, args *GetCurrentTimeArgs) (*GetCurrentTimeResult, error) {
	return nil, runtime.ErrNotImplemented
}
