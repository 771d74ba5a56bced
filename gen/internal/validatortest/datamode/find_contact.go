package validatortest

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// findContact implements the tool find_contact.
type findContact struct{}

var _ FindContact = (*findContact)(nil)

// Execute does the work of find_contact.
func (t *findContact) Execute(ctx context.Context, args *FindContactArgs) (FindContactResult, error) {
	return nil, runtime.ErrNotImplemented
}
