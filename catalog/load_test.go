package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func files(pairs ...string) []File {
	var out []File
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, File{Name: pairs[i], Data: []byte(pairs[i+1])})
	}
	return out
}

func errorLines(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is %T, not an ErrorList: %v", err, err)
	}
	var out []string
	for _, e := range list {
		out = append(out, e.Error())
	}
	return out
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		desc  string
		files []File
		want  []string
	}{
		{
			desc: "wrong enum, wrong type, unknown field with did-you-mean, all at once",
			files: files("t.yaml", `tools:
  search_articles:
    description: Full-text search on articles.
    risk: lowish
    max_retries: "two"
    desciption: typo
`),
			want: []string{
				`t.yaml:4:11: tools.search_articles.risk: got "lowish"; want one of "low", "medium", "high"`,
				`t.yaml:5:18: tools.search_articles.max_retries: got a string "two"; want an integer`,
				`t.yaml:6:5: tools.search_articles: unknown field "desciption"; did you mean "description"?`,
			},
		},
		{
			desc: "side_effect: a value of its enum, on a tool with side effects",
			files: files("t.yaml", `tools:
  add_todo:
    description: Adds a todo.
    side_effect: additive
  wipe_todos:
    description: Deletes every todo.
    has_side_effects: true
    side_effect: erases
`),
			want: []string{
				`t.yaml:4:5: tools.add_todo: side_effect additive says what a side effect does, but has_side_effects is false; set has_side_effects: true, or remove side_effect`,
				`t.yaml:8:18: tools.wipe_todos.side_effect: got "erases"; want one of "additive", "overwrites", "destructive"`,
			},
		},
		{
			desc:  "empty description",
			files: files("t.yaml", "tools:\n  list_items:\n    description: |\n\n  list_things:\n    description: \"  \"\n"),
			want: []string{
				`t.yaml:3:5: tools.list_items.description: empty; say what the tool does, when to use it and when not to: the model reads it to choose the tool`,
				`t.yaml:6:5: tools.list_things.description: empty; say what the tool does, when to use it and when not to: the model reads it to choose the tool`,
			},
		},
		{
			desc:  "missing description",
			files: files("t.yaml", "tools:\n  list_items:\n    risk: low\n"),
			want:  []string{`t.yaml:2:3: tools.list_items: missing required field "description"`},
		},
		{
			desc:  "bound from the format, in a CUE file",
			files: files("a.cue", "package tools\ntools: list_items: {description: \"x\", sla_ms: -5}\n"),
			want:  []string{`a.cue:2:39: tools.list_items.sla_ms: got -5; want >0`},
		},
		{
			desc: "keys of maps that the format constrains, and the tools beside them",
			files: files("t.yaml", `services:
  "data base": {}
tools:
  list items:
    description: x
  list_things:
    descriptoin: y
    errors:
      not_fonud: {suggestion: z}
`),
			want: []string{
				`t.yaml:2:3: services: service name "data base" has characters a name may not have: use only A-Z, a-z, 0-9, '_', '.' and '-', such as "data_base"`,
				`t.yaml:4:3: tools: tool name "list items" has characters a name may not have: use only A-Z, a-z, 0-9, '_', '.' and '-', such as "list_items"`,
				`t.yaml:6:3: tools.list_things: missing required field "description"`,
				`t.yaml:7:5: tools.list_things: unknown field "descriptoin"; did you mean "description"?`,
				`t.yaml:9:7: tools.list_things.errors: key "not_fonud" is not one of "invalid_args", "not_found", "permission_denied", "approval_required", "rate_limited", "quota_exceeded", "dependency_unavailable", "external_error", "timeout", "idempotency_conflict", "retry_exhausted", "unsupported", "internal"; did you mean "not_found"?`,
			},
		},
		{
			desc: "a tool name that is not a CUE identifier, a null tool, a value of the wrong kind",
			files: files("t.yaml", `tools:
  get-user: {description: x, risk: bad}
  list_items:
  list_things: {description: {text: y}}
`),
			want: []string{
				`t.yaml:2:36: tools.get-user.risk: got "bad"; want one of "low", "medium", "high"`,
				`t.yaml:3:14: tools.list_items: got null; want an object`,
				`t.yaml:4:30: tools.list_things.description: got an object; want a string`,
			},
		},
		{
			desc:  "unknown top-level field",
			files: files("t.yaml", "package: tools\ntool: {}\n"),
			want:  []string{`t.yaml:2:1: unknown field "tool"; did you mean "tools"?`},
		},
		{
			desc:  "duplicate key",
			files: files("t.yaml", "tools:\n  a_b:\n    description: x\n  a_b:\n    description: y\n"),
			want:  []string{`t.yaml:4:3: duplicate key "a_b" (first at 2:3)`},
		},
		{
			desc:  "broken YAML",
			files: files("t.yaml", "tools:\n  a: [1, 2\n  b: 3\n"),
			want:  []string{`t.yaml:2:1: invalid YAML: did not find expected ',' or ']'`},
		},
		{
			desc:  "two YAML documents",
			files: files("t.yaml", "package: a\n---\npackage: b\n"),
			want:  []string{`t.yaml:2:1: a catalog file holds one YAML document; split the documents into files or merge them`},
		},
		{
			desc:  "broken JSON",
			files: files("t.json", "{\"tools\": {\n  \"a\": }\n}"),
			want:  []string{`t.json:2:8: invalid JSON: invalid character '}' looking for beginning of value`},
		},
		{
			desc:  "duplicate JSON key",
			files: files("t.json", "{\"package\": \"a\",\n \"package\": \"b\"}"),
			want:  []string{`t.json:2:2: duplicate key "package" (first at 1:2)`},
		},
		{
			desc:  "invalid CUE",
			files: files("a.cue", "package tools\ntools: {\n"),
			want:  []string{`a.cue:3:1: expected '}', found 'EOF'`},
		},
		{
			desc:  "not an object",
			files: files("t.yaml", "- a\n- b\n"),
			want:  []string{`t.yaml:1:1: a catalog file holds an object with package, services and tools; found array`},
		},
		{
			desc: "list form: missing and duplicate names",
			files: files("t.yaml", `tools:
  - name: list_items
    description: x
  - description: y
  - name: list_items
    description: z
`),
			want: []string{
				`t.yaml:4:5: tools[1]: a tool in a list needs a name`,
				`t.yaml:5:11: tools[2]: tool "list_items" is declared twice (first at 2:11); both are checked, the first is used`,
			},
		},
		{
			desc: "list form: the second definition of a tool is checked too",
			files: files("t.yaml", `tools:
  - name: list_items
    description: x
  - name: list_items
    risk: extreme
    descripton: z
    args: {type: objekt}
`),
			want: []string{
				`t.yaml:4:11: tools[1]: tool "list_items" is declared twice (first at 2:11); both are checked, the first is used`,
				`t.yaml:4:11: tools.list_items: missing required field "description"`,
				`t.yaml:5:11: tools.list_items.risk: got "extreme"; want one of "low", "medium", "high"`,
				`t.yaml:6:5: tools.list_items: unknown field "descripton"; did you mean "description"?`,
				`t.yaml:7:18: tools.list_items.args.type: not a valid JSON Schema: found "objekt": value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'; did you mean "object"?`,
			},
		},
		{
			desc: "map form: a key written twice has both values checked",
			files: files("t.yaml", `tools:
  list_items:
    description: x
    max_retries: 2
    max_retries: -1
  list_items:
    description: y
    risk: extreme
`),
			want: []string{
				`t.yaml:5:5: duplicate key "max_retries" (first at 4:5)`,
				`t.yaml:5:18: tools.list_items.max_retries: got -1; want >=0`,
				`t.yaml:6:3: duplicate key "list_items" (first at 2:3)`,
				`t.yaml:8:11: tools.list_items.risk: got "extreme"; want one of "low", "medium", "high"`,
			},
		},
		{
			desc: "a key written twice inside a tool written twice",
			files: files("t.yaml", `tools:
  list_items: {description: x}
  list_items: {description: y, risk: low, risk: wild}
`),
			want: []string{
				`t.yaml:3:3: duplicate key "list_items" (first at 2:3)`,
				`t.yaml:3:43: duplicate key "risk" (first at 3:32)`,
				`t.yaml:3:49: tools.list_items.risk: got "wild"; want one of "low", "medium", "high"`,
			},
		},
		{
			desc:  "JSON: a tool written twice has both definitions checked",
			files: files("t.json", `{"tools": {"list_items": {"description": "x"}, "list_items": {"risk": "extreme"}}}`),
			want: []string{
				`t.json:1:48: duplicate key "list_items" (first at 1:12)`,
				`t.json:1:48: tools.list_items: missing required field "description"`,
				`t.json:1:71: tools.list_items.risk: got "extreme"; want one of "low", "medium", "high"`,
			},
		},
		{
			desc: "a tool in two files: both are checked, a conflict names both",
			files: files("a.yaml", "tools:\n  list_items:\n    description: x\n    risk: low\n",
				"b.yaml", "tools:\n  list_items:\n    risk: high\n    descripton: y\n    sla_ms: -1\n"),
			want: []string{
				`a.yaml:4:11: tools.list_items.risk: conflicting values "high" and "low" (written at a.yaml:4:11 and b.yaml:3:11)`,
				`b.yaml:4:5: tools.list_items: unknown field "descripton"; did you mean "description"?`,
				`b.yaml:5:13: tools.list_items.sla_ms: got -1; want >0`,
			},
		},
		{
			desc:  "catalog metadata is a string, number or boolean; a near miss of a field is a typo",
			files: files("t.yaml", "version: \"1.0\"\nowner: {team: x}\ntittle: Articles\ntools: {}\n"),
			want: []string{
				`t.yaml:2:1: unknown field "owner"; a catalog has the fields package, title, services, tools, suppress, idempotency_key, and any other top-level field is catalog metadata: a string, number or boolean, not an object`,
				`t.yaml:3:1: unknown field "tittle"; did you mean "title"?`,
			},
		},
		{
			desc:  "catalog metadata without a value, in CUE",
			files: files("a.cue", "package tools\nagent: string\ntools: {}\n"),
			want:  []string{`a.cue:2:1: catalog metadata "agent" has no value; give it a string, number or boolean`},
		},
		{
			desc:  "illegal names in references",
			files: files("t.yaml", "tools:\n  a_b:\n    description: x\n    fallback_tool: get user\n    dependencies: [\"db:main\"]\n"),
			want: []string{
				`t.yaml:4:20: tools.a_b.fallback_tool: name "get user" has characters a name may not have: use only A-Z, a-z, 0-9, '_', '.' and '-', such as "get_user"`,
				`t.yaml:5:20: tools.a_b.dependencies[0]: name "db:main" has characters a name may not have: use only A-Z, a-z, 0-9, '_', '.' and '-', such as "db_main"`,
			},
		},
		{
			desc:  "name differs from key",
			files: files("t.yaml", "tools:\n  list_items:\n    name: list_things\n    description: x\n"),
			want:  []string{`t.yaml:3:5: tools.list_items: name "list_things" differs from the tool's key "list_items"; drop the name field or make them equal`},
		},
		{
			desc: "invalid JSON Schema, positioned inside it",
			files: files("t.yaml", `tools:
  list_items:
    description: x
    args:
      type: object
      properties:
        n: {type: integr, minimum: "5"}
        p: {type: string, pattern: "a(b"}
`),
			want: []string{
				`t.yaml:7:19: tools.list_items.args.properties.n.type: not a valid JSON Schema: found "integr": value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'; did you mean "integer"?`,
				`t.yaml:7:36: tools.list_items.args.properties.n.minimum: not a valid JSON Schema: found "5": got string, want number`,
				"t.yaml:8:36: tools.list_items.args.properties.p.pattern: not a valid JSON Schema: 'a(b' is not valid regex: error parsing regexp: missing closing ): `a(b`",
			},
		},
		{
			desc:  "remote $ref",
			files: files("t.yaml", "tools:\n  list_items:\n    description: x\n    args: {type: object, properties: {a: {$ref: \"https://example.com/a.json\"}}}\n"),
			want:  []string{`t.yaml:4:49: tools.list_items.args.properties.a: $ref https://example.com/a.json cannot be resolved; toolcat resolves only references inside the schema (#/$defs/...)`},
		},
		{
			desc: "local $refs that resolve to nothing",
			files: files("t.yaml", `tools:
  list_items:
    description: x
    args:
      type: object
      $defs: {id: {type: string}}
      properties:
        a: {$ref: "#/$defs/id"}
        b: {$ref: "#/$defs/nothing"}
        c: {$ref: "#named"}
`),
			want: []string{
				`t.yaml:9:19: tools.list_items.args.properties.b: $ref #/$defs/nothing points at nothing in the schema`,
				`t.yaml:10:19: tools.list_items.args.properties.c: $ref #named names no $anchor of the schema`,
			},
		},
		{
			desc:  "conflict between files",
			files: files("a.yaml", "package: one\n", "b.yaml", "package: two\n"),
			want:  []string{`a.yaml:1:10: package: conflicting values "two" and "one" (written at a.yaml:1:10 and b.yaml:1:10)`},
		},
		{
			desc:  "CUE files of different packages",
			files: files("a.cue", "package one\n", "b.cue", "package two\n"),
			want:  []string{`b.cue:1:1: package two differs from package one of the other catalog files`},
		},
		{
			desc:  "unknown extension",
			files: files("t.toml", "a = 1\n"),
			want:  []string{`t.toml:1:1: unknown catalog file type ".toml"; use .cue, .yaml, .yml, .json`},
		},
		{
			desc:  "deep nesting",
			files: files("t.json", strings.Repeat("[", 300)+strings.Repeat("]", 300)),
			want:  []string{`t.json:1:202: nesting deeper than 200 levels`},
		},
		{
			desc:  "suppression without a reason",
			files: files("t.yaml", "suppress:\n  - rule: TOOL_NAME_GENERIC\n"),
			want:  []string{`t.yaml:2:5: suppress[0]: missing required field "reason"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			cat, err := LoadFiles(tt.files...)
			if err == nil {
				t.Fatalf("loaded without error: %d tools", len(cat.Tools))
			}
			if diff := cmp.Diff(tt.want, errorLines(t, err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadYAMLMapAndListAgree(t *testing.T) {
	asMap, err := LoadFiles(files("m.yaml", `tools:
  list_items:
    description: Lists items.
    has_side_effects: false
`)...)
	if err != nil {
		t.Fatal(err)
	}
	asList, err := LoadFiles(files("l.yaml", `tools:
  - name: list_items
    description: Lists items.
    has_side_effects: false
`)...)
	if err != nil {
		t.Fatal(err)
	}
	a, b := asMap.Tools[0], asList.Tools[0]
	if a.Name != b.Name || a.Description != b.Description || string(a.Args.JSON()) != string(b.Args.JSON()) {
		t.Errorf("map form %+v and list form %+v differ", a, b)
	}
	if got, want := b.Pos.String(), "l.yaml:2:11"; got != want {
		t.Errorf("list-form tool position = %s, want %s", got, want)
	}
}

func TestLoadDefaults(t *testing.T) {
	cat, err := LoadFiles(files("t.yaml", `tools:
  list_items:
    description: Lists items.
  delete_item:
    description: Deletes an item.
    has_side_effects: true
  drop_table:
    description: Drops a table.
    has_side_effects: true
    risk: high
`)...)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Package != "tools" {
		t.Errorf("package = %q, want tools", cat.Package)
	}
	type got struct {
		Risk           Risk
		Idempotent     bool
		Autonomy       Autonomy
		AdditionalArgs string
		Exposure       string
		MaxRetries     int
		Args           string
	}
	want := map[string]got{
		"list_items":  {RiskLow, true, AutonomyReadOnly, "reject", "core", 0, `{"type":"object","properties":{},"additionalProperties":false}`},
		"delete_item": {RiskLow, false, AutonomySupervised, "reject", "core", 0, `{"type":"object","properties":{},"additionalProperties":false}`},
		"drop_table":  {RiskHigh, false, AutonomyFull, "reject", "core", 0, `{"type":"object","properties":{},"additionalProperties":false}`},
	}
	for _, tl := range cat.Tools {
		g := got{tl.Risk, tl.Idempotent, tl.Autonomy, tl.AdditionalArgs, tl.Exposure, tl.MaxRetries, string(tl.Args.JSON())}
		if diff := cmp.Diff(want[tl.Name], g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tl.Name, diff)
		}
		if tl.Has("risk") != (tl.Name == "drop_table") {
			t.Errorf("%s: Has(risk) = %v", tl.Name, tl.Has("risk"))
		}
	}
}

func TestLoadPositions(t *testing.T) {
	cat, err := LoadFiles(files("t.yaml", `package: shop
tools:
  list_orders:
    description: Lists orders.
    sla_ms: 300
    args:
      type: object
      properties:
        status: {type: string, enum: [open, closed]}
`)...)
	if err != nil {
		t.Fatal(err)
	}
	tl := cat.Tool("list_orders")
	checks := map[string]Pos{
		"tool":            tl.Pos,
		"sla_ms":          tl.PosOf("sla_ms"),
		"risk (default)":  tl.PosOf("risk"),
		"args":            tl.Args.Pos,
		"status key":      tl.Args.Get("properties").KeyPos("status"),
		"status.enum[1]":  tl.Args.Lookup("/properties/status/enum/1").Pos,
		"status.type key": tl.Args.Lookup("/properties/status").KeyPos("type"),
	}
	want := map[string]string{
		"tool":            "t.yaml:3:3",
		"sla_ms":          "t.yaml:5:5",
		"risk (default)":  "t.yaml:3:3",
		"args":            "t.yaml:7:7",
		"status key":      "t.yaml:9:9",
		"status.enum[1]":  "t.yaml:9:45",
		"status.type key": "t.yaml:9:18",
	}
	for k, p := range checks {
		if p.String() != want[k] {
			t.Errorf("%s at %s, want %s", k, p, want[k])
		}
	}
}

func TestLoadCUETemplates(t *testing.T) {
	cat, err := LoadFiles(files(
		"base.cue", `package tools

// Every tool of the content team has the same owner and a deadline.
tools: [string]: {owner: "content", sla_ms: *500 | int}
`,
		"search.cue", `tools: search_articles_by_keyword: {
	description: """
		Full-text search on article titles and tags.
		Use when: the user names a topic. Do not use: to read one article.
		"""
	sla_ms: 200
	args: {type: "object", additionalProperties: false, properties: {}}
}
`,
		"more.yaml", "tools:\n  get_article_by_id:\n    description: Reads one article.\n",
	)...)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Tools) != 2 {
		t.Fatalf("got %d tools, want 2", len(cat.Tools))
	}
	get, search := cat.Tools[0], cat.Tools[1]
	if get.Owner != "content" || get.SLAms != 500 || search.SLAms != 200 {
		t.Errorf("templates not applied: get owner %q sla %d, search sla %d", get.Owner, get.SLAms, search.SLAms)
	}
	if got := search.Pos.String(); got != "search.cue:1:8" {
		t.Errorf("CUE tool position = %s", got)
	}
}

func TestLoadDirectory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.yaml", "tools:\n  list_items:\n    description: Lists items.\n")
	write("b.json", `{"tools": {"get_item": {"description": "Gets an item."}}}`)
	write("toolcat.yaml", "lint: {rules: {}}\n") // configuration, not catalog
	write("_draft.yaml", "this: is not read\n")  // skipped
	write("notes.txt", "not a catalog file\n")   // skipped
	cat, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Tools) != 2 || len(cat.Files) != 2 {
		t.Errorf("got %d tools from %v", len(cat.Tools), cat.Files)
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no catalog files") {
		t.Errorf("empty directory: %v", err)
	}
}

func TestLoadHugeFile(t *testing.T) {
	data := make([]byte, MaxFileSize+1)
	_, err := LoadFiles(File{Name: "big.yaml", Data: data})
	want := []string{"big.yaml:1:1: file is 64.0 MiB, above the 64 MiB limit of a catalog file"}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Error(diff)
	}
}

func TestLoadAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	_, err := LoadFiles(File{Name: "bomb.yaml", Data: []byte(b.String())})
	want := []string{"bomb.yaml:5:45: YAML aliases expand the file by more than 100000 nodes; repeat less through aliases, or write the catalog in CUE"}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("alias bomb (-want +got):\n%s", diff)
	}
}

// A 100 MB file is refused from its size, before it is read.
func TestLoadHugeFileFromDisk(t *testing.T) {
	name := filepath.Join(t.TempDir(), "big.yaml")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Load(name)
	want := []string{name + ":1:1: file is 100.0 MiB, above the 64 MiB limit of a catalog file"}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Error(diff)
	}
}

// Positions in a long single-line JSON file cost no more than in an
// indented one (columns of ASCII lines are byte offsets).
func TestLoadSingleLineJSONColumns(t *testing.T) {
	cat, err := LoadFiles(files("t.json", `{"tools": {"list_items": {"description": "Lists items.", "dependencies": ["db", "cache"]}}, "services": {"db": {}, "cache": {}}}`)...)
	if err != nil {
		t.Fatal(err)
	}
	tl := cat.Tool("list_items")
	if got := tl.DependencyPos[1].String(); got != "t.json:1:81" {
		t.Errorf("second dependency at %s, want t.json:1:81", got)
	}
	if got := tl.Pos.String(); got != "t.json:1:12" {
		t.Errorf("tool at %s, want t.json:1:12", got)
	}
}

func TestLoadMaxResultBytes(t *testing.T) {
	cat, err := LoadFiles(files("t.yaml", "tools:\n  list_items:\n    description: x\n    max_result_bytes: 65536\n  list_more:\n    description: y\n")...)
	if err != nil {
		t.Fatal(err)
	}
	if got := cat.Tool("list_items").MaxResultBytes; got != 65536 {
		t.Errorf("list_items: MaxResultBytes = %d, want 65536", got)
	}
	if got := cat.Tool("list_more").MaxResultBytes; got != 0 {
		t.Errorf("list_more: MaxResultBytes = %d, want 0 (the registry's)", got)
	}
	for _, tc := range []struct{ value, want string }{
		{"0", "t.yaml:4:23: tools.list_items.max_result_bytes: got 0; want >0"},
		{"-1", "t.yaml:4:23: tools.list_items.max_result_bytes: got -1; want >0"},
		{"2000000000", "t.yaml:4:23: tools.list_items.max_result_bytes: got 2000000000; want <=1073741824"},
		{"1.5", "t.yaml:4:23: tools.list_items.max_result_bytes"},
		{`"1MB"`, "t.yaml:4:23: tools.list_items.max_result_bytes"},
	} {
		_, err := LoadFiles(files("t.yaml", "tools:\n  list_items:\n    description: x\n    max_result_bytes: "+tc.value+"\n")...)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("max_result_bytes: %s: error %v, want %s", tc.value, err, tc.want)
		}
	}
}

func TestLoadIdempotencyKey(t *testing.T) {
	for _, tc := range []struct {
		desc  string
		files []File
		want  map[string]string // tool name → idempotency_key
	}{
		{
			desc: "host by default",
			files: files("t.yaml", `tools:
  list_items: {description: Lists items.}
  delete_item: {description: Deletes an item., has_side_effects: true}
`),
			want: map[string]string{"list_items": "host", "delete_item": "host"},
		},
		{
			desc: "the catalog's default applies to tools with side effects; a tool's own setting wins",
			files: files("t.yaml", `idempotency_key: argument
tools:
  list_items: {description: Lists items.}
  delete_item: {description: Deletes an item., has_side_effects: true}
  refund_order: {description: Refunds an order., has_side_effects: true, idempotency_key: host}
  cancel_order: {description: Cancels an order., idempotency_key: argument}
`),
			want: map[string]string{"list_items": "host", "delete_item": "argument", "refund_order": "host", "cancel_order": "argument"},
		},
		{
			desc: "a CUE template",
			files: files("a.cue", `package tools
tools: [string]: idempotency_key: *"argument" | _
tools: refund_order: {description: "Refunds an order.", has_side_effects: true}
tools: list_orders: {description: "Lists orders.", idempotency_key: "host"}
`),
			want: map[string]string{"refund_order": "argument", "list_orders": "host"},
		},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			cat, err := LoadFiles(tc.files...)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, tl := range cat.Tools {
				got[tl.Name] = tl.IdempotencyKey
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	_, err := LoadFiles(files("t.yaml", `idempotency_key: model
tools:
  refund_order:
    description: Refunds an order.
    idempotency_key: arg
`)...)
	want := []string{
		`t.yaml:1:18: idempotency_key: got "model"; want one of "host", "argument"`,
		`t.yaml:5:22: tools.refund_order.idempotency_key: got "arg"; want one of "host", "argument"`,
	}
	if diff := cmp.Diff(want, errorLines(t, err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestLoadQueries(t *testing.T) {
	cat, err := LoadFiles(files("t.yaml", "tools:\n  get_weather:\n    description: x\n    queries:\n      - do I need an umbrella\n      - \"is it cold in Oslo\"\n  get_time:\n    description: y\n")...)
	if err != nil {
		t.Fatal(err)
	}
	tl := cat.Tool("get_weather")
	if diff := cmp.Diff([]string{"do I need an umbrella", "is it cold in Oslo"}, tl.Queries); diff != "" {
		t.Error(diff)
	}
	if got := []string{tl.QueryPosOf(0).String(), tl.QueryPosOf(1).String()}; got[0] != "t.yaml:5:9" || got[1] != "t.yaml:6:9" {
		t.Errorf("query positions %v, want t.yaml:5:9 and t.yaml:6:9", got)
	}
	if q := cat.Tool("get_time").Queries; q != nil {
		t.Errorf("get_time: Queries = %q, want none", q)
	}
	long := strings.Repeat("é", 301)
	many := strings.Repeat("      - q\n", 21)
	for _, tc := range []struct{ desc, list, want string }{
		{"empty", `[""]`, `t.yaml:4:15: tools.get_weather.queries[0]: got "" (0 characters); want at least 1 character`},
		{"blank", `["  "]`, `t.yaml:4:15: tools.get_weather.queries[0]: got "  "; want some text, not only blanks`},
		{"too long", `["` + long + `"]`, `t.yaml:4:15: tools.get_weather.queries[0]: got "` + strings.Repeat("é", 28) + `..." (301 characters); want at most 300 characters`},
		{"not a string", `[ok, 3]`, `t.yaml:4:19: tools.get_weather.queries[1]: got an integer 3; want a string`},
		{"not a list", `do I need an umbrella`, `t.yaml:4:14: tools.get_weather.queries: got a string "do I need an umbrella"; want a list`},
		{"too many", "\n" + many, `t.yaml:5:7: tools.get_weather.queries: got a list of 21 items; want at most 20 items`},
	} {
		_, err := LoadFiles(files("t.yaml", "tools:\n  get_weather:\n    description: x\n    queries: "+tc.list+"\n")...)
		if diff := cmp.Diff([]string{tc.want}, errorLines(t, err)); diff != "" {
			t.Errorf("%s: %s", tc.desc, diff)
		}
	}
	// In CUE, each query has CUE's position.
	cat, err = LoadFiles(files("a.cue", "package tools\n\ntools: get_weather: {\n\tdescription: \"x\"\n\tqueries: [\"will it rain\", \"is it cold\"]\n}\n")...)
	if err != nil {
		t.Fatal(err)
	}
	if tl := cat.Tool("get_weather"); tl.QueryPosOf(1).String() != "a.cue:5:28" {
		t.Errorf("CUE: second query at %s, want a.cue:5:28", tl.QueryPosOf(1))
	}
	// 300 characters of any script are within the bound.
	if _, err := LoadFiles(files("t.yaml", "tools:\n  get_weather:\n    description: x\n    queries: [\""+strings.Repeat("é", 300)+"\"]\n")...); err != nil {
		t.Errorf("300 characters: %v", err)
	}
}
