package lint

// Rules is every lint rule, in the order `toolcat lint --rules` lists them:
// by category, then by what they check.
var Rules = []*Rule{
	// names
	ToolNameFormat,
	ToolNameSnakeCase,
	ToolNameVerbNoun,
	ToolNameGeneric,
	ToolNameUnique,
	// descriptions
	DescriptionLength,
	DescriptionTokenBudget,
	DescriptionWhenToUse,
	DescriptionLimits,
	// schemas
	SchemaRootObject,
	SchemaPropertyTyped,
	SchemaPropertyDescribed,
	SchemaObjectClosed,
	SchemaEnumOverString,
	SchemaLimitBounded,
	SchemaRequiredExists,
	SchemaValuesValid,
	SchemaComplexity,
	SchemaProviderCompat,
	SchemaStrictMode,
	SchemaUnknownKeyword,
	// safety
	SideEffectRetryIdempotent,
	SideEffectDryRunRisk,
	ReadOnlyConsistent,
	IdempotencyKeyArgReserved,
	UntrustedOutputMarked,
	CapabilityFormat,
	ErrorCodeSuggestion,
	// security
	SecurityHiddenText,
	SecurityModelDirective,
	SecuritySecretAccess,
	SecurityExfiltration,
	SecurityToolSteering,
	SecurityEncodedBlob,
	SecurityNameShadow,
	// graph
	FallbackValid,
	FallbackArgsCompatible,
	FallbackRisk,
	DependencyDeclared,
	DependencyAcyclic,
	DependencySLA,
	RenamedFromValid,
	// catalog
	CatalogCoreTools,
	CatalogPromptBudget,
	ToolConfusable,
	DiscoveryQueries,
	VersionSemver,
	SuppressionUnused,
}

// The rule sets, from the smallest to the largest. Each set runs every
// rule of the set it extends, as buf's MINIMAL, BASIC and STANDARD do, and
// each rule is listed in exactly one set: the smallest it belongs to, with
// the severity it runs at unless a configuration says otherwise.
//
// Errors are findings that break generation, a provider or a safety
// guarantee; warnings are findings that make a model misuse a tool; notes
// are facts worth knowing that need no change.
var (
	Minimal = &Set{
		Name:    "MINIMAL",
		Purpose: "What breaks generation, a provider or a safety guarantee: names providers reject, schemas that are not objects or contradict themselves, retries that repeat side effects, broken fallback and dependency graphs, and text aimed at the model rather than the user (the security rules: tool poisoning).",
		Rules: map[string]Severity{
			ToolNameFormat.ID:            Error,
			ToolNameUnique.ID:            Error,
			SchemaRootObject.ID:          Error,
			SchemaRequiredExists.ID:      Error,
			SchemaValuesValid.ID:         Error,
			SchemaProviderCompat.ID:      Warning,
			SideEffectRetryIdempotent.ID: Error,
			IdempotencyKeyArgReserved.ID: Error,
			FallbackValid.ID:             Error,
			FallbackArgsCompatible.ID:    Error,
			FallbackRisk.ID:              Error,
			DependencyDeclared.ID:        Error,
			DependencyAcyclic.ID:         Error,
			RenamedFromValid.ID:          Error,
			SuppressionUnused.ID:         Warning,
			SecurityHiddenText.ID:        Error,
			SecurityModelDirective.ID:    Error,
			SecuritySecretAccess.ID:      Error,
			SecurityExfiltration.ID:      Error,
			SecurityToolSteering.ID:      Error,
			SecurityEncodedBlob.ID:       Error,
			SecurityNameShadow.ID:        Error,
		},
	}
	Basic = &Set{
		Name:    "BASIC",
		Extends: Minimal,
		Purpose: "MINIMAL, and what makes a model misuse a tool whatever the house style: generic names, confusable tools, overlong descriptions, untyped properties, unknown keywords, nesting too deep, contradictory safety settings, unmarked untrusted output, example requests that do not find their tool. Well-kept existing tool sets mostly pass it.",
		Rules: map[string]Severity{
			ToolNameGeneric.ID:        Warning,
			DescriptionTokenBudget.ID: Warning,
			SchemaPropertyTyped.ID:    Warning,
			SchemaComplexity.ID:       Warning,
			SchemaUnknownKeyword.ID:   Warning,
			ReadOnlyConsistent.ID:     Warning,
			UntrustedOutputMarked.ID:  Warning,
			CapabilityFormat.ID:       Warning,
			DependencySLA.ID:          Warning,
			CatalogPromptBudget.ID:    Warning,
			ToolConfusable.ID:         Warning,
			DiscoveryQueries.ID:       Warning,
			VersionSemver.ID:          Warning,
		},
	}
	Standard = &Set{
		Name:    "STANDARD",
		Extends: Basic,
		Purpose: "BASIC, and the conventions of a catalog written for toolcat: verb-first snake_case names, descriptions long enough to say when to use a tool and when not to, described properties, closed objects, enums, bounded limits, error suggestions, risk matched to what can be undone, a core tool set small enough to read.",
		Rules: map[string]Severity{
			ToolNameSnakeCase.ID:       Warning,
			ToolNameVerbNoun.ID:        Warning,
			DescriptionLength.ID:       Warning,
			DescriptionWhenToUse.ID:    Warning,
			DescriptionLimits.ID:       Warning,
			SchemaPropertyDescribed.ID: Warning,
			SchemaObjectClosed.ID:      Warning,
			SchemaEnumOverString.ID:    Warning,
			SchemaLimitBounded.ID:      Warning,
			SchemaStrictMode.ID:        Note,
			SideEffectDryRunRisk.ID:    Warning,
			ErrorCodeSuggestion.ID:     Warning,
			CatalogCoreTools.ID:        Warning,
		},
	}
)

// Sets lists the rule sets, each extending the one before.
var Sets = []*Set{Minimal, Basic, Standard}

// DefaultSet is the set that runs when the configuration names none.
var DefaultSet = Standard

// Set is a rule set: the rules it adds to the set it extends, each with
// its default severity.
type Set struct {
	// Name is how configurations and output name the set: MINIMAL.
	Name string
	// Purpose says in one sentence what the set checks.
	Purpose string
	// Extends is the next smaller set, whose rules this one runs too; nil
	// for the smallest.
	Extends *Set
	// Rules are the IDs of the rules the set adds, with the severity each
	// runs at by default.
	Rules map[string]Severity
}

// Has reports whether the set runs rule id, itself or through the set it
// extends.
func (s *Set) Has(id string) bool {
	for ; s != nil; s = s.Extends {
		if _, ok := s.Rules[id]; ok {
			return true
		}
	}
	return false
}

// SetOf returns the smallest set that runs rule id, or nil.
func SetOf(id string) *Set {
	for _, s := range Sets {
		if _, ok := s.Rules[id]; ok {
			return s
		}
	}
	return nil
}

// LookupSet returns the set of the given name, or nil.
func LookupSet(name string) *Set {
	for _, s := range Sets {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// DefaultSeverity returns the severity rule id runs at in its set: Off
// for a rule of no set.
func DefaultSeverity(id string) Severity {
	if s := SetOf(id); s != nil {
		return s.Rules[id]
	}
	return Off
}
