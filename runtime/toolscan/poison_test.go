package toolscan

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// carrier is a benign tool a poisoned text is put into.
type carrier struct {
	name, description, arg string
}

// carriers are the tools of one small server, whose names are the
// siblings of each poisoned tool. The tools the attacks aim at (send_email,
// read_file, transfer_funds …) are another server's, as in the published
// shadowing attacks.
var carriers = []carrier{
	{"add_numbers", "Adds two numbers and returns the sum. Use when: the user asks for arithmetic.", "a"},
	{"get_weather", "Returns the current weather for a city. Do not use: for forecasts beyond today.", "city"},
	{"compose_message", "Drafts a message for the user to review. Use when: the user asks to write to someone.", "to"},
	{"read_note", "Reads a note of the user's notebook and returns its lines.", "path"},
	{"lookup_definition", "Looks a word up in the dictionary and returns its meanings with examples.", "query"},
	{"create_note", "Creates a note in the user's notebook. Do not use: to edit an existing note; use update_note.", "text"},
	{"list_files", "Lists the files of a folder of the workspace, sorted by name.", "folder"},
	{"convert_currency", "Converts an amount between two currencies at today's rate.", "amount"},
	{"get_calendar_events", "Lists the events of the user's calendar between two dates.", "from"},
	{"translate_text", "Translates text into another language.", "target_language"},
}

func siblingNames() []string {
	var out []string
	for _, c := range carriers {
		out = append(out, c.name)
	}
	return out
}

// otherServers are the tools of the other servers of the host the poisoned
// server is mounted beside (Context.Others): a mail server, a filesystem,
// a web search, a bank, the reference memory and git servers, Slack, GitHub.
var otherServers = []string{
	"send_email", "read_email", "read_file", "write_file", "search_web", "transfer_funds", "create_payment",
	"memory_create_entities", "git_commit", "git_push", "slack_post_message", "create_issue", "send_message",
	"send_invoice", "gmail_send", "postgres_query", "filesystem_read_file", "security_scan", "browser_navigate",
}

// poisoned is one poisoned definition of the set.
type poisoned struct {
	line      int
	placement string
	text      string
	tool      Tool
	siblings  []string
}

// loadPoisoned builds the poisoned set: each line of testdata/poisoned.txt
// put into a carrier, the carriers taken in turn.
func loadPoisoned(t *testing.T) []poisoned { return loadPoisonedFile(t, "testdata/poisoned.txt") }

func loadPoisonedFile(t *testing.T, file string) []poisoned {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []poisoned
	sc := bufio.NewScanner(f)
	n := 0
	for line := 1; sc.Scan(); line++ {
		l := sc.Text()
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		placement, text, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("%s:%d: no tab", file, line)
		}
		c := carriers[n%len(carriers)]
		n++
		p := poisoned{line: line, placement: placement, text: text, siblings: siblingNames()}
		desc := c.description
		props := map[string]any{c.arg: map[string]any{"type": "string", "description": "The " + strings.ReplaceAll(c.arg, "_", " ") + "."}}
		switch placement {
		case "desc":
			// At the start, at the end, or after the first sentence.
			switch n % 3 {
			case 0:
				desc = text + " " + desc
			case 1:
				desc = desc + "\n\n" + text
			default:
				first, rest, _ := strings.Cut(desc, ". ")
				desc = first + ". " + text + " " + rest
			}
		case "desc+base64":
			desc += " Reference: " + base64.StdEncoding.EncodeToString([]byte(text))
		case "desc+hex":
			desc += " Checksum " + hex.EncodeToString([]byte(text))
		case "desc+tags":
			desc += tagSpell(text)
		case "desc+zw":
			desc += " " + strings.Join(strings.Split(text, ""), "\u200b")
		case "desc+homoglyph":
			desc += " " + strings.NewReplacer("a", "а", "e", "е", "o", "о", "p", "р", "c", "с", "i", "і").Replace(text)
		case "arg":
			props["options"] = map[string]any{"type": "string", "description": text}
		case "enum":
			props["mode"] = map[string]any{"type": "string", "enum": []string{"standard", text}}
		case "default":
			props[c.arg] = map[string]any{"type": "string", "description": "The value to use.", "default": text}
		case "title":
			p.tool.Title = text
		case "name":
			name, imitated, ok := strings.Cut(text, "=")
			if !ok {
				t.Fatalf("%s:%d: name without =", file, line)
			}
			p.tool.Name = name
			p.siblings = append(p.siblings, imitated)
		default:
			t.Fatalf("%s:%d: unknown placement %q", file, line, placement)
		}
		if p.tool.Name == "" {
			p.tool.Name = c.name
		}
		p.tool.Description = desc
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
		p.tool.InputSchema = schema
		out = append(out, p)
	}
	return out
}

