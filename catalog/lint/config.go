package lint

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolcat/toolcat/catalog/internal/config"
)

// Config is the lint configuration: which rules run at which severity,
// and the thresholds and word lists the rules use. The zero value is not
// useful; start from [DefaultConfig] or [LoadConfig].
type Config struct {
	// Use names what runs: rule sets (MINIMAL, BASIC, STANDARD),
	// categories (names, descriptions, ...) or rule IDs. Empty means
	// [DefaultSet].
	Use []string `yaml:"use"`
	// Except names sets, categories or rule IDs that Use would run and
	// that do not run.
	Except []string `yaml:"except"`
	// Rules sets the severity of single rules, by ID. It decides over Use
	// and Except: a rule given a severity here runs at it (or not, when
	// off) whatever the sets say.
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

	// Foreign reports the rule IDs of other commands (toolcat breaking)
	// that suppressions may name: lint leaves those suppressions alone.
	Foreign func(id string) bool `yaml:"-"`
}

// DefaultConfig returns the configuration used when the project has none.
func DefaultConfig() *Config {
	return &Config{
		Use:                   []string{DefaultSet.Name},
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
	data, err := config.Read(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, data)
}

// ReadLimited reads the file at path, refusing one above limit bytes so
// that a wrong path (a device, a huge file) fails fast instead of filling
// memory. what names the file's role for the error.
func ReadLimited(path string, limit int64, what string) ([]byte, error) {
	return config.ReadLimited(path, limit, what)
}

// ParseConfig is [LoadConfig] on data already read. Its errors read
// path:line:col: message.
func ParseConfig(path string, data []byte) (*Config, error) {
	cfg := DefaultConfig()
	var file struct {
		Lint *Config `yaml:"lint"`
		// Other sections (gen, docs) belong to other commands.
		Rest map[string]yaml.Node `yaml:",inline"`
	}
	file.Lint = cfg
	root, err := config.Decode(data, &file)
	if err != nil {
		return nil, yamlError(path, err)
	}
	section := config.Value(root, "lint")
	if err := selection.Check(path, section, cfg.Use, cfg.Except, cfg.Rules); err != nil {
		return nil, err
	}
	cfg.Verbs = append(cfg.Verbs, cfg.ExtraVerbs...)
	if cfg.SimilarityThreshold <= 0 || cfg.SimilarityThreshold > 1 {
		return nil, fmt.Errorf("%s: lint.similarity_threshold must be above 0 and at most 1, not %v", config.At(path, config.Value(section, "similarity_threshold")), cfg.SimilarityThreshold)
	}
	return cfg, nil
}

// selection is what lint's use, except and rules may name: sets,
// categories and rules.
var selection = &config.Selection[*Rule, Severity]{
	Section: "lint",
	Lookup:  Lookup,
	IsName:  isSelector,
	Names: func() string {
		return fmt.Sprintf("a set (%s), a category (%s) or a rule (see toolcat lint --rules)", setNames(), strings.Join(ruleCategories(), ", "))
	},
	EmptyUse:   fmt.Sprintf("name a set, such as [%s], or leave use out for %s", Minimal.Name, DefaultSet.Name),
	RuleAtKey:  true,
	Selects:    selects,
	DefaultUse: []string{DefaultSet.Name},
	Default:    func(r *Rule) Severity { return DefaultSeverity(r.ID) },
}

// yamlError places a YAML decoding error: yaml reports "line N: msg".
func yamlError(path string, err error) error {
	var te *yaml.TypeError
	msgs := []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	for i, m := range msgs {
		if rest, ok := strings.CutPrefix(m, "line "); ok {
			if n, msg, ok := strings.Cut(rest, ": "); ok {
				msgs[i] = path + ":" + n + ": " + msg
				continue
			}
		}
		msgs[i] = path + ": " + m
	}
	return errors.New(strings.Join(msgs, "\n"))
}

// isSelector reports whether name names a set, a category or a rule.
func isSelector(name string) bool {
	return LookupSet(name) != nil || slices.Contains(ruleCategories(), name) || Lookup(name) != nil
}

// selects reports whether the name from use or except covers rule r.
func selects(name string, r *Rule) bool {
	if s := LookupSet(name); s != nil {
		return s.Has(r.ID)
	}
	return name == r.ID || name == r.Category
}

// ruleCategories lists the rules' categories in the order of [Rules].
func ruleCategories() []string {
	var out []string
	for _, r := range Rules {
		if !slices.Contains(out, r.Category) {
			out = append(out, r.Category)
		}
	}
	return out
}

func setNames() string {
	names := make([]string, len(Sets))
	for i, s := range Sets {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

func (c *Config) severity(id string) Severity {
	return selection.Severity(id, c.Use, c.Except, c.Rules)
}

// Severity returns the severity rule id runs at under c: Off when c does
// not run it.
func (c *Config) Severity(id string) Severity { return c.severity(id) }
