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
	UntrustedOutputMarked,
	CapabilityFormat,
	ErrorCodeSuggestion,
	// graph
	FallbackValid,
	FallbackArgsCompatible,
	FallbackRisk,
	DependencyDeclared,
	DependencyAcyclic,
	DependencySLA,
	// catalog
	CatalogCoreTools,
	CatalogPromptBudget,
	ToolConfusable,
	VersionSemver,
	SuppressionUnused,
}

// DefaultSeverity is the rule set: the severity each rule runs at unless a
// configuration says otherwise. A rule missing here is off by default.
//
// Errors are findings that break generation, a provider or a safety
// guarantee; warnings are findings that make a model misuse a tool; notes
// are facts worth knowing that need no change.
var DefaultSeverity = map[string]Severity{
	ToolNameFormat.ID:    Error,
	ToolNameSnakeCase.ID: Warning,
	ToolNameVerbNoun.ID:  Warning,
	ToolNameGeneric.ID:   Warning,
	ToolNameUnique.ID:    Error,

	DescriptionLength.ID:      Warning,
	DescriptionTokenBudget.ID: Warning,
	DescriptionWhenToUse.ID:   Warning,
	DescriptionLimits.ID:      Warning,

	SchemaRootObject.ID:        Error,
	SchemaPropertyTyped.ID:     Warning,
	SchemaPropertyDescribed.ID: Warning,
	SchemaObjectClosed.ID:      Warning,
	SchemaEnumOverString.ID:    Warning,
	SchemaLimitBounded.ID:      Warning,
	SchemaRequiredExists.ID:    Error,
	SchemaValuesValid.ID:       Error,
	SchemaComplexity.ID:        Warning,
	SchemaProviderCompat.ID:    Warning,
	SchemaUnknownKeyword.ID:    Warning,
	SchemaStrictMode.ID:        Note,

	SideEffectRetryIdempotent.ID: Error,
	SideEffectDryRunRisk.ID:      Warning,
	ReadOnlyConsistent.ID:        Warning,
	UntrustedOutputMarked.ID:     Warning,
	CapabilityFormat.ID:          Warning,
	ErrorCodeSuggestion.ID:       Warning,

	FallbackValid.ID:          Error,
	FallbackArgsCompatible.ID: Error,
	FallbackRisk.ID:           Error,
	DependencyDeclared.ID:     Error,
	DependencyAcyclic.ID:      Error,
	DependencySLA.ID:          Warning,

	CatalogCoreTools.ID:    Warning,
	CatalogPromptBudget.ID: Warning,
	ToolConfusable.ID:      Warning,
	VersionSemver.ID:       Warning,
	SuppressionUnused.ID:   Warning,
}
