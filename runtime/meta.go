package runtime

import (
	"encoding/json"
	"fmt"
	"time"
)

// Risk is a tool's risk level.
type Risk string

// The risk levels.
const (
	RiskLow    Risk = "low"
	RiskMedium Risk = "medium"
	RiskHigh   Risk = "high"
)

// Exposure says whether a tool is listed to the model from the start (core)
// or only found through discovery (hidden).
type Exposure string

// The exposures.
const (
	ExposureCore   Exposure = "core"
	ExposureHidden Exposure = "hidden"
)

// SideEffect says what a tool's side effect does to what exists.
type SideEffect string

// The side effects, from least to most harmful.
const (
	// SideEffectAdditive only adds: it creates a record, sends a message,
	// appends a line; nothing that existed is changed.
	SideEffectAdditive SideEffect = "additive"
	// SideEffectOverwrites changes what exists in place: the old value is
	// lost unless the tool can revert the call.
	SideEffectOverwrites SideEffect = "overwrites"
	// SideEffectDestructive deletes what exists.
	SideEffectDestructive SideEffect = "destructive"
)

// AdditionalArgs is the policy for arguments the schema does not declare.
type AdditionalArgs string

// The additional-argument policies.
const (
	// AdditionalArgsReject answers invalid_args naming the valid arguments
	// and the closest one.
	AdditionalArgsReject AdditionalArgs = "reject"
	// AdditionalArgsStrip drops unknown top-level arguments before
	// validation.
	AdditionalArgsStrip AdditionalArgs = "strip"
	// AdditionalArgsAllow leaves them to the schema.
	AdditionalArgsAllow AdditionalArgs = "allow"
)

// Autonomy is how much an agent may do without a human. The registry gates
// each call on it, and Registry.Visible lists the tools a level may call.
type Autonomy uint8

// The autonomy levels, from least to most. The zero value stands for the
// registry's default (WithDefaultAutonomy; AutonomyFull unless set).
const (
	AutonomyDefault Autonomy = iota
	// AutonomyReadOnly allows tools without side effects, and dry runs.
	AutonomyReadOnly
	// AutonomySupervised allows side effects; a medium- or high-risk tool
	// with side effects answers approval_required unless
	// CallOptions.Approved is set.
	AutonomySupervised
	// AutonomyFull allows every tool.
	AutonomyFull
)

// String returns "default", "read_only", "supervised" or "full".
func (a Autonomy) String() string {
	switch a {
	case AutonomyDefault:
		return "default"
	case AutonomyReadOnly:
		return "read_only"
	case AutonomySupervised:
		return "supervised"
	case AutonomyFull:
		return "full"
	}
	return fmt.Sprintf("autonomy(%d)", uint8(a))
}

// Meta is the Go form of a catalog entry. Generated code builds one per
// tool; the registry reads it on every call and never changes it.
type Meta struct {
	Name string
	// OriginalName is the name providers and MCP clients see and call
	// when it differs from Name (the catalog's original_name, as toolcat
	// import keeps it): exporters send it, and the registry finds the
	// tool by either name.
	OriginalName   string
	Description    string
	Category       string
	Version        string
	Owner          string
	Risk           Risk
	HasSideEffects bool
	// SideEffect says what the side effect does to what exists (the
	// catalog's side_effect); empty when the catalog does not say. See
	// Destructive.
	SideEffect          SideEffect
	Idempotent          bool
	IdempotencyRequired bool
	SupportsDryRun      bool
	Revertible          bool
	ReturnsUntrusted    bool
	// IdempotencyKeyArg exposes the idempotency_key argument (the catalog's
	// idempotency_key: argument): the model passes the key, which the
	// registry takes out before validation; see IdempotencyKeyArg.
	IdempotencyKeyArg bool
	// UntrustedSource is the source attribute of the untrusted wrapper;
	// empty means "tool:<name>". A result may name its own source by
	// implementing UntrustedSourcer.
	UntrustedSource    string
	CapabilityRequired string
	Exposure           Exposure
	// MinAutonomy raises the autonomy level the tool needs above the one its
	// side effects and risk imply.
	MinAutonomy    Autonomy
	MaxRetries     int
	SLA            time.Duration // from sla_ms; zero means no deadline
	Dependencies   []string
	FallbackTool   string
	AdditionalArgs AdditionalArgs // empty means reject
	// ArgsSchema is the JSON Schema (2020-12) of the arguments, an object.
	ArgsSchema json.RawMessage
	// ResultSchema is the JSON Schema of the data returned; optional.
	ResultSchema json.RawMessage
	// ErrorHints overrides the default suggestion per code.
	ErrorHints map[Code]string

	// MaxResultBytes caps the JSON of a result, from max_result_bytes;
	// zero means the registry's cap (WithMaxResultBytes).
	MaxResultBytes int

	// Queries are example requests a user would type that the tool
	// answers, from queries: what a discovery index (runtime/discovery's
	// Doc.Queries) searches besides the name and description. Provider
	// definitions leave them out: they are not for the model.
	Queries []string
}

// WireName is the name providers and MCP clients see: OriginalName when
// set, else Name.
func (m *Meta) WireName() string {
	if m.OriginalName != "" {
		return m.OriginalName
	}
	return m.Name
}

