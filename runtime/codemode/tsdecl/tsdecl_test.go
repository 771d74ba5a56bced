package tsdecl_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/codemode/tsdecl"
)

func TestDeclaration(t *testing.T) {
	for _, tc := range []struct {
		desc string
		meta runtime.Meta
		want string
	}{{
		desc: "arguments, result, errors",
		meta: runtime.Meta{
			Name:        "search_articles",
			Description: "Full-text search on article titles and tags.\nUse when: the user names a topic. */ not the end",
			ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["query"],"properties":{
				"query":{"type":"string","minLength":2,"description":"Keywords"},
				"max_results":{"type":"integer","minimum":1,"maximum":20,"default":5},
				"sort":{"type":"string","enum":["relevance","date"]},
				"since":{"type":["string","null"],"format":"date"},
				"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true}}}`),
			ResultSchema: json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/item"}}},"$defs":{"item":{"type":"object","required":["id"],"properties":{"id":{"type":"integer"},"related":{"$ref":"#/$defs/item"}}}}}`),
			ErrorHints:   map[runtime.Code]string{runtime.CodeNotFound: "No article matched. Try broader keywords."},
		},
		want: `type SearchArticlesArgs = {
  /**
   * Keywords
   * At least 2 characters.
   */
  query: string;
  /** Minimum 1, maximum 20, default 5. */
  max_results?: number;
  sort?: "relevance" | "date";
  /** Format date. */
  since?: string | null;
  /** Unique items. */
  tags?: string[];
};
type SearchArticlesResult = {
  items?: {
    id: number;
    related?: unknown;
  }[];
};
type SearchArticlesError = CommonError | ErrorOf<"not_found">;

  /**
   * Full-text search on article titles and tags.
   * Use when: the user names a topic. *∕ not the end
   * Read-only.
   * Error not_found: No article matched. Try broader keywords.
   */
  search_articles(args: SearchArticlesArgs): Result<SearchArticlesResult, SearchArticlesError>;
`,
	}, {
		desc: "no arguments, side effects, a name to quote, open objects, unions",
		meta: runtime.Meta{
			Name: "send.email-now", Description: "Sends an email.", HasSideEffects: true, Risk: runtime.RiskHigh,
			SupportsDryRun: true, Revertible: true, ReturnsUntrusted: true,
			ArgsSchema: json.RawMessage(`{"type":"object","properties":{"meta":{"type":"object"},"to":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]},"headers":{"type":"object","additionalProperties":{"type":"string"}},"mode":{"const":"now"},"both":{"allOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"number"}}}]}}}`),
		},
		want: `type SendEmailNowArgs = {
  meta?: {
    [key: string]: unknown;
  };
  to?: string | string[];
  headers?: {
    [key: string]: string;
  };
  mode?: "now";
  both?: {
    a?: string;
  } & {
    b?: number;
  };
};
type SendEmailNowResult = unknown;
type SendEmailNowError = CommonError;

  /**
   * Sends an email.
   * Side effects; risk high; the user may have to approve it; can be undone.
   * Returns outside content: its result carries untrusted, and taints the conversation.
   */
  "send.email-now"(args?: SendEmailNowArgs): Result<SendEmailNowResult, SendEmailNowError>;
`,
	}} {
		t.Run(tc.desc, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tsdecl.Declaration(&tc.meta)); diff != "" {
				t.Errorf("declaration (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFileNamesDoNotCollide(t *testing.T) {
	obj := json.RawMessage(`{"type":"object"}`)
	f := string(tsdecl.File([]runtime.Meta{{Name: "get_user", ArgsSchema: obj}, {Name: "get.user", ArgsSchema: obj}, {Name: "9lives", ArgsSchema: obj}}))
	for _, want := range []string{"type GetUserArgs =", "type GetUser2Args =", "type T9livesArgs =", "get_user(args?: GetUserArgs)", `"get.user"(args?: GetUser2Args)`, `"9lives"(args?: T9livesArgs)`, "declare const tools: Tools;"} {
		if !strings.Contains(f, want) {
			t.Errorf("file lacks %q:\n%s", want, f)
		}
	}
}

func TestBrokenSchemaIsUnknown(t *testing.T) {
	got := tsdecl.Declaration(&runtime.Meta{Name: "x", ArgsSchema: json.RawMessage(`{"type":`), ResultSchema: json.RawMessage(`{"$ref":"#"}`)})
	if !strings.Contains(got, "type XArgs = unknown;") || !strings.Contains(got, "type XResult = unknown;") {
		t.Errorf("got:\n%s", got)
	}
}

// TestFileParsesAsTypeScript reads the declarations with esbuild's
// TypeScript parser: what the model is given is valid TypeScript.
func TestFileParsesAsTypeScript(t *testing.T) {
	metas := []runtime.Meta{
		{Name: "search_articles", Description: "Search. */ /* nested", ArgsSchema: json.RawMessage(`{"type":"object","required":["q"],"properties":{"q":{"type":"string","description":"*/ closing"},"n":{"enum":[1,"two",null,true]},"t":{"type":"array","prefixItems":[{"type":"string"},{"type":"number"}],"items":{"type":"boolean"}},"weird key":{"type":"object","patternProperties":{"^x":{"type":"string"}}}}}`),
			ResultSchema: json.RawMessage(`{"oneOf":[{"type":"string"},{"type":"object","properties":{"a":{"const":{"k":[1,2]}}}}]}`),
			ErrorHints:   map[runtime.Code]string{runtime.CodeRateLimited: "Wait."}},
		{Name: "send.email-now", ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":{"anyOf":[{"type":"string"},{"type":"null"}]}}`)},
		{Name: "9lives"},
	}
	src := string(tsdecl.File(metas)) + "\nconst r = tools.search_articles({q: \"x\"});\nif (!r.success && r.error.code === \"invalid_args\") { const f: string | undefined = r.error.details?.field; }\n"
	res := api.Transform(src, api.TransformOptions{Loader: api.LoaderTS})
	for _, e := range res.Errors {
		line := ""
		if e.Location != nil {
			line = e.Location.LineText
		}
		t.Errorf("%s: %q", e.Text, line)
	}
	if t.Failed() {
		t.Logf("declarations:\n%s", src)
	}
}
