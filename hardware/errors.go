package hardware

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"go.bug.st/serial"

	"github.com/toolcat/toolcat/runtime"
)

// ErrNoDevice is what a driver returns when no device answers at an
// address; the tools answer it not_found with a hint to scan. Real buses
// report ENXIO or EREMOTEIO, which the tools treat the same way.
var ErrNoDevice = errors.New("no device answers at this address")

// ErrUnsupported is what the host drivers return where the OS has no
// driver for a bus (I2C and SPI off Linux).
var ErrUnsupported = errors.New("no driver for this bus on this OS")

// groupHint is the usual fix for permission errors on /dev.
const groupHint = "The process may not open the device file. The usual fix is group membership: a person adds the user to the %s group (sudo usermod -aG %s USER, then log in again), or runs the agent with access to %s."

// toolError maps an error of a driver to the error taxonomy. what names
// the device, such as "I2C device 0x76 on bus 1"; group is the Unix group
// that usually owns it.
func toolError(ctx context.Context, err error, what, group, dev string) error {
	var te *runtime.ToolError
	var pe *serial.PortError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		return te
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, syscall.ETIMEDOUT):
		return runtime.NewError(runtime.CodeTimeout, fmt.Sprintf("%s did not answer in time", what)).WithCause(err)
	case errors.Is(err, context.Canceled):
		return ctx.Err()
	case errors.Is(err, ErrUnsupported):
		return runtime.NewError(runtime.CodeUnsupported, fmt.Sprintf("%s: %v", what, err)).WithCause(err)
	case errors.Is(err, ErrNoDevice), errors.Is(err, syscall.ENXIO), isNoDeviceErrno(err):
		return runtime.NewError(runtime.CodeNotFound, fmt.Sprintf("%s does not answer", what)).
			WithSuggestion("No device answered there. Call scan_i2c_bus to list the addresses that answer, and check the wiring and the address in the datasheet.").
			WithCause(err)
	case errors.As(err, &pe) && pe.Code() == serial.PortBusy, errors.Is(err, syscall.EBUSY):
		return runtime.NewError(runtime.CodeDependencyUnavailable, fmt.Sprintf("%s is busy: another program has it open", what)).WithCause(err)
	case errors.As(err, &pe) && pe.Code() == serial.PermissionDenied, errors.Is(err, fs.ErrPermission),
		strings.Contains(err.Error(), "permission denied"):
		return runtime.NewError(runtime.CodePermissionDenied, fmt.Sprintf("%s: permission denied", what)).
			WithSuggestion(fmt.Sprintf(groupHint, group, group, dev)).WithRetryAllowed(false).WithCause(err)
	case errors.As(err, &pe) && pe.Code() == serial.PortNotFound, errors.Is(err, fs.ErrNotExist),
		strings.Contains(err.Error(), "unknown bus"), strings.Contains(err.Error(), "unknown port"):
		return runtime.NewError(runtime.CodeNotFound, fmt.Sprintf("%s does not exist on this host", what)).WithCause(err)
	case errors.As(err, &pe) && pe.Code() == serial.InvalidSerialPort:
		return runtime.NewError(runtime.CodeNotFound, fmt.Sprintf("%s is not a serial port", what)).WithCause(err)
	case errors.As(err, &pe) && pe.Code() == serial.PortClosed:
		return runtime.NewError(runtime.CodeDependencyUnavailable, fmt.Sprintf("%s was closed during the call", what)).WithCause(err)
	}
	return runtime.NewError(runtime.CodeDependencyUnavailable, fmt.Sprintf("%s: %v", what, err)).WithCause(err)
}
