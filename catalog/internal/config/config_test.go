package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// section is the configuration of a command "demo", as a command's
// package declares it.
type section struct {
	Use    []string       `yaml:"use"`
	Except []string       `yaml:"except"`
	Rules  map[string]int `yaml:"rules"`
}

func decodeDemo(data string) (*section, *yaml.Node, error) {
	s := &section{Use: []string{"a"}} // a default
	var file struct {
		Demo *section             `yaml:"demo"`
		Rest map[string]yaml.Node `yaml:",inline"`
	}
	file.Demo = s
	root, err := Decode([]byte(data), &file)
	return s, root, err
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		desc, src string
		wantUse   []string
		wantRoot  bool
		wantErr   string
	}{
		{desc: "empty file", src: "", wantUse: []string{"a"}},
		{desc: "only a comment", src: "# nothing\n", wantUse: []string{"a"}},
		{desc: "section", src: "demo:\n  use: [b, A1]\n", wantUse: []string{"b", "A1"}, wantRoot: true},
		{desc: "other sections are left alone", src: "gen: {out: x}\ndemo:\n  use: [b]\n", wantUse: []string{"b"}, wantRoot: true},
		{desc: "no section", src: "gen: {out: x}\n", wantUse: []string{"a"}, wantRoot: true},
		{desc: "unknown key", src: "demo:\n  usе: [a]\n", wantErr: "yaml: unmarshal errors:\n  line 2: field usе not found in type config.section"},
		{desc: "not YAML", src: "demo: [\n", wantErr: "yaml: line 1: did not find expected node content"},
		{desc: "only the first document", src: "demo: {use: [b]}\n---\ndemo: {use: [A1]}\n", wantUse: []string{"b"}, wantRoot: true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, root, err := decodeDemo(tc.src)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (root != nil) != tc.wantRoot {
				t.Errorf("root %v, want one: %v", root, tc.wantRoot)
			}
			if !slices.Equal(s.Use, tc.wantUse) {
				t.Errorf("use %q, want %q", s.Use, tc.wantUse)
			}
		})
	}
}

func TestNodes(t *testing.T) {
	_, root, err := decodeDemo("demo:\n  use: [a, b]\n  except:\n    - c\n  rules: {X: 1}\n")
	if err != nil {
		t.Fatal(err)
	}
	demo := Value(root, "demo")
	for _, tc := range []struct {
		desc string
		n    *yaml.Node
		want string
	}{
		{"a section", demo, "f:2:3"},
		{"a value", Value(demo, "use"), "f:2:8"},
		{"a key", Key(demo, "use"), "f:2:3"},
		{"an item of a flow sequence", Item(Value(demo, "use"), 1), "f:2:12"},
		{"an item of a block sequence", Item(Value(demo, "except"), 0), "f:4:7"},
		{"past the end: the sequence", Item(Value(demo, "use"), 2), "f:2:8"},
		{"an item of no sequence: the node", Item(Value(demo, "rules"), 0), "f:5:10"},
		{"a key of a flow mapping", Key(Value(demo, "rules"), "X"), "f:5:11"},
		{"a missing key", Value(demo, "nope"), "f"},
		{"in a scalar", Value(Value(Value(demo, "rules"), "X"), "Y"), "f"},
		{"in nothing", Key(nil, "demo"), "f"},
	} {
		if got := At("f", tc.n); got != tc.want {
			t.Errorf("%s: at %s, want %s", tc.desc, got, tc.want)
		}
	}
}

func TestReadLimited(t *testing.T) {
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small.yaml"), filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(small, []byte("demo: {}\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte(strings.Repeat("#", MaxSize+1)), 0o666); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(small); err != nil || string(data) != "demo: {}\n" {
		t.Errorf("Read: %q, %v", data, err)
	}
	if _, err := Read(big); err == nil || err.Error() != big+": file is above the 1 MiB limit of a configuration file" {
		t.Errorf("Read of a big file: %v", err)
	}
	if _, err := ReadLimited(small, 4, "tiny"); err == nil || !strings.HasSuffix(err.Error(), "limit of a tiny file") {
		t.Errorf("ReadLimited: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "none.yaml")); !os.IsNotExist(err) {
		t.Errorf("Read of no file: %v", err)
	}
}

