package hardware

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// transferSpi implements the tool transfer_spi.
type transferSpi struct{}

var _ TransferSpi = (*transferSpi)(nil)

// Execute does the work of transfer_spi.
func (t *transferSpi) Execute(ctx context.Context, args *TransferSpiArgs) (*TransferSpiResult, error) {
	return nil, runtime.ErrNotImplemented
}

// DryRun previews what Execute would do, changing nothing.
func (t *transferSpi) DryRun(ctx context.Context, args *TransferSpiArgs) (*runtime.Preview, error) {
	return nil, runtime.ErrNotImplemented
}
