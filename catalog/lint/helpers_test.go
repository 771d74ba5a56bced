package lint

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
)

func TestNameWords(t *testing.T) {
	for _, tc := range []struct {
		desc, in string
		want     []string
	}{
		{"snake", "list_open_invoices", []string{"list", "open", "invoices"}},
		{"kebab and dots", "get-user.v2", []string{"get", "user", "v2"}},
		{"camel", "getUserByID", []string{"get", "user", "by", "id"}},
		{"acronym run", "parseHTTPResponse", []string{"parse", "http", "response"}},
		{"leading separator", "_draft", []string{"draft"}},
		{"digits", "top10Items", []string{"top10", "items"}},
	} {
		if got := nameWords(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%s: nameWords(%q) = %q, want %q", tc.desc, tc.in, got, tc.want)
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	for _, tc := range []struct {
		desc     string
		in       string
		min, max int
	}{
		{"empty", "", 0, 0},
		{"prose", "Lists the invoices of one customer, newest first.", 9, 14},
		{"json", `{"type":"object","properties":{"query":{"type":"string"}}}`, 12, 20},
		{"long word", strings.Repeat("a", 400), 100, 100},
	} {
		if got := estimateTokens(tc.in); got < tc.min || got > tc.max {
			t.Errorf("%s: estimateTokens = %d, want %d..%d", tc.desc, got, tc.min, tc.max)
		}
	}
}

func TestCapabilityMatches(t *testing.T) {
	for _, tc := range []struct {
		pat, capability string
		want            bool
	}{
		{"net", "net:fetch", true},
		{"net", "network:read", false},
		{"net", "net", true},
		{"fs:read*", "fs:read:workspace", true},
		{"fs:read*", "fs:readlink", true},
		{"fs:read*", "fs:write", false},
	} {
		if got := capabilityMatches(tc.pat, tc.capability); got != tc.want {
			t.Errorf("capabilityMatches(%q, %q) = %v, want %v", tc.pat, tc.capability, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"search_articles", "get_article", "postgresql"}
	for _, tc := range []struct{ in, want string }{
		{"serch_articles", "search_articles"},
		{"postgres", "postgresql"},
		{"get_articles", "get_article"},
		{"delete_everything", ""},
	} {
		if got := catalog.Closest(tc.in, names); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWalkSchema(t *testing.T) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "c.yaml", Data: []byte(`tools:
  update_record:
    description: Updates a record.
    args:
      type: object
      properties:
        tags: {type: array, items: {type: string}}
        pair: {type: array, prefixItems: [{type: string}, {type: integer}]}
        target:
          oneOf:
            - {type: object, properties: {id: {type: integer}}}
        labels: {type: object, additionalProperties: {type: string}}
        ok: true
      $defs:
        name: {type: string}
      allOf:
        - if: {properties: {x: {const: 1}}}
          then: {required: [x]}
`)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	walkSchema(cat.Tools[0], "args", func(s schemaRef) bool {
		got = append(got, s.Ptr+"@"+string(rune('0'+s.Depth)))
		return true
	})
	want := []string{
		"@1",
		"/properties/tags@2", "/properties/tags/items@3",
		"/properties/pair@2", "/properties/pair/prefixItems/0@3", "/properties/pair/prefixItems/1@3",
		"/properties/target@2", "/properties/target/oneOf/0@2", "/properties/target/oneOf/0/properties/id@3",
		"/properties/labels@2", "/properties/labels/additionalProperties@3",
		"/$defs/name@1",
		"/allOf/0@1", "/allOf/0/if@1", "/allOf/0/if/properties/x@2", "/allOf/0/then@1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("walk order:\n got %q\nwant %q", got, want)
	}
}