// rule is a rule of the command "demo".
type rule struct{ id, group string }

var demoRules = []*rule{{"A1", "a"}, {"A2", "a"}, {"B1", "b"}}

var demo = &Selection[*rule, int]{
	Section: "demo",
	Lookup: func(id string) *rule {
		for _, r := range demoRules {
			if r.id == id {
				return r
			}
		}
		return nil
	},
	IsName: func(name string) bool {
		return name == "a" || name == "b" || name == "A1" || name == "A2" || name == "B1"
	},
	Names:      func() string { return "a group (a, b) or a rule" },
	EmptyUse:   "name a group",
	Selects:    func(name string, r *rule) bool { return name == r.id || name == r.group },
	DefaultUse: []string{"a"},
	Default:    func(r *rule) int { return len(r.group) + 1 }, // 2, never the zero off
}

func TestSelectionCheck(t *testing.T) {
	for _, tc := range []struct {
		desc, src string
		atKey     bool
		want      string
	}{
		{desc: "no section", src: ""},
		{desc: "good", src: "demo:\n  use: [a, B1]\n  except: [A2]\n  rules: {A1: 3}\n"},
		{desc: "unknown rule, at the rules", src: "demo:\n  rules:\n    A1: 1\n    ZZ: 2\n", want: "f:3:5: demo.rules: unknown rule ZZ; see toolcat demo --rules"},
		{desc: "unknown rule, at its key", src: "demo:\n  rules:\n    A1: 1\n    ZZ: 2\n", atKey: true, want: "f:4:5: demo.rules: unknown rule ZZ; see toolcat demo --rules"},
		{desc: "unknown rules, the first in order", src: "demo:\n  rules: {ZZ: 1, YY: 2}\n", atKey: true, want: "f:2:18: demo.rules: unknown rule YY; see toolcat demo --rules"},
		{desc: "unknown name in use", src: "demo:\n  use: [a, c]\n", want: `f:2:12: demo.use: unknown name "c"; name a group (a, b) or a rule`},
		{desc: "unknown name in except", src: "demo:\n  except:\n    - c\n", want: `f:3:7: demo.except: unknown name "c"; name a group (a, b) or a rule`},
		{desc: "rules are checked first", src: "demo:\n  use: [c]\n  rules: {ZZ: 1}\n", want: "f:3:10: demo.rules: unknown rule ZZ; see toolcat demo --rules"},
		{desc: "empty use", src: "demo:\n  use: []\n", want: "f:2:8: demo.use is empty; name a group"},
		{desc: "use left out is no empty use", src: "demo:\n  except: [b]\n"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, root, err := decodeDemo(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			sel := *demo
			sel.RuleAtKey = tc.atKey
			err = sel.Check("f", Value(root, "demo"), s.Use, s.Except, s.Rules)
			if got := errString(err); got != tc.want {
				t.Errorf("error %q, want %q", got, tc.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSelectionSeverity(t *testing.T) {
	for _, tc := range []struct {
		desc          string
		use, except   []string
		rules         map[string]int
		a1, a2, b1, z int
	}{
		{desc: "empty use is DefaultUse", a1: 2, a2: 2},
		{desc: "a group and a rule", use: []string{"b", "A2"}, a2: 2, b1: 2},
		{desc: "except takes out", use: []string{"a", "b"}, except: []string{"A1"}, a2: 2, b1: 2},
		{desc: "except takes out a group", use: []string{"A1", "b"}, except: []string{"a"}, b1: 2},
		{desc: "rules decides over the rest", use: []string{"b"}, except: []string{"B1"}, rules: map[string]int{"A1": 3, "B1": 1}, a1: 3, b1: 1},
		{desc: "rules may set off", rules: map[string]int{"A1": 0}, a2: 2},
		{desc: "rules may set an unknown rule", rules: map[string]int{"ZZ": 1}, a1: 2, a2: 2, z: 1},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			for id, want := range map[string]int{"A1": tc.a1, "A2": tc.a2, "B1": tc.b1, "ZZ": tc.z} {
				if got := demo.Severity(id, tc.use, tc.except, tc.rules); got != want {
					t.Errorf("%s runs at %d, want %d", id, got, want)
				}
			}
		})
	}
}