// loadPoisonedTexts returns the poisoned set's definitions' descriptions
// and texts as the scan reads them.
func loadPoisonedTexts(t *testing.T) []string {
	var out []string
	for _, p := range loadPoisoned(t) {
		out = append(out, p.tool.Description, p.text)
	}
	return out
}

// tagSpell writes s in Unicode tag characters, which render as nothing.
func tagSpell(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0x20 && r < 0x7F {
			b.WriteRune(0xE0000 + r)
		}
	}
	return b.String()
}

// minDetectionRate is the share of poisoned definitions the check must
// flag.
const minDetectionRate = 0.95

// TestPoisonedSet checks the detection rate on the poisoned set and that
// the carriers alone are clean.
func TestPoisonedSet(t *testing.T) {
	for _, c := range carriers {
		tool := Tool{Name: c.name, Description: c.description}
		if fs := ScanTool(tool, &Context{Self: c.name, Siblings: siblingNames()}); len(fs) > 0 {
			t.Errorf("carrier %s is flagged: %v", c.name, fs)
		}
	}
	set := loadPoisoned(t)
	if len(set) < 200 {
		t.Fatalf("the poisoned set has %d definitions; want at least 200", len(set))
	}
	missed := 0
	byPlacement := map[string][2]int{}
	for _, p := range set {
		fs := ScanTool(p.tool, &Context{Self: p.tool.Name, Siblings: p.siblings, Others: otherServers})
		c := byPlacement[p.placement]
		c[1]++
		if len(fs) == 0 {
			missed++
			t.Logf("missed: testdata/poisoned.txt:%d: %s %q", p.line, p.placement, p.text)
		} else {
			c[0]++
		}
		byPlacement[p.placement] = c
	}
	var parts []string
	for _, k := range []string{"desc", "arg", "enum", "default", "title", "name", "desc+base64", "desc+hex", "desc+tags", "desc+zw", "desc+homoglyph"} {
		parts = append(parts, fmt.Sprintf("%s %d/%d", k, byPlacement[k][0], byPlacement[k][1]))
	}
	rate := float64(len(set)-missed) / float64(len(set))
	t.Logf("poisoned set: %d of %d detected (%.1f%%): %s", len(set)-missed, len(set), 100*rate, strings.Join(parts, ", "))
	if rate < minDetectionRate {
		t.Errorf("detected %d of %d poisoned definitions (%.1f%%), below %.0f%%", len(set)-missed, len(set), 100*rate, 100*minDetectionRate)
	}
}

// TestPoisonedHoldout reports the detection rate on texts written after
// the check was tuned on every round of the poisoned set, and never tuned
// on: the figure for phrasings the patterns were not written from, far
// below the tuned set's (docs/security.md, "Measured"). Each earlier
// held-out round was measured once, then added to the poisoned set. The
// floor guards against a regression; it is no target.
func TestPoisonedHoldout(t *testing.T) {
	set := loadPoisonedFile(t, "testdata/poisoned_holdout.txt")
	missed := 0
	for _, p := range set {
		if len(ScanTool(p.tool, &Context{Self: p.tool.Name, Siblings: p.siblings, Others: otherServers})) == 0 {
			missed++
			t.Logf("missed: testdata/poisoned_holdout.txt:%d: %s %q", p.line, p.placement, p.text)
		}
	}
	rate := float64(len(set)-missed) / float64(len(set))
	t.Logf("held-out set: %d of %d detected (%.1f%%)", len(set)-missed, len(set), 100*rate)
	if rate < 0.25 {
		t.Errorf("held-out set: %d of %d detected (%.1f%%), below 25%%", len(set)-missed, len(set), 100*rate)
	}
}