// check reports what is wrong with m for registration.
func (m *Meta) check() error {
	if m.Name == "" {
		return fmt.Errorf("tool has no name")
	}
	if err := CheckName(m.Name); err != nil {
		return fmt.Errorf("tool %w", err)
	}
	if m.OriginalName != "" {
		if err := CheckName(m.OriginalName); err != nil {
			return fmt.Errorf("tool %s: original name: %w", m.Name, err)
		}
	}
	switch m.Risk {
	case "", RiskLow, RiskMedium, RiskHigh:
	default:
		return fmt.Errorf("tool %s: risk %q is not low, medium or high", m.Name, m.Risk)
	}
	switch m.Exposure {
	case "", ExposureCore, ExposureHidden:
	default:
		return fmt.Errorf("tool %s: exposure %q is not core or hidden", m.Name, m.Exposure)
	}
	switch m.SideEffect {
	case "":
	case SideEffectAdditive, SideEffectOverwrites, SideEffectDestructive:
		if !m.HasSideEffects {
			return fmt.Errorf("tool %s: side effect %q on a tool without side effects", m.Name, m.SideEffect)
		}
	default:
		return fmt.Errorf("tool %s: side effect %q is not additive, overwrites or destructive", m.Name, m.SideEffect)
	}
	switch m.AdditionalArgs {
	case "", AdditionalArgsReject, AdditionalArgsStrip, AdditionalArgsAllow:
	default:
		return fmt.Errorf("tool %s: additional_args %q is not reject, strip or allow", m.Name, m.AdditionalArgs)
	}
	if m.MaxRetries < 0 {
		return fmt.Errorf("tool %s: max_retries %d is negative", m.Name, m.MaxRetries)
	}
	if m.MaxResultBytes < 0 {
		return fmt.Errorf("tool %s: max_result_bytes %d is negative", m.Name, m.MaxResultBytes)
	}
	if m.SLA < 0 {
		return fmt.Errorf("tool %s: sla %v is negative", m.Name, m.SLA)
	}
	if m.MinAutonomy > AutonomyFull {
		return fmt.Errorf("tool %s: unknown autonomy level %d", m.Name, m.MinAutonomy)
	}
	for c := range m.ErrorHints {
		if !c.Valid() {
			return fmt.Errorf("tool %s: error hint for unknown code %q", m.Name, c)
		}
	}
	if m.FallbackTool != "" {
		if err := CheckName(m.FallbackTool); err != nil {
			return fmt.Errorf("tool %s: fallback_tool: %w", m.Name, err)
		}
	}
	if m.FallbackTool == m.Name {
		return fmt.Errorf("tool %s: fallback_tool names the tool itself", m.Name)
	}
	return nil
}

// requiredAutonomy is the least level that may call the tool, and whether
// that level also needs the user's approval.
func (m *Meta) requiredAutonomy() Autonomy {
	need := AutonomyReadOnly
	if m.HasSideEffects {
		need = AutonomySupervised
	}
	if m.MinAutonomy > need {
		need = m.MinAutonomy
	}
	return need
}

// Destructive reports whether the tool's side effect may destroy what
// exists, as MCP's destructiveHint means it: SideEffect overwrites or
// destructive; without a SideEffect, a side effect that cannot be
// reverted or that is high risk. A tool without side effects is not
// destructive.
func (m *Meta) Destructive() bool {
	if !m.HasSideEffects {
		return false
	}
	if m.SideEffect != "" {
		return m.SideEffect != SideEffectAdditive
	}
	return !m.Revertible || m.Risk == RiskHigh
}

// needsApproval reports whether a supervised agent must get the user's
// approval before the tool runs: a side effect of medium or high risk,
// or one that overwrites or deletes what exists and cannot be reverted,
// whatever its risk.
func (m *Meta) needsApproval() bool {
	if !m.HasSideEffects {
		return false
	}
	return m.Risk == RiskMedium || m.Risk == RiskHigh || m.lossy()
}

// lossy reports whether the catalog says the side effect overwrites or
// deletes what exists, and no revert can bring it back.
func (m *Meta) lossy() bool {
	return (m.SideEffect == SideEffectOverwrites || m.SideEffect == SideEffectDestructive) && !m.Revertible
}

// approvalWhy says why a supervised agent's call of the tool needs the
// user's approval.
func (m *Meta) approvalWhy() string {
	var what string
	switch m.SideEffect {
	case SideEffectAdditive:
		what = "adds data"
	case SideEffectOverwrites:
		what = "overwrites data"
	case SideEffectDestructive:
		what = "deletes data"
	}
	switch {
	case what == "":
		return fmt.Sprintf("tool %s is %s risk and has side effects", m.Name, riskName(m.Risk))
	case m.lossy():
		return fmt.Sprintf("tool %s is %s risk and %s that it cannot restore", m.Name, riskName(m.Risk), what)
	}
	return fmt.Sprintf("tool %s is %s risk and %s", m.Name, riskName(m.Risk), what)
}

// UntrustedSourcer is implemented by results that name where their content
// came from, such as the URL a page was fetched from. The name goes into the
// source attribute of the untrusted wrapper.
type UntrustedSourcer interface {
	UntrustedSource() string
}
