package breaking

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/lint"
)

func loadYAML(t *testing.T, name, src string) *Side {
	t.Helper()
	cat, err := catalog.LoadFiles(catalog.File{Name: name, Data: []byte(src)})
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	return withAPI(t, cat)
}

const runOld = `tools:
  list_orders:
    description: Lists orders.
    args:
      type: object
      properties:
        legacy: {type: string}
  get_invoice:
    description: Gets an invoice.
  search_orders:
    description: Searches orders.
`

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		desc, new, config string
		want              []string
	}{{
		desc: "every category",
		new: `tools:
  list_orders:
    description: Lists the orders.
    risk: high
    args: {type: object}
  find_orders:
    renamed_from: [search_orders]
    description: Searches orders.
    returns_untrusted: true
`,
		want: []string{
			"new.yaml:2:3: error GO_API_CHANGED: list_orders: the generated Go API changed: ListOrdersArgs.Legacy removed; code compiled against the old package breaks",
			"new.yaml:3:5: note DESCRIPTION_CHANGED: list_orders: description changed (about 5 tokens, was 4: +1); re-run the evaluations of this tool",
			"new.yaml:4:5: error RISK_RAISED: list_orders: risk rose from low to high; review the approval policy of the hosts that offer it",
			"new.yaml:9:5: error UNTRUSTED_ADDED: find_orders: returns_untrusted changed from false to true; its output now comes wrapped as untrusted data, and may carry injected instructions",
			"old.yaml:7:9: error ARG_REMOVED: list_orders: argument legacy was removed; callers that pass it break; keep it (deprecated in its description) until no caller sends it",
			"old.yaml:8:3: error TOOL_REMOVED: tool get_invoice was removed; calls to it now fail with not_found; keep it, or name it in renamed_from of the tool that replaces it",
		},
	}, {
		desc: "suppressions of the tool and of the catalog",
		new: `suppress:
  - {rule: TOOL_REMOVED, reason: "get_invoice moved to the billing agent"}
tools:
  list_orders:
    description: Lists orders.
    args: {type: object}
    suppress:
      - {rule: ARG_REMOVED, reason: "legacy was never read"}
      - {rule: GO_API_CHANGED, reason: "no Go code sets Legacy"}
  search_orders:
    description: Searches orders.
`,
		want: []string{},
	}, {
		desc:   "categories chosen in toolcat.yaml",
		config: "breaking:\n  use: [WIRE]\n  except: [ARG_REMOVED]\n  rules: {RISK_RAISED: warning}\n",
		new: `tools:
  list_orders:
    description: Lists the orders.
    risk: high
    args: {type: object}
  search_orders:
    description: Searches orders.
`,
		want: []string{
			"new.yaml:4:5: warning RISK_RAISED: list_orders: risk rose from low to high; review the approval policy of the hosts that offer it",
			"old.yaml:8:3: error TOOL_REMOVED: tool get_invoice was removed; calls to it now fail with not_found; keep it, or name it in renamed_from of the tool that replaces it",
		},
	}} {
		t.Run(tc.desc, func(t *testing.T) {
			cfg := DefaultConfig()
			if tc.config != "" {
				var err error
				if cfg, err = ParseConfig("toolcat.yaml", []byte(tc.config)); err != nil {
					t.Fatal(err)
				}
			}
			got := lines(Run(loadYAML(t, "old.yaml", runOld), loadYAML(t, "new.yaml", tc.new), cfg))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct{ desc, src, want string }{
		{"unknown category", "breaking:\n  use: [WIRE, STYLE]\n", "toolcat.yaml:2:15: breaking.use: unknown name \"STYLE\""},
		{"unknown rule", "breaking:\n  rules: {NO_SUCH: error}\n", "unknown rule NO_SUCH"},
		{"bad severity", "breaking:\n  rules: {TOOL_REMOVED: fatal}\n", "unknown severity \"fatal\""},
		{"unknown key", "breaking:\n  ignore: [x]\n", "field ignore not found"},
		{"empty use", "breaking:\n  use: []\n", "breaking.use is empty"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := ParseConfig("toolcat.yaml", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// The lint section, and any other, is left to its command.
	cfg, err := ParseConfig("toolcat.yaml", []byte("lint:\n  use: [BASIC]\nbreaking:\n  use: [GO]\n"))
	if err != nil || cfg.Severity("TOOL_REMOVED") != lint.Off || cfg.Severity("GO_API_CHANGED") != lint.Error {
		t.Errorf("config %+v, %v", cfg, err)
	}
}

// TestLockRoundTrip writes the lock of a rich catalog, reads it back, and
// checks that nothing breaks between them, that the lock is stable, and
// that findings against it point at its lines.
func TestLockRoundTrip(t *testing.T) {
	data, err := os.ReadFile("../lint/testdata/good_catalog.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cur := loadYAML(t, "good_catalog.yaml", string(data))
	lock, err := WriteLock(cur.Catalog, cur.GoAPI)
	if err != nil {
		t.Fatal(err)
	}
	if !IsLock(lock) {
		t.Fatal("IsLock: false on a lock")
	}
	old, err := ReadLock(LockFile, lock)
	if err != nil {
		t.Fatal(err)
	}
	if d := lines(Run(old, cur, nil)); len(d) > 0 {
		t.Errorf("the catalog breaks its own lock:\n%s", strings.Join(d, "\n"))
	}
	again, err := WriteLock(old.Catalog, old.GoAPI)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(lock), string(again)); diff != "" {
		t.Errorf("the lock of the lock differs (-first +second):\n%s", diff)
	}
	// Remove a tool: the finding points at its line in the lock.
	gone := cur.Catalog.Tools[0].Name
	trimmed := *cur.Catalog
	trimmed.Tools = cur.Catalog.Tools[1:]
	d := Run(old, &Side{Catalog: &trimmed, GoAPI: cur.GoAPI}, nil)
	if len(d) != 1 || d[0].RuleID != "TOOL_REMOVED" || d[0].Pos.File != LockFile {
		t.Fatalf("findings %v, want one TOOL_REMOVED in the lock file", lines(d))
	}
	line := strings.Split(string(lock), "\n")[d[0].Pos.Line-1]
	if !strings.Contains(line, `"`+gone+`": {`) {
		t.Errorf("TOOL_REMOVED points at line %d %q, not at the tool %s", d[0].Pos.Line, line, gone)
	}
}

func TestReadLockErrors(t *testing.T) {
	good, err := WriteLock(loadYAML(t, "a.yaml", runOld).Catalog, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ desc, data, want string }{
		{"not JSON", "tools: {}", "not a lock file"},
		{"another version", `{"toolcat_lock": 9, "tools": {}}`, "lock file version 9"},
		{"truncated", string(good[:len(good)/2]), "not a lock file"},
		{"bad go_api", `{"toolcat_lock": 1, "tools": {}, "go_api": [1]}`, "go_api"},
		{"not a catalog", `{"toolcat_lock": 1, "tools": {"x": {"risk": "extreme"}}}`, "does not load as a catalog"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := ReadLock("toolcat.lock.json", []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func FuzzReadLock(f *testing.F) {
	f.Add([]byte(`{"toolcat_lock": 1, "package": "tools", "tools": {"a": {"description": "x"}}, "go_api": {"a": {"A": "interface"}}}`))
	f.Add([]byte(`{"toolcat_lock": 1, "go_api": {}, "tools": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if s, err := ReadLock("toolcat.lock.json", data); err == nil {
			if _, err := WriteLock(s.Catalog, s.GoAPI); err != nil {
				t.Fatal(err)
			}
			Run(s, s, nil)
		}
		_ = bytes.TrimSpace(data)
	})
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("breaking:\n  use: [WIRE, GO]\n  except: [ARG_REMOVED]\n  rules: {RISK_RAISED: warning}\n"))
	f.Add([]byte("lint:\n  use: [BASIC]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig("toolcat.yaml", data)
		if err != nil {
			return
		}
		for _, r := range Rules {
			cfg.Severity(r.ID)
		}
	})
}
