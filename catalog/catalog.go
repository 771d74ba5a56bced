// Package catalog holds toolcat's catalog model: the Go form of a tool
// catalog, the embedded CUE definition of its format, and the loader that
// reads a catalog from .cue, .yaml/.yml and .json files with the source
// position of every tool and field.
//
// A catalog is loaded with [Load]; every problem found is reported as an
// [Error] carrying a file:line:col position, all of them at once in an
// [ErrorList].
package catalog

import (
	"sort"
)

// Catalog is a loaded, normalised tool catalog.
type Catalog struct {
	// Package is the Go package name of the generated code.
	Package string
	// Title names the catalog in generated documentation.
	Title string
	// Services are the external dependencies tools may name, sorted by name.
	Services []*Service
	// Tools are sorted by name.
	Tools []*Tool
	// Suppress silences lint findings for the whole catalog.
	Suppress []Suppression
	// IdempotencyKey is the idempotency_key of tools with side effects
	// that set none: IdempotencyKeyHost or IdempotencyKeyArgument.
	IdempotencyKey string
	// Metadata are the top-level fields the format does not declare,
	// such as version, agent or last_updated, in the order written.
	Metadata []Metadata
	// Files are the files the catalog was read from, in load order.
	Files []string
	// Pos is the position of the first file.
	Pos Pos
}

// Metadata is one field of the catalog's own metadata: a string, number
// or boolean written beside package, services and tools.
type Metadata struct {
	Key string
	// Value is the value as text: a string as it is, a number as written
	// in JSON, a boolean as true or false.
	Value string
	Pos   Pos
}

// Service is an external dependency: a database, an API, a device.
type Service struct {
	Name        string
	Description string
	URL         string
	Pos         Pos
}

// Risk says how much harm a wrong call can do.
type Risk string

// The risk levels, from least to most harmful.
const (
	RiskLow    Risk = "low"
	RiskMedium Risk = "medium"
	RiskHigh   Risk = "high"
)

// The side effects a tool's side_effect names.
const (
	SideEffectAdditive    = "additive"
	SideEffectOverwrites  = "overwrites"
	SideEffectDestructive = "destructive"
)

// SideEffects are the values of side_effect, from least to most harmful.
var SideEffects = []string{SideEffectAdditive, SideEffectOverwrites, SideEffectDestructive}

// Rank orders risks: low 0, medium 1, high 2, anything else -1.
func (r Risk) Rank() int {
	switch r {
	case RiskLow:
		return 0
	case RiskMedium:
		return 1
	case RiskHigh:
		return 2
	}
	return -1
}

// Autonomy is the lowest autonomy level of the agent at which a tool is
// offered to the model.
type Autonomy string

// The autonomy levels, from most to least supervised.
const (
	AutonomyReadOnly   Autonomy = "read_only"
	AutonomySupervised Autonomy = "supervised"
	AutonomyFull       Autonomy = "full"
)

// Who passes a tool's idempotency key (the format's idempotency_key).
const (
	// IdempotencyKeyHost: only the host, as runtime.CallOptions.IdempotencyKey.
	IdempotencyKeyHost = "host"
	// IdempotencyKeyArgument: the model too, as the idempotency_key
	// argument (runtime.IdempotencyKeyArg); the host's key still wins.
	IdempotencyKeyArgument = "argument"
)

// Autonomies lists the autonomy levels in increasing order.
var Autonomies = []Autonomy{AutonomyReadOnly, AutonomySupervised, AutonomyFull}

// Rank orders autonomy levels: read_only 0, supervised 1, full 2.
func (a Autonomy) Rank() int {
	for i, x := range Autonomies {
		if a == x {
			return i
		}
	}
	return -1
}

