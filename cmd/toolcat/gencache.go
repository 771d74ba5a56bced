package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/toolcat/toolcat/gen"
)

// genCache lets toolcat gen skip rendering the file of a tool that did not
// change since the last run (see gen.Cache). For each output directory it
// keeps, in the user's cache directory, the key and the SHA-256 of every
// tool file it wrote, and what each tool's validator declares (see
// gen.NamesCache). A file is reused only when its key is the same, its
// contents on disk are still what gen wrote, and the same build of toolcat
// (the same executable, byte for byte) wrote them.
type genCache struct {
	index string // the index file
	dir   string // the output directory
	abs   string // dir, absolute: the index names it
	build string
	old   map[string]cacheEntry

	oldNames map[string][]string // see gen.NamesCache

	mu       sync.Mutex
	new      map[string]cacheEntry
	newNames map[string][]string
	disk     map[string][]byte // files Get read and reused
}

type cacheEntry struct {
	Key    string `json:"key"`
	SHA256 string `json:"sha256"`
}

type cacheIndex struct {
	Build string                `json:"build"`
	Dir   string                `json:"dir"`
	Files map[string]cacheEntry `json:"files"`
	// Names are what the validators of the tools declare, by key.
	Names map[string][]string `json:"names,omitempty"`
}

// buildKey names this build of toolcat: the SHA-256 of its executable (see
// executableSum), or "" when it cannot be read, and then there is no
// cache. Tests set it.
var buildKey = sync.OnceValue(readBuildKey)

const modulePath = "github.com/toolcat/toolcat"

func readBuildKey() string {
	memo := ""
	if base, err := os.UserCacheDir(); err == nil {
		memo = filepath.Join(base, "toolcat", "exe")
	}
	sum, err := executableSum(memo)
	if err != nil {
		return ""
	}
	return "sha256 " + sum
}

// genCachePlace returns this build's key, the absolute path of the output
// directory dir and the file of the user's cache, named for that path
// with the given suffix, that holds what gen keeps of it; ok is false when
// there can be no such file (no build key, no cache directory).
func genCachePlace(dir, suffix string) (build, abs, file string, ok bool) {
	build = buildKey()
	if build == "" {
		return "", "", "", false
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", "", "", false
	}
	if abs, err = filepath.Abs(dir); err != nil {
		return "", "", "", false
	}
	sum := sha256.Sum256([]byte(abs))
	return build, abs, filepath.Join(base, "toolcat", "gen", hex.EncodeToString(sum[:12])+suffix), true
}

// openGenCache returns the cache of the output directory dir, or nil when
// there can be none.
func openGenCache(dir string) *genCache {
	build, abs, index, ok := genCachePlace(dir, ".json")
	if !ok {
		return nil
	}
	c := &genCache{
		index:    index,
		dir:      dir,
		abs:      abs,
		build:    build,
		new:      map[string]cacheEntry{},
		newNames: map[string][]string{},
		disk:     map[string][]byte{},
	}
	var idx cacheIndex
	if b, err := os.ReadFile(c.index); err == nil && json.Unmarshal(b, &idx) == nil && idx.Build == c.build && idx.Dir == abs {
		c.old, c.oldNames = idx.Files, idx.Names
	}
	return c
}

var _ gen.NamesCache = (*genCache)(nil)

// GetNames implements gen.NamesCache.
func (c *genCache) GetNames(key string) ([]string, bool) {
	names, ok := c.oldNames[key]
	if ok {
		c.mu.Lock()
		c.newNames[key] = names
		c.mu.Unlock()
	}
	return names, ok
}

// PutNames implements gen.NamesCache.
func (c *genCache) PutNames(key string, names []string) {
	c.mu.Lock()
	c.newNames[key] = names
	c.mu.Unlock()
}

func (c *genCache) Get(name, key string) ([]byte, bool) {
	e, ok := c.old[name]
	if !ok || e.Key != key {
		return nil, false
	}
	b, err := os.ReadFile(filepath.Join(c.dir, name))
	if err != nil || sha(b) != e.SHA256 {
		return nil, false
	}
	c.mu.Lock()
	c.new[name] = e
	c.disk[name] = b
	c.mu.Unlock()
	return b, true
}

// read returns the file called name of the output directory dir, as Get
// read it if it did, so that a reused file is read once. c may be nil.
func (c *genCache) read(dir, name string) ([]byte, error) {
	if c != nil {
		c.mu.Lock()
		b, ok := c.disk[name]
		c.mu.Unlock()
		if ok {
			return b, nil
		}
	}
	return os.ReadFile(filepath.Join(dir, name))
}

func (c *genCache) Put(name, key string, data []byte) {
	e := cacheEntry{Key: key, SHA256: sha(data)}
	c.mu.Lock()
	c.new[name] = e
	c.mu.Unlock()
}

// save writes the index of the files the run produced. It is called once
// they are written.
func (c *genCache) save() error {
	b, err := json.Marshal(cacheIndex{Build: c.build, Dir: c.abs, Files: c.new, Names: c.newNames})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.index), 0o755); err != nil {
		return err
	}
	return writeAtomic(c.index, b)
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
