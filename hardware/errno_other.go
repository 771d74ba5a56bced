//go:build !linux

package hardware

func isNoDeviceErrno(err error) bool { return false }
