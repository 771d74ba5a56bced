package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolcat/toolcat/catalog/breaking"
)

const lockDoc = `
Write toolcat.lock.json: a normalised, deterministic snapshot of every
tool as the model and the generated Go API see it (description, schemas,
safety metadata with defaults applied, exported Go declarations). Commit
it; toolcat breaking --against toolcat.lock.json then checks a change
without git history. Catalog loading skips the file.

--check exits 1 when the lock file is missing or not up to date.`

type lockFlags struct {
	out   string
	check bool
}

func runLock(e *env, args []string) int {
	var f lockFlags
	fs := newFlags(e, "lock", "[paths]", lockDoc)
	fs.StringVar(&f.out, "o", "", "lock `file` to write (default: toolcat.lock.json beside the catalog)")
	fs.BoolVar(&f.check, "check", false, "write nothing; exit 1 when the lock file is not up to date")
	if code := parse(e, fs, args); code >= 0 {
		return code
	}
	cat, ok := loadCatalog(e, "lock", "text", fs.Args())
	if !ok {
		return exitUsage
	}
	api, err := goAPI(cat)
	if err != nil {
		fmt.Fprintf(e.stderr, "toolcat lock: the catalog does not generate: %v\n", err)
		return exitUsage
	}
	data, err := breaking.WriteLock(cat, api)
	if err != nil {
		fmt.Fprintf(e.stderr, "toolcat lock: %v\n", err)
		return exitUsage
	}
	path := f.out
	if path == "" {
		path = filepath.Join(catalogDir(fs.Args()), breaking.LockFile)
	}
	if f.check {
		old, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(old, data) {
			fmt.Fprintf(e.stderr, "toolcat lock: %s is not up to date: run toolcat lock\n", path)
			return exitFindings
		}
		return exitOK
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return exitOK
	}
	if err := os.WriteFile(path, data, 0o666); err != nil {
		fmt.Fprintf(e.stderr, "toolcat lock: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(e.stderr, "toolcat lock: wrote %s (%d tools)\n", path, len(cat.Tools))
	return exitOK
}
