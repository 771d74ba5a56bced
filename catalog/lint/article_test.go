package lint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/catalog"
)

// The registry of a tool-design article, as its readers paste it: it loads
// (its version, agent and last_updated are catalog metadata, its tools have
// no args), and lint reports what is really wrong with it.
func TestArticleRegistry(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "article-registry", "catalog", "tool_catalog.yaml")
	cat, err := catalog.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var meta []string
	for _, m := range cat.Metadata {
		meta = append(meta, m.Key+"="+m.Value)
	}
	if got, want := strings.Join(meta, " "), "version=1.0 agent=chat-assistant last_updated=2026-05-01"; got != want {
		t.Errorf("metadata %s; want %s", got, want)
	}
	for _, tl := range cat.Tools {
		if got := string(tl.Args.JSON()); got != `{"type":"object","properties":{},"additionalProperties":false}` {
			t.Errorf("%s: args %s; want the empty object schema", tl.Name, got)
		}
	}
	got := diagLines(Run(cat, nil))
	for i, l := range got {
		got[i] = strings.TrimPrefix(l, path+":")
	}
	want := []string{
		// Real defects: undeclared services, two-part versions, descriptions
		// that never say when (not) to use a tool, side effects at the default
		// low risk, and a retried side effect without an idempotency key.
		`14:5: warning VERSION_SEMVER: version "2.1" is not semantic versioning MAJOR.MINOR.PATCH; write "2.1.0"`,
		`19:9: error DEPENDENCY_DECLARED: dependency "ollama-embeddings" is neither a service nor a tool; declare it under services`,
		`20:9: error DEPENDENCY_DECLARED: dependency "redis-vector-store" is neither a service nor a tool; declare it under services`,
		`22:5: warning DESCRIPTION_LIMITS: description does not say when not to use the tool; add a line such as "Do not use: to ...; use other_tool instead"`,
		`22:5: warning DESCRIPTION_WHEN_TO_USE: description does not say when to use the tool; add a line such as "Use when: the user asks for ..."`,
		`30:5: warning VERSION_SEMVER: version "1.3" is not semantic versioning MAJOR.MINOR.PATCH; write "1.3.0"`,
		`35:9: error DEPENDENCY_DECLARED: dependency "postgresql" is neither a service nor a tool; declare it under services`,
		`37:5: warning DESCRIPTION_LIMITS: description does not say when not to use the tool; add a line such as "Do not use: to ...; use other_tool instead"`,
		`37:5: warning DESCRIPTION_WHEN_TO_USE: description does not say when to use the tool; add a line such as "Use when: the user asks for ..."`,
		`45:5: warning VERSION_SEMVER: version "1.0" is not semantic versioning MAJOR.MINOR.PATCH; write "1.0.0"`,
		`50:9: error DEPENDENCY_DECLARED: dependency "ollama-embeddings" is neither a service nor a tool; declare it under services`,
		`51:9: error DEPENDENCY_DECLARED: dependency "redis-vector-store" is neither a service nor a tool; declare it under services`,
		`52:9: error DEPENDENCY_DECLARED: dependency "postgresql" is neither a service nor a tool; declare it under services`,
		`54:5: warning DESCRIPTION_LIMITS: description does not say when not to use the tool; add a line such as "Do not use: to ...; use other_tool instead"`,
		`54:5: warning DESCRIPTION_WHEN_TO_USE: description does not say when to use the tool; add a line such as "Use when: the user asks for ..."`,
		"63:11: warning SIDE_EFFECT_DRY_RUN_RISK: tool has side effects that can be neither previewed nor undone, but risk is low; set risk: high, or add a dry run (supports_dry_run: true) or a revert (revertible: true), or say side_effect: additive if it only adds (creates, sends, appends)",
		`65:5: warning VERSION_SEMVER: version "1.1" is not semantic versioning MAJOR.MINOR.PATCH; write "1.1.0"`,
		`70:9: error DEPENDENCY_DECLARED: dependency "postgresql" is neither a service nor a tool; declare it under services`,
		`72:5: warning DESCRIPTION_LIMITS: description does not say when not to use the tool; add a line such as "Do not use: to ...; use other_tool instead"`,
		`72:5: warning DESCRIPTION_WHEN_TO_USE: description does not say when to use the tool; add a line such as "Use when: the user asks for ..."`,
		"78:11: warning SIDE_EFFECT_DRY_RUN_RISK: tool has side effects that can be neither previewed nor undone, but risk is low; set risk: high, or add a dry run (supports_dry_run: true) or a revert (revertible: true), or say side_effect: additive if it only adds (creates, sends, appends)",
		`80:5: warning VERSION_SEMVER: version "1.0" is not semantic versioning MAJOR.MINOR.PATCH; write "1.0.0"`,
		"83:5: error SIDE_EFFECT_RETRY_IDEMPOTENT: max_retries: 1 on a tool with side effects that is not idempotent may repeat the effect; set idempotency_required: true, idempotent: true if repeating is harmless, or max_retries: 0",
		`86:9: error DEPENDENCY_DECLARED: dependency "filter_unread_articles" is neither a service nor a tool; declare it under services`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
