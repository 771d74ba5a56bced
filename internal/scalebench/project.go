package scalebench

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
)

// ToolcatPackage and OapiPackage are the folders of the generated package
// inside a project's module.
const (
	ToolcatPackage = "tc"
	OapiPackage    = "scale"
)

// ToolcatProject makes dir a module (see [WriteToolcatModule]) holding
// the package toolcat gen compiles from the synthetic directory synth,
// with the implementation files gen scaffolds, in dir/tc.
func (b *Binaries) ToolcatProject(synth, dir, root string, genFlags ...string) error {
	if err := WriteToolcatModule(dir, root); err != nil {
		return err
	}
	_, err := Run(b.GenToolcat(synth, filepath.Join(dir, ToolcatPackage), genFlags...))
	return err
}

// OapiProject makes dir a module (see [WriteOapiModule]) holding the
// package oapi-codegen generates with cfg from synth's openapi.yaml, in
// dir/scale.
func (b *Binaries) OapiProject(synth, dir, module string, cfg OapiConfig) error {
	if err := WriteOapiModule(dir, module); err != nil {
		return err
	}
	cmd, err := b.GenOapi(synth, filepath.Join(dir, OapiPackage), cfg)
	if err != nil {
		return err
	}
	_, err = Run(cmd)
	return err
}

// Build returns go build of the project dir's packages with the build
// cache cache.
func Build(dir, cache string) *exec.Cmd {
	return Command(dir, cache, "go", "build", "./...")
}

// Conformance returns the run of the conformance test of toolcat's
// generated package in the project dir (go test -run TestConformance
// -count=1) with the build cache cache.
func Conformance(dir, cache string) *exec.Cmd {
	return Command(dir, cache, "go", "test", "-count=1", "-run", "TestConformance", "./"+ToolcatPackage+"/...")
}

// RunConformance runs cmd, a [Conformance] test, and measures it. The
// implementation files gen scaffolds answer runtime.ErrNotImplemented,
// which the conformance test reports as failures: failed says whether it
// did. A test that does not build or run is an error.
func RunConformance(cmd *exec.Cmd) (s Sample, failed bool, err error) {
	s, out, err := RunOutput(cmd, 1)
	if err != nil {
		return s, false, err
	}
	if cmd.ProcessState.ExitCode() == 0 {
		return s, false, nil
	}
	if !bytes.Contains(out, []byte("--- FAIL: TestConformance")) || bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")) {
		return s, false, fmt.Errorf("go test in %s: the conformance test did not run:\n%s", cmd.Dir, tail(out, 4000))
	}
	return s, true, nil
}
