package validatortest

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// createEvent implements the tool create_event.
type createEvent struct{}

var _ CreateEvent = (*createEvent)(nil)

// Execute does the work of create_event.
func (t *createEvent) Execute(ctx context.Context, args *CreateEventArgs) (CreateEventResult, error) {
	return nil, runtime.ErrNotImplemented
}