// Tool is one catalog entry. Each field mirrors the format's field of the
// same name (in snake_case); Pos records where the tool is declared and
// FieldPos where each of its fields is.
type Tool struct {
	Name string
	// OriginalName is the name on the wire (original_name), when it
	// differs from Name; "": Name.
	OriginalName   string
	Description    string
	Category       string
	Version        string
	Owner          string
	Risk           Risk
	HasSideEffects bool
	// SideEffect says what the side effect does to what exists:
	// SideEffectAdditive, SideEffectOverwrites or SideEffectDestructive;
	// "" when the catalog does not say (see Destructive).
	SideEffect          string
	Idempotent          bool
	IdempotencyRequired bool
	SupportsDryRun      bool
	Revertible          bool
	ReturnsUntrusted    bool
	CapabilityRequired  string
	Exposure            string // "core" or "hidden"
	Autonomy            Autonomy
	MaxRetries          int
	SLAms               int // 0: none
	MaxResultBytes      int // 0: the registry's cap
	Dependencies        []string
	DependencyPos       []Pos  // position of each dependency
	FallbackTool        string // "": none
	AdditionalArgs      string // "reject", "strip" or "allow"
	Args                *Node  // JSON Schema of the arguments
	Result              *Node  // JSON Schema of the result; nil: none
	Errors              []ErrorHint
	Examples            []Example
	// Queries are example requests a user would type that the tool
	// answers, for discovery; QueryPos is the position of each.
	Queries  []string
	QueryPos []Pos
	Suppress []Suppression
	// RenamedFrom are the tool's earlier names (renamed_from);
	// RenamedFromPos is the position of each.
	RenamedFrom    []string
	RenamedFromPos []Pos
	// IdempotencyKey says who passes the idempotency key,
	// IdempotencyKeyHost or IdempotencyKeyArgument, the catalog's default
	// applied.
	IdempotencyKey string

	// Pos is the position of the tool's name (its key, or its name field).
	Pos Pos
	// FieldPos maps a format field name ("risk", "sla_ms") to the position
	// of its value, for the fields the catalog sets. A field left to its
	// default has no entry; use [Tool.PosOf].
	FieldPos map[string]Pos
}

// PosOf returns the position of field, or of the tool when the field is not
// written in the catalog.
func (t *Tool) PosOf(field string) Pos {
	if p, ok := t.FieldPos[field]; ok {
		return p
	}
	return t.Pos
}

// Destructive reports whether the tool's side effect may destroy what
// exists (MCP's destructiveHint): side_effect overwrites or destructive;
// unset, a side effect that cannot be reverted, or that is high risk. A
// tool without side effects is not destructive.
func (t *Tool) Destructive() bool {
	if !t.HasSideEffects {
		return false
	}
	if t.SideEffect != "" {
		return t.SideEffect != SideEffectAdditive
	}
	return !t.Revertible || t.Risk == RiskHigh
}

// DependencyPosOf returns the position of the i-th dependency, or of the
// dependencies field.
func (t *Tool) DependencyPosOf(i int) Pos {
	if i < len(t.DependencyPos) && t.DependencyPos[i].IsValid() {
		return t.DependencyPos[i]
	}
	return t.PosOf("dependencies")
}

// QueryPosOf returns the position of the i-th query, or of the queries
// field.
func (t *Tool) QueryPosOf(i int) Pos {
	if i < len(t.QueryPos) && t.QueryPos[i].IsValid() {
		return t.QueryPos[i]
	}
	return t.PosOf("queries")
}

// Has reports whether the catalog writes field for this tool, rather than
// leaving it to its default.
func (t *Tool) Has(field string) bool {
	_, ok := t.FieldPos[field]
	return ok
}

// ErrorHint is the hint a tool gives the model for one error code.
type ErrorHint struct {
	Code         string
	Suggestion   string
	RetryAllowed *bool
	Pos          Pos
}

// Example is a valid call of a tool, run by the conformance tests.
type Example struct {
	Description string
	Args        *Node
	Result      *Node  // nil: not stated
	Error       string // expected error code; "": success
	Pos         Pos
}

// Suppression silences the findings of one lint rule, for a reason.
type Suppression struct {
	Rule   string
	Reason string
	Pos    Pos
}

// Tool returns the tool called name, or nil.
func (c *Catalog) Tool(name string) *Tool {
	i := sort.Search(len(c.Tools), func(i int) bool { return c.Tools[i].Name >= name })
	if i < len(c.Tools) && c.Tools[i].Name == name {
		return c.Tools[i]
	}
	return nil
}

// Service returns the service called name, or nil.
func (c *Catalog) Service(name string) *Service {
	i := sort.Search(len(c.Services), func(i int) bool { return c.Services[i].Name >= name })
	if i < len(c.Services) && c.Services[i].Name == name {
		return c.Services[i]
	}
	return nil
}
