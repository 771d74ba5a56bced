package basetools

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// runShellCommand implements the tool run_shell_command.
type runShellCommand struct{}

var _ RunShellCommand = (*runShellCommand)(nil)

// Execute does the work of run_shell_command.
func (t *runShellCommand) Execute(ctx context.Context, args *RunShellCommandArgs) (*RunShellCommandResult, error) {
	return nil, runtime.ErrNotImplemented
}

// DryRun previews what Execute would do, changing nothing.
func (t *runShellCommand) DryRun(ctx context.Context, args *RunShellCommandArgs) (*runtime.Preview, error) {
	return nil, runtime.ErrNotImplemented
}
