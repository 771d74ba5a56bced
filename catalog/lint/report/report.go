// Package report renders lint findings for people and for CI: text,
// JSON, SARIF 2.1.0 and GitHub Actions annotations. It knows nothing of
// the rules beyond the IDs and descriptions it is given.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/toolcat/toolcat/catalog/lint"
)

// Formats lists the output formats, for flags and messages.
var Formats = []string{"text", "json", "sarif", "github"}

// RuleInfo describes a rule to formats that list rules (SARIF).
type RuleInfo struct {
	ID       string
	Category string
	Purpose  string
	Severity lint.Severity
}

// Input is what a report renders.
type Input struct {
	Diagnostics []lint.Diagnostic
	Rules       []RuleInfo
	// Version of toolcat, for SARIF's tool.driver.version.
	Version string
	// BaseDir makes file paths relative in SARIF; "" keeps them as given.
	BaseDir string
	// Baseline, when a baseline was applied, counts what it did; the
	// Diagnostics are then the findings it did not accept.
	Baseline *BaselineCounts
}

// BaselineCounts says what a baseline did to a run.
type BaselineCounts struct {
	// Accepted is how many findings the baseline accepted (not shown).
	Accepted int `json:"accepted"`
	// Stale is how many of its entries matched no finding: fixed since.
	Stale int `json:"stale"`
}

// Write renders in to w in the named format.
func Write(w io.Writer, format string, in Input) error {
	switch format {
	case "text":
		return writeText(w, in)
	case "json":
		return writeJSON(w, in)
	case "sarif":
		return writeSARIF(w, in)
	case "github":
		return writeGitHub(w, in)
	}
	return fmt.Errorf("unknown format %q; use one of %s", format, strings.Join(Formats, ", "))
}

func writeText(w io.Writer, in Input) error {
	for _, d := range in.Diagnostics {
		if _, err := fmt.Fprintln(w, d.String()); err != nil {
			return err
		}
	}
	return nil
}

// Counts tallies findings by severity.
type Counts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notes    int `json:"notes"`
}

// Count tallies d.
func Count(d []lint.Diagnostic) Counts {
	var c Counts
	for _, x := range d {
		switch x.Severity {
		case lint.Error:
			c.Errors++
		case lint.Warning:
			c.Warnings++
		case lint.Note:
			c.Notes++
		}
	}
	return c
}

// String reads "2 errors, 1 warning, 0 notes".
func (c Counts) String() string {
	plural := func(n int, word string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, word)
		}
		return fmt.Sprintf("%d %ss", n, word)
	}
	return plural(c.Errors, "error") + ", " + plural(c.Warnings, "warning") + ", " + plural(c.Notes, "note")
}

type jsonDiag struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Tool     string `json:"tool,omitempty"`
	Message  string `json:"message"`
}

func writeJSON(w io.Writer, in Input) error {
	out := struct {
		Diagnostics []jsonDiag      `json:"diagnostics"`
		Summary     Counts          `json:"summary"`
		Baseline    *BaselineCounts `json:"baseline,omitempty"`
	}{Diagnostics: []jsonDiag{}, Summary: Count(in.Diagnostics), Baseline: in.Baseline}
	for _, d := range in.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, jsonDiag{
			File: d.Pos.File, Line: d.Pos.Line, Col: d.Pos.Col,
			Severity: d.Severity.String(), Rule: d.RuleID, Tool: d.Tool, Message: d.Message,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// GitHub workflow commands: https://docs.github.com/actions (workflow
// commands). Data escapes %, CR and LF; properties also : and ,.
var (
	ghData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func writeGitHub(w io.Writer, in Input) error {
	for _, d := range in.Diagnostics {
		cmd := "warning"
		switch d.Severity {
		case lint.Error:
			cmd = "error"
		case lint.Note:
			cmd = "notice"
		}
		if _, err := fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", cmd,
			ghProperty.Replace(filepath.ToSlash(d.Pos.File)), d.Pos.Line, d.Pos.Col,
			ghProperty.Replace(d.RuleID), ghData.Replace(d.Message)); err != nil {
			return err
		}
	}
	return nil
}

// GitHubError writes one load error as a GitHub error annotation.
func GitHubError(w io.Writer, file string, line, col int, msg string) {
	if file == "" {
		fmt.Fprintf(w, "::error title=toolcat::%s\n", ghData.Replace(msg))
		return
	}
	fmt.Fprintf(w, "::error file=%s,line=%d,col=%d,title=toolcat::%s\n",
		ghProperty.Replace(filepath.ToSlash(file)), line, col, ghData.Replace(msg))
}
