package validatortest

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// updateSettings implements the tool update_settings.
type updateSettings struct{}

var _ UpdateSettings = (*updateSettings)(nil)

// Execute does the work of update_settings.
func (t *updateSettings) Execute(ctx context.Context, args *UpdateSettingsArgs) (UpdateSettingsResult, error) {
	return nil, runtime.ErrNotImplemented
}
