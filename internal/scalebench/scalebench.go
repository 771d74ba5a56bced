// Package scalebench measures toolcat on large synthetic catalogs and
// compares its generator with oapi-codegen on the same tools: it writes a
// catalog of n tools and its OpenAPI twin, runs toolcat, oapi-codegen and
// go as child processes, and times each with its peak memory.
//
// It is a module of its own so that toolcat does not depend on
// oapi-codegen. cmd/synth writes the inputs; cmd/benchscale, run by
// `make bench-scale`, measures.
package scalebench

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"time"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
)

// oapiCodegen is the package of the oapi-codegen command, pinned by the
// tool directive of this module's go.mod.
const oapiCodegen = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"

// Dirs returns the directory of toolcat's go.mod and of this module's.
func Dirs() (root, module string, err error) {
	_, file, _, ok := goruntime.Caller(0)
	if !ok {
		return "", "", fmt.Errorf("scalebench: no source file to find the module from")
	}
	module = filepath.Dir(file)
	root = filepath.Join(module, "..", "..")
	for _, d := range []string{root, module} {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err != nil {
			return "", "", fmt.Errorf("scalebench: %w", err)
		}
	}
	return root, module, nil
}

// ToolsPerFile is how many tools each file of a synthetic catalog holds:
// a catalog file is at most catalog.MaxFileSize (16 MiB), about 7,500
// synthetic tools, and a team with thousands of tools splits them too.
const ToolsPerFile = 1000

