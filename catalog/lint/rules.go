package lint

// Rules is every lint rule, in the order `toolcat lint --rules` lists them.
var Rules = []*Rule{
	SuppressionUnused,
}

// DefaultSeverity is the rule set: the severity each rule runs at unless a
// configuration says otherwise. A rule missing here is off by default.
var DefaultSeverity = map[string]Severity{
	SuppressionUnused.ID: Warning,
}
