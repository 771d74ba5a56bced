package importer

import (
	"bytes"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestSnakeCase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"get_user", "get_user"},
		{"getUser", "get_user"},
		{"get-user", "get_user"},
		{"files.read", "files_read"},
		{"HTTPRequest", "http_request"},
		{"listIssuesV2", "list_issues_v2"},
		{"Search Articles", "search_articles"},
		{"__weird--name__", "weird_name"},
		{"3d_render", "tool_3d_render"},
		{"ünïcode", "n_code"},
		{"", "tool"},
		{"...", "tool"},
		{strings.Repeat("a", 70), strings.Repeat("a", 64)},
	}
	for _, tt := range tests {
		if got := SnakeCase(tt.in); got != tt.want {
			t.Errorf("SnakeCase(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// schemaOf normalises the JSON schema in and returns it as compact JSON
// with the notes.
func schemaOf(t *testing.T, in string) (string, []string) {
	t.Helper()
	n, err := decodeJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	notes := Normalise(n, "args")
	return compact(n), notes
}

func TestNormalise(t *testing.T) {
	tests := []struct {
		desc, in, want, note string
	}{
		{"draft-07 $schema", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, `{"type":"object"}`, "converted to 2020-12"},
		{"2020-12 $schema silently", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`, `{"type":"object"}`, ""},
		{"definitions", `{"type":"object","properties":{"a":{"$ref":"#/definitions/x"}},"definitions":{"x":{"type":"string"}}}`,
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`, "definitions renamed $defs"},
		{"boolean exclusiveMinimum", `{"type":"integer","minimum":0,"exclusiveMinimum":true}`, `{"type":"integer","exclusiveMinimum":0}`, "boolean exclusiveMinimum"},
		{"false exclusiveMaximum", `{"type":"integer","maximum":9,"exclusiveMaximum":false}`, `{"type":"integer","maximum":9}`, "boolean exclusiveMaximum"},
		{"dict", `{"type":"dict"}`, `{"type":"object"}`, "type dict mapped to object"},
		{"float", `{"type":"float"}`, `{"type":"number"}`, "mapped to number"},
		{"int", `{"type":"int"}`, `{"type":"integer"}`, "mapped to integer"},
		{"bool", `{"type":"bool"}`, `{"type":"boolean"}`, "mapped to boolean"},
		{"list", `{"type":"list","items":{"type":"str"}}`, `{"type":"array","items":{"type":"string"}}`, "type list mapped to array"},
		{"tuple", `{"type":"tuple","items":[{"type":"int"},{"type":"str"}]}`, `{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}]}`, "prefixItems"},
		{"any", `{"type":"object","properties":{"v":{"type":"any","description":"x"}}}`, `{"type":"object","properties":{"v":{"description":"x"}}}`, "means any value"},
		{"Java names", `{"type":"object","properties":{"a":{"type":"Integer"},"b":{"type":"Long"},"c":{"type":"String"},"d":{"type":"Boolean"}}}`,
			`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"string"},"d":{"type":"boolean"}}}`, "type Long mapped to integer"},
		{"JavaScript names", `{"type":"Object","properties":{"n":{"type":"Number"},"u":{"type":["string","undefined"]}}}`,
			`{"type":"object","properties":{"n":{"type":"number"},"u":{"type":["string","null"]}}}`, "type Number written number"},
		{"Gemini upper case", `{"type":"OBJECT","properties":{"q":{"type":"STRING","nullable":true}}}`,
			`{"type":"object","properties":{"q":{"type":["string","null"]}}}`, "nullable"},
		{"dependencies", `{"type":"object","dependencies":{"a":["b"],"c":{"required":["d"]}}}`,
			`{"type":"object","dependentRequired":{"a":["b"]},"dependentSchemas":{"c":{"required":["d"]}}}`, "dependentRequired"},
		{"unknown type kept", `{"type":"frobnicate"}`, `{"type":"frobnicate"}`, ""},
		{"nested in anyOf", `{"anyOf":[{"type":"int"},{"type":"null"}]}`, `{"anyOf":[{"type":"integer"},{"type":"null"}]}`, "mapped to integer"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got, notes := schemaOf(t, tt.in)
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			all := strings.Join(notes, "\n")
			if tt.note == "" && len(notes) > 0 {
				t.Errorf("notes %q, want none", all)
			}
			if tt.note != "" && !strings.Contains(all, tt.note) {
				t.Errorf("notes %q, want one mentioning %q", all, tt.note)
			}
		})
	}
}

func parseString(t *testing.T, name, in string) []Tool {
	t.Helper()
	tools, err := Parse(name, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

func TestParseFormats(t *testing.T) {
	tests := []struct {
		desc, in string
		want     Format
		name     string
	}{
		{"mcp tools/list", `{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object"}}]}`, FormatMCP, "a"},
		{"mcp json-rpc", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`, FormatMCP, "a"},
		{"mcp snapshot", `{"name":"a","description":"d","inputSchema":{"type":"object"}}`, FormatMCP, "a"},
		{"openai chat", `[{"type":"function","function":{"name":"a","description":"d","parameters":{"type":"object"},"strict":true}}]`, FormatOpenAIChat, "a"},
		{"openai responses", `[{"type":"function","name":"a","description":"d","parameters":{"type":"object"},"strict":false}]`, FormatOpenAIResponses, "a"},
		{"openai functions", `{"functions":[{"name":"a","parameters":{"type":"object"}}]}`, FormatOpenAIFunction, "a"},
		{"anthropic", `[{"name":"a","description":"d","input_schema":{"type":"object"}}]`, FormatAnthropic, "a"},
		{"gemini", `{"functionDeclarations":[{"name":"a","description":"d","parameters":{"type":"OBJECT"}}]}`, FormatGemini, "a"},
		{"gemini in tools", `[{"functionDeclarations":[{"name":"a","parameters":{"type":"OBJECT"}}]}]`, FormatGemini, "a"},
		{"json schema, titled", `{"title":"lookUp","type":"object","properties":{}}`, FormatSchema, "lookUp"},
		{"json schema, by file", `{"type":"object","properties":{}}`, FormatSchema, "get_weather"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			tools := parseString(t, "schemas/get_weather.schema.json", tt.in)
			if len(tools) != 1 || tools[0].Format != tt.want || tools[0].Name != tt.name {
				t.Fatalf("got %+v, want one %s tool %s", tools, tt.want, tt.name)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ desc, in, want string }{
		{"not JSON", `{tools`, "invalid JSON"},
		{"empty", ``, "invalid JSON"},
		{"two values", `{} {}`, "more than one value"},
		{"scalar", `42`, "want a JSON object or array"},
		{"no tools", `{"tools":[]}`, "no tool definitions"},
		{"tools not a list", `{"tools":{}}`, "not an array"},
		{"item not object", `[1]`, "not an object"},
		{"nameless", `[{"inputSchema":{"type":"object"}}]`, "no name"},
		{"numeric name", `[{"name":1,"inputSchema":{}}]`, "no name"},
		{"no schema", `{"foo":"bar"}`, "not a tool definition"},
		{"duplicate key", `{"name":"a","name":"b","inputSchema":{}}`, "twice"},
		{"too deep", strings.Repeat("[", 300) + strings.Repeat("]", 300), "nested more than"},
		{"description object", `[{"name":"a","description":{},"inputSchema":{}}]`, "description is not a string"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			_, err := Parse("in.json", strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse error = %v, want one mentioning %q", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "in.json: ") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// built decodes a Build result's YAML.
func built(t *testing.T, res *Result) map[string]any {
	t.Helper()
	var doc struct {
		Tools map[string]map[string]any `yaml:"tools"`
	}
	if err := yaml.Unmarshal(res.YAML, &doc); err != nil {
		t.Fatalf("%v\n%s", err, res.YAML)
	}
	out := map[string]any{}
	for k, v := range doc.Tools {
		out[k] = v
	}
	return out
}

func TestBuildNamesAndDuplicates(t *testing.T) {
	tools := parseString(t, "a.json", `{"tools":[
		{"name":"getUser","description":"Reads a user.","inputSchema":{"type":"object"}},
		{"name":"get_user","description":"Another tool.","inputSchema":{"type":"object"}},
		{"name":"get-user","description":"Reads a user.","inputSchema":{"type":"object"}},
		{"name":"list users","description":"Lists.","inputSchema":{"type":"object"}}]}`)
	res, err := Build(tools, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := built(t, res)
	if res.Tools != 3 || res.Merged != 1 || len(got) != 3 {
		t.Fatalf("tools %d merged %d, want 3 and 1:\n%s", res.Tools, res.Merged, res.YAML)
	}
	// get_user is already snake_case: it keeps its name.
	if g := got["get_user"].(map[string]any); g["original_name"] != nil || g["description"] != "Another tool." {
		t.Errorf("get_user = %v, want the tool called get_user", g)
	}
	if g := got["get_user_2"].(map[string]any); g["original_name"] != "getUser" || g["description"] != "Reads a user." {
		t.Errorf("get_user_2 = %v, want getUser's, with original_name", g)
	}
	if g := got["list_users"].(map[string]any); g["original_name"] != nil {
		t.Errorf("list_users has original_name %v; a name with a space cannot be one", g["original_name"])
	}
	notes := notesText(res)
	for _, want := range []string{"get_user_2: decide: getUser (a.json[0]) has the name of get_user (a.json[1])", "get-user (a.json[2]) is the same tool as getUser", `renamed from "list users"`} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	// Two different tools called search: the second cannot keep the
	// name on the wire.
	tools = parseString(t, "c.json", `[{"name":"search","description":"x","inputSchema":{}},{"name":"search","description":"y","inputSchema":{}}]`)
	res, _ = Build(tools, Options{})
	if g := built(t, res)["search_2"].(map[string]any); g["original_name"] != nil {
		t.Errorf("search_2 has original_name %v, the name of another tool", g["original_name"])
	}
	tools = parseString(t, "b.json", `[{"name":"a_b","inputSchema":{}},{"name":"a-b","inputSchema":{}}]`)
	res, _ = Build(tools, Options{})
	if res.Merged != 1 || res.Tools != 1 {
		t.Errorf("merged %d tools %d, want 1 and 1", res.Merged, res.Tools)
	}
}

func notesText(res *Result) string {
	var b strings.Builder
	for _, n := range res.Notes {
		b.WriteString(n.String() + "\n")
	}
	return b.String()
}

func TestBuildAnnotations(t *testing.T) {
	tests := []struct {
		desc, annotations string
		want              map[string]any
		decide            []string
	}{
		{"read-only", `{"readOnlyHint":true,"openWorldHint":false}`,
			map[string]any{"risk": "low", "has_side_effects": false, "idempotent": true, "returns_untrusted": false}, nil},
		{"destructive", `{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":true}`,
			map[string]any{"risk": "high", "has_side_effects": true, "side_effect": "destructive", "idempotent": true, "returns_untrusted": true}, []string{"risk", "side_effect"}},
		{"additive", `{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}`,
			map[string]any{"risk": "medium", "has_side_effects": true, "side_effect": "additive", "idempotent": false, "returns_untrusted": false}, []string{"risk"}},
		{"nothing said", `{}`,
			map[string]any{"risk": "high", "has_side_effects": true, "side_effect": "destructive", "idempotent": false, "returns_untrusted": true},
			[]string{"risk", "has_side_effects", "side_effect", "idempotent", "returns_untrusted"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			tools := parseString(t, "a.json", `[{"name":"t","description":"d","inputSchema":{"type":"object","additionalProperties":false},"annotations":`+tt.annotations+`}]`)
			res, err := Build(tools, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := built(t, res)["t"].(map[string]any)
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
			for _, line := range strings.Split(string(res.YAML), "\n") {
				key := strings.TrimSpace(strings.SplitN(line, ":", 2)[0])
				if _, ok := tt.want[key]; !ok {
					continue
				}
				wantDecide := false
				for _, d := range tt.decide {
					wantDecide = wantDecide || d == key
				}
				if strings.Contains(line, Decide) != wantDecide {
					t.Errorf("line %q: decide comment %v, want %v", line, !wantDecide, wantDecide)
				}
			}
			if res.Decide != len(tt.decide) {
				t.Errorf("Decide = %d, want %d", res.Decide, len(tt.decide))
			}
		})
	}
}

// A plain schema has no wire name: its title or file names the tool.
func TestBuildSchemaName(t *testing.T) {
	tools := parseString(t, "defs/GetWeather.json", `{"$schema":"http://json-schema.org/draft-07/schema#","description":"Reads the weather.","type":"object","properties":{"city":{"type":"str"}}}`)
	res, err := Build(tools, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, ok := built(t, res)["get_weather"].(map[string]any)
	if !ok || g["original_name"] != nil || g["description"] != "Reads the weather." {
		t.Fatalf("get_weather = %v, want the schema's description and no original_name:\n%s", g, res.YAML)
	}
	if !strings.Contains(notesText(res), `named get_weather after the schema's title or file, "GetWeather"`) {
		t.Errorf("notes:\n%s", notesText(res))
	}
}

func TestBuildKeepsWhatItCannotMap(t *testing.T) {
	tools := parseString(t, "a.json", `[{"name":"t","title":"The Tool","_meta":{"x":1},"description":"d",
		"inputSchema":{"type":"object","additionalProperties":false,"x-vendor":true},
		"annotations":{"readOnlyHint":true,"title":"T"}}]`)
	res, err := Build(tools, Options{})
	if err != nil {
		t.Fatal(err)
	}
	y := string(res.YAML)
	for _, want := range []string{`#   _meta: {"x":1}`, `#   title: "The Tool"`, `#   annotations.title: "T"`, "x-vendor: true"} {
		if !strings.Contains(y, want) {
			t.Errorf("the catalog lacks %q:\n%s", want, y)
		}
	}
	if !strings.Contains(notesText(res), "3 field(s) of the source kept as a comment: _meta, annotations.title, title") {
		t.Errorf("notes:\n%s", notesText(res))
	}
}

func TestBuildDeterministic(t *testing.T) {
	in := `[{"name":"b","title":"x","icons":[1],"_meta":{},"description":"d","input_schema":{"type":"object","properties":{"z":{"type":"int"},"a":{"type":"string"}}},"input_examples":[{"a":"x"}]},
		{"name":"a","description":"multi\nline","input_schema":{"type":"object"}}]`
	var first []byte
	for i := 0; i < 5; i++ {
		res, err := Build(parseString(t, "a.json", in), Options{Package: "mytools"})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res.YAML
			continue
		}
		if !bytes.Equal(first, res.YAML) {
			t.Fatalf("two builds differ:\n%s\n---\n%s", first, res.YAML)
		}
	}
	y := string(first)
	// Properties keep their order; tools are sorted; examples are kept.
	if !strings.Contains(y, "z:\n          type: integer\n        a:") || strings.Index(y, "\n  a:") > strings.Index(y, "\n  b:") {
		t.Errorf("order:\n%s", y)
	}
	if !strings.Contains(y, "package: mytools") || !strings.Contains(y, "examples:\n      - args:\n          a: x") || !strings.Contains(y, "description: |-\n      multi\n      line") {
		t.Errorf("catalog:\n%s", y)
	}
	if _, err := Build(nil, Options{Package: "Bad-Name"}); err == nil {
		t.Error("Build with package Bad-Name: no error")
	}
}

// A key or file name with a line break stays inside its comment.
func TestBuildCommentsStayComments(t *testing.T) {
	tools := parseString(t, "a\nb.json", `[{"name":"t","description":"d","inputSchema":{},"x\nevil: 1":{"a\nb":"c\nd"}}]`)
	res, err := Build(tools, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.Unmarshal(res.YAML, &v); err != nil {
		t.Fatalf("%v\n%s", err, res.YAML)
	}
	if _, ok := v["evil"]; ok || len(v) != 2 {
		t.Errorf("keys %v, want package and tools:\n%s", v, res.YAML)
	}
}

func FuzzImport(f *testing.F) {
	f.Add(`{"tools":[{"name":"getUser","inputSchema":{"type":"object","definitions":{"a":{"type":"dict"}},"properties":{"x":{"$ref":"#/definitions/a"}}}}]}`)
	f.Add(`[{"type":"function","function":{"name":"a-b","parameters":{"type":"object","properties":{"n":{"type":"int","minimum":1,"exclusiveMinimum":true}}}}}]`)
	f.Add(`{"type":"object","items":[{"type":"tuple"}],"dependencies":{"a":["b"]}}`)
	f.Fuzz(func(t *testing.T, in string) {
		tools, err := Parse("f.json", strings.NewReader(in))
		if err != nil {
			return
		}
		res, err := Build(tools, Options{})
		if err != nil {
			t.Fatalf("Build: %v", err)
		}
		var v any
		if err := yaml.Unmarshal(res.YAML, &v); err != nil {
			t.Fatalf("the catalog is not YAML: %v\n%s", err, res.YAML)
		}
	})
}
