package lint

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Config is the lint configuration: which rules run at which severity,
// and the thresholds and word lists the rules use. The zero value is not
// useful; start from [DefaultConfig] or [LoadConfig].
type Config struct {
	// Rules overrides the default severity of rules, by ID.
	Rules map[string]Severity `yaml:"rules"`

	// Verbs a tool name may start with (TOOL_NAME_VERB_NOUN).
	Verbs []string `yaml:"verbs"`
	// ExtraVerbs are added to Verbs, to extend the default list.
	ExtraVerbs []string `yaml:"extra_verbs"`
	// GenericNames are tool names, or name words, too vague to guide a model.
	GenericNames []string `yaml:"generic_names"`

	// DescriptionMinChars is the shortest useful tool description.
	DescriptionMinChars int `yaml:"description_min_chars"`
	// DescriptionMaxTokens is the budget of one tool description.
	DescriptionMaxTokens int `yaml:"description_max_tokens"`
	// UseMarkers are phrases that say when to use a tool.
	UseMarkers []string `yaml:"use_markers"`
	// AvoidMarkers are phrases that say what a tool does not do.
	AvoidMarkers []string `yaml:"avoid_markers"`

	// EnumHintNames are argument names that suggest a closed set of values.
	EnumHintNames []string `yaml:"enum_hint_names"`
	// LimitNames are argument names (or prefixes ending in "_") of counts
	// and limits that must be bounded.
	LimitNames []string `yaml:"limit_names"`
	// MaxSchemaDepth bounds the nesting of argument objects and arrays.
	MaxSchemaDepth int `yaml:"max_schema_depth"`
	// MaxProperties bounds the number of properties of one object.
	MaxProperties int `yaml:"max_properties"`
	// Providers are the provider profiles checked by SCHEMA_PROVIDER_COMPAT
	// and TOOL_NAME_FORMAT:
	// openai, gemini, anthropic.
	Providers []string `yaml:"providers"`

	// UntrustedCapabilities are capability patterns of tools that read
	// outside content and must set returns_untrusted: a trailing * matches
	// any rest, otherwise a pattern matches itself and its
	// sub-capabilities ("net" matches "net:fetch").
	UntrustedCapabilities []string `yaml:"untrusted_capabilities"`

	// MaxCoreTools is how many core tools one autonomy level may show the
	// model before some should become hidden.
	MaxCoreTools int `yaml:"max_core_tools"`
	// SimilarityThreshold (0..1) above which two tools are confusable.
	SimilarityThreshold float64 `yaml:"similarity_threshold"`
	// PromptBudgetTokens bounds the estimated tokens of the whole catalog
	// as the model sees it; 0 disables the check.
	PromptBudgetTokens int `yaml:"prompt_budget_tokens"`
}

// DefaultConfig returns the configuration used when the project has none.
func DefaultConfig() *Config {
	return &Config{
		Rules:                 map[string]Severity{},
		Verbs:                 slices.Clone(defaultVerbs),
		GenericNames:          slices.Clone(defaultGenericNames),
		DescriptionMinChars:   40,
		DescriptionMaxTokens:  300,
		UseMarkers:            slices.Clone(defaultUseMarkers),
		AvoidMarkers:          slices.Clone(defaultAvoidMarkers),
		EnumHintNames:         slices.Clone(defaultEnumHintNames),
		LimitNames:            []string{"max_", "limit", "count", "page_size", "per_page", "top_k", "top_n", "size"},
		MaxSchemaDepth:        5,
		MaxProperties:         20,
		Providers:             []string{"openai", "gemini", "anthropic"},
		UntrustedCapabilities: []string{"net", "web", "http", "fs:read*", "shell", "email:read*", "mail:read*", "browser"},
		MaxCoreTools:          20,
		SimilarityThreshold:   0.8,
		PromptBudgetTokens:    0,
	}
}

// ConfigFile is the name toolcat looks for beside a catalog.
const ConfigFile = "toolcat.yaml"

// LoadConfig reads a toolcat.yaml. Settings it leaves out keep their
// defaults. Unknown keys, unknown rule IDs and bad severities are errors.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, data)
}

// ParseConfig is [LoadConfig] on data already read.
func ParseConfig(path string, data []byte) (*Config, error) {
	cfg := DefaultConfig()
	var file struct {
		Lint *Config `yaml:"lint"`
		// Other sections (gen, docs) belong to other commands.
		Rest map[string]yaml.Node `yaml:",inline"`
	}
	file.Lint = cfg
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil && err.Error() != "EOF" {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	for id := range cfg.Rules {
		if Lookup(id) == nil {
			return nil, fmt.Errorf("%s: lint.rules: unknown rule %s; rules are %s", path, id, ruleIDs())
		}
	}
	cfg.Verbs = append(cfg.Verbs, cfg.ExtraVerbs...)
	if cfg.SimilarityThreshold <= 0 || cfg.SimilarityThreshold > 1 {
		return nil, fmt.Errorf("%s: lint.similarity_threshold must be above 0 and at most 1, not %v", path, cfg.SimilarityThreshold)
	}
	return cfg, nil
}

func (c *Config) severity(id string) Severity {
	if s, ok := c.Rules[id]; ok {
		return s
	}
	return DefaultSeverity[id]
}

// Severity returns the severity rule id runs at under c.
func (c *Config) Severity(id string) Severity { return c.severity(id) }
