// Package config reads the YAML files of toolcat's checking commands: the
// sections of toolcat.yaml that lint and breaking own, and lint's
// baseline. It decodes strictly (an unknown key is an error) while leaving
// the other sections of toolcat.yaml to their commands, finds the nodes an
// error should point at (path:line:col), and, in [Selection], checks and
// applies the use, except and rules keys that choose which rules run and
// at which severity.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"go.yaml.in/yaml/v3"
)

// MaxSize bounds toolcat.yaml, far above any real one.
const MaxSize = 1 << 20

// Read reads the toolcat.yaml at path, refusing one above [MaxSize].
func Read(path string) ([]byte, error) {
	return ReadLimited(path, MaxSize, "configuration")
}

// ReadLimited reads the file at path, refusing one above limit bytes so
// that a wrong path (a device, a huge file) fails fast instead of filling
// memory. what names the file's role for the error.
func ReadLimited(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: file is above the %d MiB limit of a %s file", path, limit>>20, what)
	}
	return data, nil
}

// Decode decodes the first YAML document of data into file, a pointer to
// a struct, where a key no field names is an error. A section of
// toolcat.yaml is decoded by a struct of two fields, the section's and
// one that takes the other sections:
//
//	var file struct {
//		Lint *Config `yaml:"lint"`
//		Rest map[string]yaml.Node `yaml:",inline"`
//	}
//
// Decode returns the document's node, which errors point into with [At]
// and [Value], or nil for data without a document (empty, or only
// comments), which leaves file as it was. Its errors are yaml's.
func Decode(data []byte, file any) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(file); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	return &root, nil
}

// At is the place of n in the file at path for an error, "path:line:col",
// or path alone when n is nil.
func At(path string, n *yaml.Node) string {
	if n == nil {
		return path
	}
	return fmt.Sprintf("%s:%d:%d", path, n.Line, n.Column)
}

// Value returns the value of key in the mapping n (or in the document n
// holds), or nil.
func Value(n *yaml.Node, key string) *yaml.Node {
	if n = mapping(n); n == nil {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// Key returns the key node named key in the mapping n (or in the document
// n holds), or nil.
func Key(n *yaml.Node, key string) *yaml.Node {
	if n = mapping(n); n == nil {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

// Item returns item i of the sequence n, or n itself when n is no
// sequence or too short.
func Item(n *yaml.Node, i int) *yaml.Node {
	if n != nil && n.Kind == yaml.SequenceNode && i < len(n.Content) {
		return n.Content[i]
	}
	return n
}

// mapping returns the mapping n is or the document n holds, or nil.
func mapping(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	return n
}
