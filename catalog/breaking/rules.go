package breaking

// Rules is every breaking rule, by category, in the order `toolcat
// breaking --rules` lists them.
var Rules = []*Rule{
	// WIRE
	ToolRemoved,
	ArgRemoved,
	ArgRequiredAdded,
	ArgTypeChanged,
	EnumValueRemoved,
	BoundTightened,
	ObjectClosed,
	ResultPropertyRemoved,
	IdempotencyKeyRequired,
	AutonomyRaised,
	// GO
	GoAPIChanged,
	// SAFETY
	SideEffectsAdded,
	SideEffectRaised,
	RiskRaised,
	IdempotentRemoved,
	DryRunRemoved,
	RevertRemoved,
	UntrustedAdded,
	CapabilityAdded,
	// PROMPT
	DescriptionChanged,
	HintChanged,
}
