package catalog

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog/catalogtest"
	"go.yaml.in/yaml/v3"
)

// checkSplit parses src whole and split into chunks of one tool, and
// fails unless the split parse happened as want says and, when it did,
// gave the whole parse's tree.
func checkSplit(t *testing.T, desc, src string, want bool) {
	t.Helper()
	whole, errs := parseYAMLWhole("s.yaml", []byte(src))
	split, ok := splitYAML("s.yaml", []byte(src), 2, 1)
	if ok != want {
		t.Errorf("%s: split %v, want %v", desc, ok, want)
		return
	}
	if !ok {
		return
	}
	if len(errs) > 0 {
		t.Errorf("%s: split although the whole file has errors: %v", desc, errs)
		return
	}
	if !reflect.DeepEqual(whole, split) {
		t.Errorf("%s: the split tree differs from the whole one:\nwhole: %s\nsplit: %s", desc, dumpNode(whole), dumpNode(split))
	}
}

// dumpNode writes a tree with its positions, for messages.
func dumpNode(n *Node) string {
	var b strings.Builder
	var walk func(n *Node, indent string)
	walk = func(n *Node, indent string) {
		fmt.Fprintf(&b, "%s%v@%d:%d %q%s%v\n", indent, n.Kind, n.Pos.Line, n.Pos.Col, n.Str, n.Num, n.Bool)
		for _, f := range n.Fields {
			fmt.Fprintf(&b, "%s %q@%d:%d\n", indent, f.Key, f.KeyPos.Line, f.KeyPos.Col)
			walk(f.Value, indent+"  ")
		}
		for _, it := range n.Items {
			walk(it, indent+"  ")
		}
	}
	walk(n, "")
	return b.String()
}

func TestSplitYAMLSynthetic(t *testing.T) {
	for _, n := range []int{2, 7, 300} {
		checkSplit(t, fmt.Sprintf("catalogtest.YAML(%d)", n), string(catalogtest.YAML(n)), true)
	}
	// The chunk sizes of a real run.
	data := catalogtest.YAML(2000)
	whole, _ := parseYAMLWhole("s.yaml", data)
	for _, workers := range []int{2, 3, 8} {
		split, ok := splitYAML("s.yaml", data, workers, minSplitTools)
		if !ok || !reflect.DeepEqual(whole, split) {
			t.Errorf("%d workers: split %v, or the tree differs", workers, ok)
		}
	}
}

func TestSplitYAMLLayouts(t *testing.T) {
	for _, tt := range []struct {
		desc  string
		src   string
		split bool
	}{
		{"comments and blank lines", "# head\npackage: p\ntools: # the tools\n\n  # first\n  a_b:\n    description: x # c\n\n# between, at column 1\n  c_d:\n    description: y\n# after\nservices:\n  db: {description: d}\n", true},
		{"tools last, no final newline", "package: p\ntools:\n    a_b:\n      description: x\n    c_d: {description: y}", true},
		{"flow style entries", "tools:\n  a_b: {description: x, args: {type: object,\n      properties: {n: {type: integer}}}}\n  c_d: [1, 2,\n    3]\n", true},
		{"multi-line strings", "tools:\n  a_b:\n    description: |\n      line one\n\n      line three\n    title: >-\n      folded\n      text\n  c_d:\n    description: \"double\n      quoted\"\n    other: 'single\n\n      quoted'\n    plain: plain\n      continued\n", true},
		{"block scalar with an indentation indicator", "tools:\n  a_b:\n    d: |2\n        indented\n  c_d:\n    d: x\n", true},
		{"CRLF line ends", "package: p\r\ntools:\r\n  a_b:\r\n    description: x\r\n  c_d:\r\n    description: y\r\n", true},
		{"a key written twice", "tools:\n  a_b: {description: x}\n  a_b: {description: y}\n", true},
		{"keys of other types", "tools:\n  1: {description: x}\n  true: {description: y}\n  null: z\n", true},
		{"a local merge of a mapping", "tools:\n  a_b:\n    <<: {description: x}\n    risk: low\n  c_d: {}\n", true},
		{"deep nesting in a tool", "tools:\n  a_b: " + strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2) + "\n  c_d: {}\n", false},
		{"anchors and aliases", "tools:\n  a_b: &t\n    description: x\n  c_d: *t\n", false},
		{"an alias to the head", "defs: &d {risk: low}\ntools:\n  a_b:\n    <<: *d\n  c_d: {}\n", false},
		{"a quoted string across an entry line", "tools:\n  a_b:\n    description: \"one\n  c_d: two\"\n  e_f: {}\n", false},
		{"a flow mapping across an entry line", "tools:\n  a_b: {x: 1,\n  c_d: 2}\n  e_f: {}\n", false},
		{"a quoted string to column 1", "tools:\n  a_b: {}\n  c_d:\n    description: \"one\ntwo\"\n", false},
		{"quoted keys", "tools:\n  \"a_b\": {}\n  c_d: {}\n", false},
		{"a list of tools", "tools:\n  - name: a_b\n  - name: c_d\n", false},
		{"a list at column 1", "tools:\n- name: a_b\n- name: c_d\n", false},
		{"tools twice", "tools:\n  a_b: {}\n  c_d: {}\ntools:\n  e_f: {}\n", false},
		{"tools with a flow value", "tools: {a_b: {}, c_d: {}}\n", false},
		{"an entry less indented", "tools:\n    a_b: {}\n  c_d: {}\n", false},
		{"a tab in the indentation", "tools:\n  a_b:\n  \tdescription: x\n  c_d: {}\n", false},
		{"a lone CR", "tools:\n  a_b: {}\r  c_d: {}\n", false},
		{"a next-line character", "tools:\n  a_b: {description: \"x\u0085\"}\n  c_d: {}\n", false},
		{"two documents", "tools:\n  a_b: {}\n  c_d: {}\n---\nx: 1\n", false},
		{"tools inside a string of the head", "x: \"a\ntools:\n  a_b: {}\n  c_d: {}\n  \"\n", false},
		{"a syntax error in a tool", "tools:\n  a_b: {}\n  c_d: [\n", false},
		{"a syntax error in the head", "package: [\ntools:\n  a_b: {}\n  c_d: {}\n", false},
		{"a tag", "tools:\n  a_b: !!binary aGVsbG8=\n  c_d: !custom x\n", false},
	} {
		checkSplit(t, tt.desc, tt.src, tt.split)
	}
}

