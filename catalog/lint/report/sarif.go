package report

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/toolcat/toolcat/catalog/lint"
)

// SARIF 2.1.0, the subset GitHub code scanning reads.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string          `json:"id"`
	Name                 string          `json:"name"`
	ShortDescription     sarifText       `json:"shortDescription"`
	FullDescription      sarifText       `json:"fullDescription"`
	DefaultConfiguration sarifConfig     `json:"defaultConfiguration"`
	Properties           sarifProperties `json:"properties"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifProperties struct {
	Tags []string `json:"tags"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
	// BaselineState is "new" for a finding a baseline did not accept.
	BaselineState string `json:"baselineState,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
}

func sarifLevel(s lint.Severity) string {
	switch s {
	case lint.Error:
		return "error"
	case lint.Note:
		return "note"
	case lint.Off:
		return "none"
	}
	return "warning"
}

func writeSARIF(w io.Writer, in Input) error {
	driver := sarifDriver{
		Name:           "toolcat",
		InformationURI: "https://github.com/toolcat/toolcat",
		Version:        in.Version,
		Rules:          []sarifRule{},
	}
	index := map[string]int{}
	for _, r := range in.Rules {
		index[r.ID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   r.ID,
			Name:                 ruleName(r.ID),
			ShortDescription:     sarifText{Text: firstSentence(r.Purpose)},
			FullDescription:      sarifText{Text: r.Purpose},
			DefaultConfiguration: sarifConfig{Level: sarifLevel(r.Severity)},
			Properties:           sarifProperties{Tags: []string{r.Category}},
		})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}}
	for _, d := range in.Diagnostics {
		i, ok := index[d.RuleID]
		if !ok {
			i = -1
		}
		line, col := max(d.Pos.Line, 1), max(d.Pos.Col, 1)
		state := ""
		if in.Baseline != nil {
			state = "new"
		}
		run.Results = append(run.Results, sarifResult{
			BaselineState: state,
			RuleID:        d.RuleID,
			RuleIndex:     i,
			Level:         sarifLevel(d.Severity),
			Message:       sarifText{Text: d.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: artifact(d.Pos.File, in.BaseDir),
				Region:           sarifRegion{StartLine: line, StartColumn: col},
			}}},
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	})
}

// artifact names a file relative to the repository root, as code scanning
// wants, with forward slashes.
func artifact(file, base string) sarifArtifact {
	if base != "" {
		if abs, err := filepath.Abs(file); err == nil {
			if rel, err := filepath.Rel(base, abs); err == nil && !strings.HasPrefix(rel, "..") {
				return sarifArtifact{URI: filepath.ToSlash(rel), URIBaseID: "%SRCROOT%"}
			}
		}
	}
	if filepath.IsAbs(file) {
		return sarifArtifact{URI: "file://" + filepath.ToSlash(file)}
	}
	return sarifArtifact{URI: filepath.ToSlash(filepath.Clean(file)), URIBaseID: "%SRCROOT%"}
}

// ruleName turns TOOL_NAME_VERB_NOUN into ToolNameVerbNoun, SARIF's
// reportingDescriptor.name convention.
func ruleName(id string) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.ToLower(id), "_") {
		if w == "" {
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
