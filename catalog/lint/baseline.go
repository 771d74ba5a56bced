package lint

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/toolcat/toolcat/catalog/internal/config"
)

// Baseline is a list of accepted findings, written once and committed, so
// that a team adopting lint on an existing catalog gates only the findings
// that are new. A finding matches an entry by rule, tool and message, not
// by position: moving, reordering or reformatting tools keeps it matched,
// and so does a changed number in the message (a description that is 31
// characters instead of 30 has the same finding). Entries count: two equal
// findings need an entry of count 2.
type Baseline struct {
	Findings []BaselineEntry
}

// BaselineEntry is one accepted finding, Count times over.
type BaselineEntry struct {
	Rule    string `yaml:"rule"`
	Tool    string `yaml:"tool,omitempty"`
	Message string `yaml:"message"`
	// Count is how many equal findings the entry accepts; 0 reads as 1.
	Count int `yaml:"count,omitempty"`
}

func (e BaselineEntry) count() int { return max(e.Count, 1) }

// maxBaselineSize bounds a baseline file: some hundred thousand findings.
const maxBaselineSize = 64 << 20

// baselineVersion is the version of the baseline file format.
const baselineVersion = 1

// NewBaseline returns the baseline that accepts exactly diags.
func NewBaseline(diags []Diagnostic) *Baseline {
	counts := map[baselineKey]int{}
	first := map[baselineKey]Diagnostic{}
	for _, d := range diags {
		k := keyOf(d.RuleID, d.Tool, d.Message)
		if counts[k] == 0 {
			first[k] = d
		}
		counts[k]++
	}
	b := &Baseline{}
	for k, n := range counts {
		d := first[k]
		e := BaselineEntry{Rule: d.RuleID, Tool: d.Tool, Message: d.Message}
		if n > 1 {
			e.Count = n
		}
		b.Findings = append(b.Findings, e)
	}
	b.sort()
	return b
}

// sort orders the entries by tool (catalog-wide ones first), rule and
// message, so that the file is the same for the same findings.
func (b *Baseline) sort() {
	slices.SortFunc(b.Findings, func(x, y BaselineEntry) int {
		return cmp.Or(cmp.Compare(x.Tool, y.Tool), cmp.Compare(x.Rule, y.Rule), cmp.Compare(x.Message, y.Message), cmp.Compare(x.Count, y.Count))
	})
}

// Apply splits diags into the findings the baseline does not accept
// (fresh) and those it does, in the order of diags. stale is the part of
// the baseline that matched no finding: findings fixed since it was
// written.
func (b *Baseline) Apply(diags []Diagnostic) (fresh, accepted []Diagnostic, stale *Baseline) {
	left := map[baselineKey]int{}
	for _, e := range b.Findings {
		left[keyOf(e.Rule, e.Tool, e.Message)] += e.count()
	}
	stale = &Baseline{}
	for _, d := range diags {
		k := keyOf(d.RuleID, d.Tool, d.Message)
		if left[k] > 0 {
			left[k]--
			accepted = append(accepted, d)
			continue
		}
		fresh = append(fresh, d)
	}
	for _, e := range b.Findings {
		k := keyOf(e.Rule, e.Tool, e.Message)
		n := min(left[k], e.count())
		if n == 0 {
			continue
		}
		left[k] -= n
		e.Count = n
		if n == 1 {
			e.Count = 0
		}
		stale.Findings = append(stale.Findings, e)
	}
	return fresh, accepted, stale
}

// Len is the number of findings the baseline accepts.
func (b *Baseline) Len() int {
	n := 0
	for _, e := range b.Findings {
		n += e.count()
	}
	return n
}

// Marshal renders the baseline as the YAML file toolcat reads back.
func (b *Baseline) Marshal() ([]byte, error) {
	c := &Baseline{Findings: slices.Clone(b.Findings)}
	c.sort()
	var buf bytes.Buffer
	buf.WriteString("# Lint findings accepted when this file was written by toolcat lint --write-baseline.\n")
	buf.WriteString("# toolcat lint --baseline FILE reports only the findings not listed here.\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	file := baselineFile{Version: baselineVersion, Findings: c.Findings}
	if file.Findings == nil {
		file.Findings = []BaselineEntry{}
	}
	if err := enc.Encode(file); err != nil {
		return nil, fmt.Errorf("writing the baseline: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("writing the baseline: %w", err)
	}
	return buf.Bytes(), nil
}

type baselineFile struct {
	Version  int             `yaml:"version"`
	Findings []BaselineEntry `yaml:"findings"`
}

// LoadBaseline reads a baseline file.
func LoadBaseline(path string) (*Baseline, error) {
	data, err := ReadLimited(path, maxBaselineSize, "baseline")
	if err != nil {
		return nil, err
	}
	return ParseBaseline(path, data)
}

// ParseBaseline is [LoadBaseline] on data already read. Its errors read
// path:line:col: message.
func ParseBaseline(path string, data []byte) (*Baseline, error) {
	var file baselineFile
	root, err := config.Decode(data, &file)
	switch {
	case err != nil:
		return nil, yamlError(path, err)
	case root == nil:
		return nil, fmt.Errorf("%s: empty baseline; write one with toolcat lint --write-baseline", path)
	}
	if file.Version != baselineVersion {
		return nil, fmt.Errorf("%s: baseline version %d is not %d; write it again with toolcat lint --write-baseline", config.At(path, config.Value(root, "version")), file.Version, baselineVersion)
	}
	list := config.Value(root, "findings")
	for i, e := range file.Findings {
		switch {
		case e.Rule == "":
			return nil, fmt.Errorf("%s: baseline entry %d has no rule", config.At(path, config.Item(list, i)), i+1)
		case e.Message == "":
			return nil, fmt.Errorf("%s: baseline entry %d has no message", config.At(path, config.Item(list, i)), i+1)
		case e.Count < 0:
			return nil, fmt.Errorf("%s: baseline entry %d has count %d; counts are 1 or more", config.At(path, config.Value(config.Item(list, i), "count")), i+1, e.Count)
		}
	}
	return &Baseline{Findings: file.Findings}, nil
}

// baselineKey is what makes a finding the same as an accepted one.
type baselineKey struct{ rule, tool, message string }

// numbers are the measures in messages (lengths, counts, tokens, a
// similarity), which change with edits that leave the finding as it was.
// A digit inside a word (sha256, v2) is part of a name and stays.
var numbers = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?\b`)

func keyOf(rule, tool, message string) baselineKey {
	return baselineKey{rule, tool, numbers.ReplaceAllString(message, "#")}
}
