package gen

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime"
)

// The catalog's metadata heads the index, and a provider that does not
// accept a tool name gets no definitions file, with the reason in the
// index, while the other providers' files are written.
func TestDocsMetadataAndRefusedNames(t *testing.T) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "c.yaml", Data: []byte(`version: "1.0"
agent: chat|assistant
tools:
  getComment: {description: Gets a comment.}
  search.web: {description: Searches the web.}
`)})
	if err != nil {
		t.Fatal(err)
	}
	files, err := Docs(cat)
	if err != nil {
		t.Fatal(err)
	}
	index := string(files[DocsIndex])
	for _, want := range []string{
		"| catalog | |\n|---|---|\n| version | 1.0 |\n| agent | chat\\|assistant |\n",
		"- `openai.json` is not written: openai does not accept the tool name \"search.web\".\n",
		"- `anthropic.json` is not written: anthropic does not accept the tool name \"search.web\".\n",
	} {
		if !strings.Contains(index, want) {
			t.Errorf("index.md lacks %q:\n%s", want, index)
		}
	}
	for name, want := range map[string]bool{"openai.json": false, "openai-responses.json": false, "anthropic.json": false, "gemini.json": true, "mcp.json": true} {
		if _, ok := files[name]; ok != want {
			t.Errorf("%s written: %v; want %v", name, ok, want)
		}
	}
	if !strings.Contains(string(files["mcp.json"]), `"name": "search.web"`) {
		t.Errorf("mcp.json lacks search.web:\n%s", files["mcp.json"])
	}
}

// Whatever name loads, the registry takes: the catalog and the runtime
// share one rule of names.
func TestLoadedNamesRegister(t *testing.T) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "c.yaml", Data: []byte(`tools:
  getComment: {description: x}
  search.web: {description: x}
  get-user: {description: x}
  2fa_check: {description: x}
  _draft: {description: x}
  ` + strings.Repeat("a", 64) + `: {description: x}
`)})
	if err != nil {
		t.Fatal(err)
	}
	reg := runtime.New()
	for _, m := range Metas(cat) {
		err := reg.Register(runtime.Tool{Meta: m, Execute: func(context.Context, any) (any, error) { return nil, nil }})
		if err != nil {
			t.Errorf("Register(%s): %v", m.Name, err)
		}
	}
	if got := len(reg.Names()); got != 6 {
		t.Errorf("%d tools registered; want 6", got)
	}
}

func TestDocsMaxResultBytes(t *testing.T) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "c.yaml", Data: []byte(`tools:
  list_items: {description: Lists items., max_result_bytes: 65536}
  list_more: {description: Lists more.}
`)})
	if err != nil {
		t.Fatal(err)
	}
	files, err := Docs(cat)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"list_items.md": true, "list_more.md": false} {
		page, ok := files[name]
		if !ok {
			t.Fatalf("no %s among %v", name, slices.Sorted(maps.Keys(files)))
		}
		if got := strings.Contains(string(page), "| largest result | 65536 bytes of JSON |"); got != want {
			t.Errorf("%s shows the result cap: %v, want %v:\n%s", name, got, want, page)
		}
	}
}

// A tool that takes its idempotency key as an argument shows it on its
// page, in its prompt size and in every provider's file; a tool whose own
// args already declare the name is refused with the property's position.
func TestDocsIdempotencyKeyArg(t *testing.T) {
	load := func(src string) *catalog.Catalog {
		t.Helper()
		cat, err := catalog.LoadFiles(catalog.File{Name: "c.yaml", Data: []byte(src)})
		if err != nil {
			t.Fatal(err)
		}
		return cat
	}
	const tool = `tools:
  refund_order:
    description: Refunds an order.
    has_side_effects: true
    idempotency_required: true
    args:
      type: object
      additionalProperties: false
      required: [order_id]
      properties:
        order_id: {type: string, description: The order.}
`
	host, arg := load(tool), load("idempotency_key: argument\n"+tool)
	files, err := Docs(arg)
	if err != nil {
		t.Fatal(err)
	}
	page := string(files["refund_order.md"])
	for _, want := range []string{
		"| idempotency key | required: the `idempotency_key` argument, or the host's |\n",
		"| `order_id` | string | yes |",
		"| `idempotency_key` | string | yes |  | length >= 1, length <= 200 | Key of this operation, made by you: one per logical operation",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("refund_order.md lacks %q:\n%s", want, page)
		}
	}
	for _, name := range []string{"openai.json", "openai-responses.json", "anthropic.json", "gemini.json", "mcp.json"} {
		if !strings.Contains(string(files[name]), `"idempotency_key": {`) {
			t.Errorf("%s lacks the idempotency_key property:\n%s", name, files[name])
		}
	}
	hostFiles, err := Docs(host)
	if err != nil {
		t.Fatal(err)
	}
	if p := string(hostFiles["refund_order.md"]); strings.Contains(p, "`idempotency_key`") {
		t.Errorf("a host-keyed tool's page shows the argument:\n%s", p)
	}
	withKey, _ := Tokens(arg)
	without, _ := Tokens(host)
	if withKey[0].Tokens <= without[0].Tokens+20 {
		t.Errorf("prompt size %d with the argument, %d without: the argument is not counted", withKey[0].Tokens, without[0].Tokens)
	}
	declared := load(`idempotency_key: argument
tools:
  refund_order:
    description: Refunds an order.
    has_side_effects: true
    args:
      type: object
      properties:
        idempotency_key: {type: string}
`)
	_, err = Docs(declared)
	if err == nil || !strings.HasPrefix(err.Error(), "c.yaml:9:9: tools.refund_order.args declares idempotency_key") {
		t.Errorf("error %v", err)
	}
}

// A tool with an original_name shows it on its page, and the provider
// files carry it as the tool's name.
func TestDocsOriginalName(t *testing.T) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "c.yaml", Data: []byte(`tools:
  get_user: {description: Reads a user., original_name: getUser}
`)})
	if err != nil {
		t.Fatal(err)
	}
	files, err := Docs(cat)
	if err != nil {
		t.Fatal(err)
	}
	if page := string(files["get_user.md"]); !strings.Contains(page, "| wire name | `getUser`") {
		t.Errorf("get_user.md lacks the wire name:\n%s", page)
	}
	for _, f := range []string{"mcp.json", "openai.json", "anthropic.json"} {
		if data := string(files[f]); !strings.Contains(data, `"name": "getUser"`) {
			t.Errorf("%s does not name the tool getUser:\n%s", f, data)
		}
	}
}
