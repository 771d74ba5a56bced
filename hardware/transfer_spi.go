package hardware

import (
	"context"
	"encoding/hex"
	"fmt"

	"github.com/toolcat/toolcat/runtime"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
)

// transferSPI implements the tool transfer_spi: one full-duplex
// transaction with chip select held for all bytes.
type transferSPI struct{ h *hw }

var _ TransferSPI = (*transferSPI)(nil)

func spiSettings(args *TransferSPIArgs) (physic.Frequency, spi.Mode) {
	hz := args.SpeedHz
	if hz <= 0 {
		hz = 1000000
	}
	return physic.Frequency(hz) * physic.Hertz, spi.Mode(args.Mode)
}

// Execute does the work of transfer_spi.
func (t *transferSPI) Execute(ctx context.Context, args *TransferSPIArgs) (*TransferSPIResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := t.h.allowSPI(args.Port); err != nil {
		return nil, err
	}
	w, err := toBytes("data", args.Data)
	if err != nil {
		return nil, err
	}
	what := "SPI port " + args.Port
	if err := t.h.limit.take(what); err != nil {
		return nil, err
	}
	freq, mode := spiSettings(args)
	defer t.h.lock("spi:" + args.Port)()
	p, err := t.h.drivers.OpenSPI(args.Port)
	if err != nil {
		return nil, toolError(ctx, err, what, "spi", "/dev/spidev"+args.Port)
	}
	defer p.Close()
	c, err := p.Connect(freq, mode, 8)
	if err != nil {
		return nil, toolError(ctx, err, what, "spi", "/dev/spidev"+args.Port)
	}
	r := make([]byte, len(w))
	if err := c.Tx(w, r); err != nil {
		return nil, toolError(ctx, err, what, "spi", "/dev/spidev"+args.Port)
	}
	return &TransferSPIResult{Port: args.Port, Sent: toInts(w), Received: toInts(r), Hex: hex.EncodeToString(r)}, nil
}

// DryRun says which bytes would go to which port, in which mode and at
// which speed; it opens nothing.
func (t *transferSPI) DryRun(ctx context.Context, args *TransferSPIArgs) (*runtime.Preview, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := t.h.allowSPI(args.Port); err != nil {
		return nil, err
	}
	w, err := toBytes("data", args.Data)
	if err != nil {
		return nil, err
	}
	freq, mode := spiSettings(args)
	return &runtime.Preview{
		Summary: fmt.Sprintf("would send %d bytes to SPI port %s (mode %d, %s) and read as many back", len(w), args.Port, mode, freq),
		Effects: []string{"bytes: " + hexBytes(w)},
		Data:    map[string]any{"port": args.Port, "mode": args.Mode, "speed_hz": int64(freq / physic.Hertz), "bytes": toInts(w)},
	}, nil
}