// FuzzSplitYAML checks that whenever a file is parsed in parts, the tree
// is the one parsed whole, and the whole parse found no error.
func FuzzSplitYAML(f *testing.F) {
	f.Add([]byte(catalogtest.YAML(3)))
	for _, s := range []string{
		"tools:\n  a_b: {}\n  c_d: {}\n",
		"tools:\n  a_b:\n    description: \"one\n  c_d: two\"\n  e_f: {}\n",
		"tools:\n  a_b:\n    d: |\n      x\n  c_d: >\n    y\n",
		"package: p\ntools: # c\n  a_b: &x {}\n  c_d: *x\nservices: {}\n",
		"tools:\n  a_b: {x: 1,\n  c_d: 2}\n  e_f: {}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		split, ok := splitYAML("f.yaml", data, 2, 1)
		if !ok {
			return
		}
		whole, errs := parseYAMLWhole("f.yaml", data)
		if len(errs) > 0 {
			t.Fatalf("split although the whole file has errors: %v", errs)
		}
		if !reflect.DeepEqual(whole, split) {
			t.Fatalf("the split tree differs from the whole one:\nwhole: %s\nsplit: %s", dumpNode(whole), dumpNode(split))
		}
	})
}

// TestPlainDecimal checks the integers parseYAML keeps as written against
// what go-yaml decodes them to.
func TestPlainDecimal(t *testing.T) {
	for _, s := range []string{"0", "-0", "7", "-7", "10", "007", "+5", "1_000", "0x1f", "0o17", "123456789012345678", "-123456789012345678", "9223372036854775807", "1e3", "", "-"} {
		n, errs := parseYAMLWhole("i.yaml", []byte("v: "+s+"\n"))
		if len(errs) > 0 {
			continue
		}
		v := n.Get("v")
		var want int64
		var doc yaml.Node
		if yaml.Unmarshal([]byte(s), &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Tag != "!!int" || doc.Content[0].Decode(&want) != nil {
			if plainDecimal(s) {
				t.Errorf("%q: kept as written, but go-yaml does not read it as an int64", s)
			}
			continue
		}
		if v.Kind != Number || v.Num != strconv.FormatInt(want, 10) {
			t.Errorf("%q: number %q, want %d", s, v.Num, want)
		}
	}
	if !plainDecimal("42") || plainDecimal("042") || plainDecimal("-0") {
		t.Error("plainDecimal misreads 42, 042 or -0")
	}
}
