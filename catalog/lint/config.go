package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
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
	data, err := ReadLimited(path, maxConfigSize, "configuration")
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, data)
}

// maxConfigSize bounds toolcat.yaml, far above any real one.
const maxConfigSize = 1 << 20

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
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlError(path, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(path, err)
	}
	lintNode := mapValue(&root, "lint")
	at := func(n *yaml.Node) string {
		if n == nil {
			return path
		}
		return fmt.Sprintf("%s:%d:%d", path, n.Line, n.Column)
	}
	for _, id := range slices.Sorted(maps.Keys(cfg.Rules)) {
		if Lookup(id) == nil {
			return nil, fmt.Errorf("%s: lint.rules: unknown rule %s; see toolcat lint --rules", at(mapKey(mapValue(lintNode, "rules"), id)), id)
		}
	}
	for _, key := range []string{"use", "except"} {
		list := cfg.Use
		if key == "except" {
			list = cfg.Except
		}
		for i, name := range list {
			if !isSelector(name) {
				return nil, fmt.Errorf("%s: lint.%s: unknown name %q; name a set (%s), a category (%s) or a rule (see toolcat lint --rules)",
					at(listItem(mapValue(lintNode, key), i)), key, name, setNames(), strings.Join(ruleCategories(), ", "))
			}
		}
	}
	if n := mapValue(lintNode, "use"); n != nil && len(cfg.Use) == 0 {
		return nil, fmt.Errorf("%s: lint.use is empty; name a set, such as [%s], or leave use out for %s", at(n), Minimal.Name, DefaultSet.Name)
	}
	cfg.Verbs = append(cfg.Verbs, cfg.ExtraVerbs...)
	if cfg.SimilarityThreshold <= 0 || cfg.SimilarityThreshold > 1 {
		return nil, fmt.Errorf("%s: lint.similarity_threshold must be above 0 and at most 1, not %v", at(mapValue(lintNode, "similarity_threshold")), cfg.SimilarityThreshold)
	}
	return cfg, nil
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

// mapValue returns the value of key in the mapping n (or in the document n
// holds), or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if k := mapKey(n, key); k != nil {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i] == k {
				return n.Content[i+1]
			}
		}
	}
	return nil
}

// mapKey returns the key node named key in the mapping n (or in the
// document n holds), or nil.
func mapKey(n *yaml.Node, key string) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

// listItem returns item i of the sequence n, or n itself.
func listItem(n *yaml.Node, i int) *yaml.Node {
	if n != nil && n.Kind == yaml.SequenceNode && i < len(n.Content) {
		return n.Content[i]
	}
	return n
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
	if s, ok := c.Rules[id]; ok {
		return s
	}
	r := Lookup(id)
	if r == nil {
		return Off
	}
	use := c.Use
	if len(use) == 0 {
		use = []string{DefaultSet.Name}
	}
	in := func(names []string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return selects(n, r) })
	}
	if !in(use) || in(c.Except) {
		return Off
	}
	return DefaultSeverity(id)
}

// Severity returns the severity rule id runs at under c: Off when c does
// not run it.
func (c *Config) Severity(id string) Severity { return c.severity(id) }
