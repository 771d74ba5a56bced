package breaking

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolcat/toolcat/catalog/internal/config"
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

// LoadConfig reads the breaking section of a toolcat.yaml.
func LoadConfig(path string) (*Config, error) {
	data, err := config.Read(path)
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
	root, err := config.Decode(data, &file)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := selection.Check(path, config.Value(root, "breaking"), cfg.Use, cfg.Except, cfg.Rules); err != nil {
		return nil, err
	}
	return cfg, nil
}

// selection is what breaking's use, except and rules may name:
// categories and rules.
var selection = &config.Selection[*Rule, lint.Severity]{
	Section: "breaking",
	Lookup:  Lookup,
	IsName:  func(name string) bool { return slices.Contains(Categories, name) || Lookup(name) != nil },
	Names: func() string {
		return "a category (" + strings.Join(Categories, ", ") + ") or a rule (see toolcat breaking --rules)"
	},
	EmptyUse:   "name categories, such as [WIRE, GO], or leave use out for all",
	Selects:    func(name string, r *Rule) bool { return name == r.ID || name == r.Category },
	DefaultUse: Categories,
	Default:    func(r *Rule) lint.Severity { return categorySeverity[r.Category] },
}

// Severity returns the severity rule id runs at under c: Off when c does
// not run it.
func (c *Config) Severity(id string) lint.Severity {
	return selection.Severity(id, c.Use, c.Except, c.Rules)
}
