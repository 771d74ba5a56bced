//go:build !linux

package basetools

import (
	"errors"
	"os/exec"
)

type cgroupParent struct{}

func openCgroup(dir string) (*cgroupParent, error) {
	return nil, errors.New("basetools: Shell.Cgroup: cgroups are a Linux feature")
}

func (c *cgroupParent) enter(cmd *exec.Cmd) (started, end func(), err error) {
	return func() {}, func() {}, nil
}