// Synth writes a synthetic catalog of n tools (catalogtest.YAML) into
// dir/catalog, and its OpenAPI twin, derived from the catalog as loaded,
// to dir/openapi.yaml. It returns the catalog. The catalog's files hold
// [ToolsPerFile] tools each: catalog.yaml the package, the services and
// the first tools, catalog_2.yaml and on the next ones.
func Synth(n int, dir string) (*catalog.Catalog, error) {
	if n < 1 {
		return nil, fmt.Errorf("scalebench: %d tools; at least 1 is needed", n)
	}
	files, err := split(catalogtest.YAML(n), filepath.Join(dir, "catalog"), ToolsPerFile)
	if err != nil {
		return nil, fmt.Errorf("scalebench: %w", err)
	}
	cat, err := catalog.LoadFiles(files...)
	if err != nil {
		return nil, fmt.Errorf("scalebench: the synthetic catalog does not load: %w", err)
	}
	if len(cat.Tools) != n {
		return nil, fmt.Errorf("scalebench: the synthetic catalog has %d tools, not %d", len(cat.Tools), n)
	}
	spec, err := OpenAPI(cat)
	if err != nil {
		return nil, fmt.Errorf("scalebench: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "catalog"), 0o755); err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := os.WriteFile(f.Name, f.Data, 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "openapi.yaml"), spec, 0o644); err != nil {
		return nil, err
	}
	return cat, nil
}

// split cuts a catalogtest catalog into files of per tools each: the
// first keeps everything before the tools, the others start with
// "tools:". A tool starts at a line indented by two spaces under tools.
func split(data []byte, dir string, per int) ([]catalog.File, error) {
	text := string(data)
	head, body, ok := strings.Cut(text, "\ntools:\n")
	if !ok {
		return nil, fmt.Errorf("the synthetic catalog has no tools section")
	}
	var starts []int
	for i := 0; i < len(body); {
		if strings.HasPrefix(body[i:], "  ") && len(body) > i+2 && body[i+2] != ' ' {
			starts = append(starts, i)
		}
		j := strings.IndexByte(body[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	var files []catalog.File
	for k := 0; k < len(starts); k += per {
		end := len(body)
		if k+per < len(starts) {
			end = starts[k+per]
		}
		chunk := "tools:\n" + body[starts[k]:end]
		name := "catalog.yaml"
		if k == 0 {
			chunk = head + "\n" + chunk
		} else {
			name = fmt.Sprintf("catalog_%d.yaml", k/per+1)
		}
		files = append(files, catalog.File{Name: filepath.Join(dir, name), Data: []byte(chunk)})
	}
	return files, nil
}

// Sample is one measured run of a command.
type Sample struct {
	Wall time.Duration
	// User and Sys are the CPU time of the run in user space and in the
	// kernel (the command and the children it waited for), as wait4
	// reports them.
	User, Sys time.Duration
	// MaxRSS is the peak resident set of the largest single process of
	// the run (the command or a child it waited for, such as the
	// compiler under go build), in bytes, as wait4 reports it; 0 where
	// the system does not say.
	MaxRSS int64
}

// Run runs cmd, its output kept for the error, and measures it. okCodes
// are the exit codes besides 0 that count as success (toolcat lint exits
// 1 when it reports findings).
func Run(cmd *exec.Cmd, okCodes ...int) (Sample, error) {
	s, _, err := RunOutput(cmd, okCodes...)
	return s, err
}

// RunOutput is [Run] that also returns the command's output (stdout and
// stderr).
func RunOutput(cmd *exec.Cmd, okCodes ...int) (Sample, []byte, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		return Sample{}, out.Bytes(), fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
	}
	s := Sample{Wall: wall, User: cmd.ProcessState.UserTime(), Sys: cmd.ProcessState.SystemTime(), MaxRSS: maxRSS(cmd.ProcessState)}
	if err != nil && !slices.Contains(okCodes, cmd.ProcessState.ExitCode()) {
		return s, out.Bytes(), fmt.Errorf("%s (in %s): %w\n%s", strings.Join(cmd.Args, " "), cmd.Dir, err, tail(out.Bytes(), 4000))
	}
	return s, out.Bytes(), nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return append([]byte("..."), b[len(b)-n:]...)
	}
	return b
}

// Env returns the environment of the go commands scalebench runs: the
// process's, with GOFLAGS adding -mod=mod and GOCACHE set when cache is
// not "".
func Env(cache string) []string {
	var env []string
	flags := "-mod=mod"
	for _, kv := range os.Environ() {
		if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			flags = strings.TrimSpace(v + " " + flags)
			continue
		}
		if cache != "" && strings.HasPrefix(kv, "GOCACHE=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GOFLAGS="+flags)
	if cache != "" {
		env = append(env, "GOCACHE="+cache)
	}
	return env
}

// Command returns the command name args run in dir with [Env](cache).
func Command(dir, cache, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = Env(cache)
	return cmd
}

// Binaries are the commands a measurement runs.
type Binaries struct {
	Toolcat string
	Oapi    string
}

// BuildBinaries builds toolcat (from the checkout at root) and
// oapi-codegen (the version this module pins) into bin.
func BuildBinaries(root, module, bin string) (*Binaries, error) {
	b := &Binaries{Toolcat: filepath.Join(bin, "toolcat"), Oapi: filepath.Join(bin, "oapi-codegen")}
	if _, err := Run(Command(root, "", "go", "build", "-o", b.Toolcat, "./cmd/toolcat")); err != nil {
		return nil, err
	}
	if _, err := Run(Command(module, "", "go", "build", "-o", b.Oapi, oapiCodegen)); err != nil {
		return nil, err
	}
	return b, nil
}

// GenToolcat runs toolcat gen --cache=false, with the flags extra, on the
// catalog of the synthetic directory synth into out.
func (b *Binaries) GenToolcat(synth, out string, extra ...string) *exec.Cmd {
	args := append([]string{"gen", "--cache=false", "--out", out}, extra...)
	return Command(synth, "", b.Toolcat, append(args, filepath.Join(synth, "catalog"))...)
}

// RegenToolcat runs toolcat gen, with its cache, on the catalog of the
// synthetic directory synth into out, keeping the cache in the directory
// cache (XDG_CACHE_HOME, and HOME where the user's cache directory is
// under it).
func (b *Binaries) RegenToolcat(synth, out, cache string) *exec.Cmd {
	cmd := Command(synth, "", b.Toolcat, "gen", "--out", out, filepath.Join(synth, "catalog"))
	cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+cache, "HOME="+cache)
	return cmd
}

// OapiConfig is what oapi-codegen generates.
type OapiConfig string

const (
	// ModelsClient: the types and a client with one method per
	// operation, the nearest to toolcat gen's typed models and
	// interfaces.
	ModelsClient OapiConfig = "models+client"
	// Models: the types only.
	Models OapiConfig = "models"
)

// GenOapi writes the oapi-codegen configuration for cfg into out (as
// oapi-codegen.yaml) and returns the command that generates package
// scale from the synthetic directory's openapi.yaml into out/scale.gen.go.
func (b *Binaries) GenOapi(synth, out string, cfg OapiConfig) (*exec.Cmd, error) {
	client := cfg == ModelsClient
	conf := fmt.Sprintf("package: scale\noutput: %s\ngenerate:\n  models: true\n  client: %t\n", filepath.Join(out, "scale.gen.go"), client)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(out, "oapi-codegen.yaml")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	return Command(synth, "", b.Oapi, "-config", path, filepath.Join(synth, "openapi.yaml")), nil
}

// WriteToolcatModule writes into dir the go.mod of module example.com/scale,
// requiring toolcat replaced by the checkout at root, and root's go.sum.
func WriteToolcatModule(dir, root string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	gomod := "module example.com/scale\n\ngo 1.26\n\nrequire github.com/toolcat/toolcat v0.0.0\n\nreplace github.com/toolcat/toolcat => " + abs + "\n"
	return writeModule(dir, gomod, filepath.Join(root, "go.sum"))
}

// WriteOapiModule writes into dir the go.mod of module example.com/scale
// for oapi-codegen's output, and this module's go.sum (module). For the
// synthetic tools (JSON bodies, no parameters) oapi-codegen's models and
// client import the standard library only, so the module requires
// nothing; were its output to import github.com/oapi-codegen/runtime, the
// go command (GOFLAGS=-mod=mod, see [Env]) would add it.
func WriteOapiModule(dir, module string) error {
	gomod := "module example.com/scale\n\ngo 1.26\n"
	return writeModule(dir, gomod, filepath.Join(module, "go.sum"))
}

func writeModule(dir, gomod, sum string) error {
	data, err := os.ReadFile(sum)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), data, 0o644)
}

// CopyDir copies the regular files of the tree src into dst, which it
// creates: a fresh build cache made from a warmed one.
func CopyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
}
