package validatortest

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// assignTask implements the tool assign_task.
type assignTask struct{}

var _ AssignTask = (*assignTask)(nil)

// Execute does the work of assign_task.
func (t *assignTask) Execute(ctx context.Context, args *AssignTaskArgs) (AssignTaskResult, error) {
	return nil, runtime.ErrNotImplemented
}
