package breaking

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolcat/toolcat/catalog/lint"
)

// The categories, in the order of [Rules].
const (
	// Wire changes break a model's or a client's call.
	Wire = "WIRE"
	// Go changes break users' code compiled against the generated package.
	Go = "GO"
	// Safety changes make a tool less safe than callers were told.
	Safety = "SAFETY"
	// Prompt changes alter what the model reads.
	Prompt = "PROMPT"
)

// Categories lists the categories.
var Categories = []string{Wire, Go, Safety, Prompt}

// categorySeverity is the severity each category's rules run at unless
// the configuration says otherwise: prompt drift is worth knowing, not a
// failure.
var categorySeverity = map[string]lint.Severity{Wire: lint.Error, Go: lint.Error, Safety: lint.Error, Prompt: lint.Note}

// Config is the breaking section of toolcat.yaml: which categories and
// rules run, at which severity.
type Config struct {
	// Use names the categories (WIRE, GO, SAFETY, PROMPT) or rule IDs that
	// run. Empty means every category.
	Use []string `yaml:"use"`
	// Except names categories or rule IDs that Use would run and that do
	// not run.
	Except []string `yaml:"except"`
	// Rules sets the severity of single rules, by ID, over Use and Except.
	Rules map[string]lint.Severity `yaml:"rules"`
}

// DefaultConfig returns the configuration used when toolcat.yaml has no
// breaking section: every category.
func DefaultConfig() *Config {
	return &Config{Use: slices.Clone(Categories), Rules: map[string]lint.Severity{}}
}

// maxConfigSize bounds toolcat.yaml, far above any real one.
const maxConfigSize = 1 << 20

// LoadConfig reads the breaking section of a toolcat.yaml.
func LoadConfig(path string) (*Config, error) {
	data, err := lint.ReadLimited(path, maxConfigSize, "configuration")
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, data)
}

// ParseConfig is [LoadConfig] on data already read. Unknown keys, rule
// IDs and categories are errors, placed path:line:col.
func ParseConfig(path string, data []byte) (*Config, error) {
	cfg := DefaultConfig()
	var file struct {
		Breaking *Config `yaml:"breaking"`
		// Other sections (lint, gen) belong to other commands.
		Rest map[string]yaml.Node `yaml:",inline"`
	}
	file.Breaking = cfg
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root) // decoded above without error
	section := value(&root, "breaking")
	at := func(n *yaml.Node) string {
		if n == nil {
			return path
		}
		return fmt.Sprintf("%s:%d:%d", path, n.Line, n.Column)
	}
	for _, id := range slices.Sorted(maps.Keys(cfg.Rules)) {
		if Lookup(id) == nil {
			return nil, fmt.Errorf("%s: breaking.rules: unknown rule %s; see toolcat breaking --rules", at(value(section, "rules")), id)
		}
	}
	for _, key := range []string{"use", "except"} {
		list := cfg.Use
		if key == "except" {
			list = cfg.Except
		}
		for i, name := range list {
			if !slices.Contains(Categories, name) && Lookup(name) == nil {
				n := value(section, key)
				if n != nil && i < len(n.Content) {
					n = n.Content[i]
				}
				return nil, fmt.Errorf("%s: breaking.%s: unknown name %q; name a category (%s) or a rule (see toolcat breaking --rules)",
					at(n), key, name, strings.Join(Categories, ", "))
			}
		}
	}
	if n := value(section, "use"); n != nil && len(cfg.Use) == 0 {
		return nil, fmt.Errorf("%s: breaking.use is empty; name categories, such as [WIRE, GO], or leave use out for all", at(n))
	}
	return cfg, nil
}

// value returns the value of key in the mapping n (or the document n
// holds), or nil.
func value(n *yaml.Node, key string) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// Severity returns the severity rule id runs at under c: Off when c does
// not run it.
func (c *Config) Severity(id string) lint.Severity {
	if s, ok := c.Rules[id]; ok {
		return s
	}
	r := Lookup(id)
	if r == nil {
		return lint.Off
	}
	use := c.Use
	if len(use) == 0 {
		use = Categories
	}
	in := func(names []string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return n == r.ID || n == r.Category })
	}
	if !in(use) || in(c.Except) {
		return lint.Off
	}
	return categorySeverity[r.Category]
}
