package lint

import (
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
)

// TestRuleSets checks which rules run, at which severity, for each way
// toolcat.yaml chooses them.
func TestRuleSets(t *testing.T) {
	for _, tc := range []struct {
		desc string
		src  string
		want map[string]Severity
	}{
		{
			desc: "no configuration runs STANDARD",
			src:  "",
			want: map[string]Severity{ToolNameFormat.ID: Error, DescriptionLength.ID: Warning, ToolNameVerbNoun.ID: Warning, SchemaStrictMode.ID: Note},
		},
		{
			desc: "MINIMAL runs only its own rules",
			src:  "lint:\n  use: [MINIMAL]\n",
			want: map[string]Severity{ToolNameFormat.ID: Error, SuppressionUnused.ID: Warning, DescriptionLength.ID: Off, ToolNameVerbNoun.ID: Off},
		},
		{
			desc: "BASIC runs MINIMAL too, and not STANDARD",
			src:  "lint:\n  use: [BASIC]\n",
			want: map[string]Severity{ToolNameFormat.ID: Error, ToolNameGeneric.ID: Warning, DescriptionTokenBudget.ID: Warning, DescriptionLength.ID: Off, DescriptionWhenToUse.ID: Off, ToolNameSnakeCase.ID: Off},
		},
		{
			desc: "except takes out a category",
			src:  "lint:\n  except: [descriptions]\n",
			want: map[string]Severity{DescriptionLength.ID: Off, DescriptionWhenToUse.ID: Off, ToolNameVerbNoun.ID: Warning},
		},
		{
			desc: "except takes out a rule, use adds one",
			src:  "lint:\n  use: [MINIMAL, TOOL_NAME_GENERIC]\n  except: [SCHEMA_PROVIDER_COMPAT]\n",
			want: map[string]Severity{ToolNameGeneric.ID: Warning, SchemaProviderCompat.ID: Off, ToolNameFormat.ID: Error, ToolNameSnakeCase.ID: Off},
		},
		{
			desc: "except takes out a whole set",
			src:  "lint:\n  use: [STANDARD]\n  except: [MINIMAL]\n",
			want: map[string]Severity{ToolNameFormat.ID: Off, ToolNameSnakeCase.ID: Warning, ToolNameVerbNoun.ID: Warning},
		},
		{
			desc: "rules decides over the sets",
			src:  "lint:\n  use: [MINIMAL]\n  except: [descriptions]\n  rules:\n    DESCRIPTION_WHEN_TO_USE: note\n    TOOL_NAME_FORMAT: off\n",
			want: map[string]Severity{DescriptionWhenToUse.ID: Note, DescriptionLimits.ID: Off, ToolNameFormat.ID: Off, ToolNameUnique.ID: Error},
		},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			cfg, err := ParseConfig("toolcat.yaml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			for id, want := range tc.want {
				if got := cfg.Severity(id); got != want {
					t.Errorf("%s runs at %s, want %s", id, got, want)
				}
			}
		})
	}
}

// TestSetsNest checks that each set runs every rule of the set it
// extends, with the severity that set gives.
func TestSetsNest(t *testing.T) {
	for _, r := range Rules {
		own := SetOf(r.ID)
		for i, s := range Sets {
			want := i >= indexOfSet(own)
			if s.Has(r.ID) != want {
				t.Errorf("%s.Has(%s) = %v, want %v", s.Name, r.ID, !want, want)
			}
			cfg := DefaultConfig()
			cfg.Use = []string{s.Name}
			if got := cfg.Severity(r.ID); want && got != DefaultSeverity(r.ID) || !want && got != Off {
				t.Errorf("use [%s]: %s runs at %s", s.Name, r.ID, got)
			}
		}
	}
}

func indexOfSet(s *Set) int {
	for i, x := range Sets {
		if x == s {
			return i
		}
	}
	return len(Sets)
}

// TestRunUsesSet checks that Run reports only the findings of the rules
// the chosen set runs.
func TestRunUsesSet(t *testing.T) {
	const src = `tools:
  get_data:
    description: Lists orders.
    has_side_effects: true
    max_retries: 3
`
	cat, err := catalog.LoadFiles(catalog.File{Name: "c.yaml", Data: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	rules := func(cfgSrc string) map[string]bool {
		cfg, err := ParseConfig("toolcat.yaml", []byte(cfgSrc))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, d := range Run(cat, cfg) {
			got[d.RuleID] = true
		}
		return got
	}
	minimal := rules("lint:\n  use: [MINIMAL]\n")
	if !minimal[SideEffectRetryIdempotent.ID] || len(minimal) != 1 {
		t.Errorf("MINIMAL reports %v, want only %s", minimal, SideEffectRetryIdempotent.ID)
	}
	basic := rules("lint:\n  use: [BASIC]\n")
	if !basic[ToolNameGeneric.ID] || !basic[SideEffectRetryIdempotent.ID] || len(basic) != 2 {
		t.Errorf("BASIC reports %v", basic)
	}
	standard := rules("")
	if !standard[DescriptionWhenToUse.ID] || !standard[DescriptionLength.ID] || !standard[ToolNameGeneric.ID] {
		t.Errorf("STANDARD reports %v", standard)
	}
}

// TestConfigErrorsArePlaced checks that a bad configuration is reported
// at file:line:col of the bad entry.
func TestConfigErrorsArePlaced(t *testing.T) {
	for _, tc := range []struct {
		desc, src, want string
	}{
		{desc: "unknown set", src: "lint:\n  use: [MINIMAL, STRICT]\n", want: `toolcat.yaml:2:18: lint.use: unknown name "STRICT"; name a set (MINIMAL, BASIC, STANDARD), a category (names, `},
		{desc: "unknown except", src: "lint:\n  except:\n    - DESCRIPTIONS\n", want: `toolcat.yaml:3:7: lint.except: unknown name "DESCRIPTIONS"`},
		{desc: "empty use", src: "lint:\n  use: []\n", want: "toolcat.yaml:2:8: lint.use is empty"},
		{desc: "unknown rule", src: "lint:\n  rules:\n    VERSION_SEMVER: note\n    NO_SUCH_RULE: off\n", want: "toolcat.yaml:4:5: lint.rules: unknown rule NO_SUCH_RULE"},
		{desc: "unknown key", src: "lint:\n  usе: [BASIC]\n", want: "toolcat.yaml:2: field usе not found"},
		{desc: "wrong type", src: "lint:\n  use: BASIC\n", want: "toolcat.yaml:2: cannot unmarshal"},
		{desc: "threshold", src: "lint:\n  similarity_threshold: 2\n", want: "toolcat.yaml:2:25: lint.similarity_threshold must be"},
		{desc: "not YAML", src: "lint: [\n", want: "toolcat.yaml:"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := ParseConfig("toolcat.yaml", []byte(tc.src))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want one starting %q", err, tc.want)
			}
		})
	}
}
