package hardware

import (
	"errors"
	"syscall"
)

// isNoDeviceErrno reports the errors Linux I2C adapters give when no
// device acknowledges its address.
func isNoDeviceErrno(err error) bool {
	return errors.Is(err, syscall.EREMOTEIO) || errors.Is(err, syscall.EIO)
}
