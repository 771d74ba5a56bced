package catalog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/toolcat/toolcat/catalog/catalogtest"
)

func TestYAMLIndentationErrors(t *testing.T) {
	tests := []struct {
		desc string
		src  string
		want string
	}{
		{
			desc: "a key indented too few among keys at 4",
			src:  "tools:\n    list_items:\n        description: x\n       risk: low\n        owner: y\n",
			want: `t.yaml:4:8: key "risk" is indented 7 spaces; its siblings are indented 8`,
		},
		{
			desc: "a key indented 3 among keys at 4",
			src:  "tools:\n  list_items:\n    description: x\n   risk: low\n",
			want: `t.yaml:4:4: key "risk" is indented 3 spaces; its siblings are indented 4`,
		},
		{
			desc: "a key indented too many",
			src:  "tools:\n    list_items:\n        description: x\n         risk: low\n        owner: y\n",
			want: `t.yaml:4:10: key "risk" is indented 9 spaces; its siblings are indented 8`,
		},
		{
			desc: "a top-level key indented by one",
			src:  "package: x\n services: {}\ntools: {}\n",
			want: `t.yaml:2:2: key "services" is indented 1 space; its siblings are indented 0`,
		},
		{
			desc: "a tab",
			src:  "tools:\n    list_items:\n        description: x\n\trisk: low\n",
			want: `t.yaml:4:1: key "risk" is indented with a tab; YAML indents with spaces only`,
		},
		{
			desc: "a tab after spaces",
			src:  "tools:\n    list_items:\n        description: x\n    \trisk: low\n",
			want: `t.yaml:4:5: key "risk" is indented with a tab; YAML indents with spaces only`,
		},
		{
			desc: "in a list item, too few",
			src:  "tools:\n  - name: list_items\n    description: x\n   risk: low\n    owner: y\n",
			want: `t.yaml:4:4: key "risk" is indented 3 spaces; its siblings are indented 4`,
		},
		{
			desc: "in a list item, too many",
			src:  "tools:\n  - name: list_items\n    description: x\n     risk: low\n",
			want: `t.yaml:4:6: key "risk" is indented 5 spaces; its siblings are indented 4`,
		},
		{
			desc: "in a list at the indentation of its key",
			src:  "tools:\n- name: a_b\n  description: x\n- name: c_d\n   description: y\n",
			want: `t.yaml:5:4: key "description" is indented 3 spaces; its siblings are indented 2`,
		},
		{
			desc: "a list item",
			src:  "tools:\n  a_b:\n    description: x\n    dependencies:\n      - db\n     - db2\n",
			want: `t.yaml:6:6: list item "-" is indented 5 spaces; its siblings are indented 6`,
		},
		{
			desc: "after a flow mapping over two lines",
			src:  "tools:\n  list_items: {description: x,\n    risk: low}\n   get_item: {description: y}\n",
			want: `t.yaml:4:4: key "get_item" is indented 3 spaces; its siblings are indented 2`,
		},
		{
			desc: "after a quoted string over two lines and a comment",
			src:  "tools:\n  a_b:\n    description: \"x\n  y\"\n    # risk: high\n    risk: low\n   owner: z\n",
			want: `t.yaml:7:4: key "owner" is indented 3 spaces; its siblings are indented 4`,
		},
		{
			desc: "block text that ends too early",
			src:  "tools:\n  a_b:\n    description: |\n      text\n     more\n    risk: low\n",
			want: `t.yaml:5:6: line is indented 5 spaces, less than the 6 of the block text above it`,
		},
		{
			desc: "a problem of another kind, and an indentation mistake in another block",
			src:  "tools:\n  a_b:\n    description: @x\n    risk: low\nservices:\n  db: {}\n   cache: {}\n",
			want: `t.yaml:3:1: invalid YAML: found character that cannot start any token`,
		},
		{
			desc: "not an indentation problem: the library's message stays",
			src:  "tools:\n  a: [1, 2\n  b: 3\n",
			want: `t.yaml:2:1: invalid YAML: did not find expected ',' or ']'`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			_, err := LoadFiles(File{Name: "t.yaml", Data: []byte(tt.src)})
			if diff := cmp.Diff([]string{tt.want}, errorLines(t, err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestYAMLIndentationOfValidFiles checks that the indentation scan finds
// nothing wrong in YAML that go-yaml reads: block text, lists at the
// indentation of their key, flow collections and quoted strings over
// several lines, anchors, comments, plain text continued on the next line.
func TestYAMLIndentationOfValidFiles(t *testing.T) {
	srcs := map[string]string{
		"shapes.yaml": `# a catalog
package: x
services:
  db: &db {description: "a
    database"}
tools:
- name: a_b
  description: >-
    Lists things.

      Indented more inside the text.
  dependencies:
  - db
  -   db2
  args: {type: object,
    properties: {n: {type: integer}}}
  errors:
    not_found:
      suggestion: 'it''s
        not there'
- name: c_d
  description: plain text
    continued here
  args: &schema
    type: object
  result: *schema
  examples:
    - args:
        n: 1
    - - nested
      - list
"quoted key": x
? complex
: value
`,
		"synthetic.yaml": string(catalogtest.YAML(20)),
	}
	for _, dir := range []string{"../examples/articles/catalog", "lint/testdata", "../gen/testdata/mapping"} {
		names, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			srcs[name] = string(data)
		}
	}
	for name, src := range srcs {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatalf("%s is not valid YAML: %v", name, err)
		}
		if e := indentError(newLineIndex(name, []byte(src)), 1); e != nil {
			t.Errorf("%s: the scan reports %v", name, e)
		}
	}
}
