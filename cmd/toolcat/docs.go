package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/toolcat/toolcat/gen"
)

const docsDoc = `
Write the catalog as the model and reviewers read it, into the output
directory (default: docs/tools):

  index.md        the tools by category, with each one's size in tokens
  <tool>.md       what it does, when to use it and not, arguments, result,
                  errors with their suggestions, side effects, examples
  openai.json, openai-responses.json, anthropic.json, gemini.json, mcp.json
                  the tool definitions each provider is sent
  api.d.ts        every tool as TypeScript declarations: the API a model
                  programs against in code mode (runtime/codemode)
  anthropic-deferred.json, openai-responses-deferred.json
                  with --defer-hidden: the same with hidden tools deferred
                  and the provider's tool-search tool, for a host that lets
                  the provider search hidden tools

The token counts use the o200k_base encoding, which ships with toolcat.
When toolcat.yaml sets lint.prompt_budget_tokens, core tools over that
budget in total are an error (exit 1).

With --check nothing is written: docs prints a diff and exits 1 if the
directory is stale. With --tokens it prints the token report only.`

// docsManifest lists the files docs wrote, so stale ones are removed.
const docsManifest = ".toolcat-docs.manifest"

func runDocs(e *env, args []string) int {
	fs := newFlags(e, "docs", "[catalog paths]", docsDoc)
	out := fs.String("out", filepath.Join("docs", "tools"), "output directory")
	check := fs.Bool("check", false, "write nothing; print a diff and exit 1 if the docs are stale")
	tokens := fs.Bool("tokens", false, "print the token report and exit")
	deferHidden := fs.Bool("defer-hidden", false, "also write anthropic-deferred.json and openai-responses-deferred.json, hidden tools deferred for provider-side search")
	config := fs.String("config", "", "configuration file (default: toolcat.yaml beside the catalog, if any)")
	if code := parse(e, fs, args); code >= 0 {
		return code
	}
	cfg, err := loadConfig(*config, fs.Args())
	if err != nil {
		fmt.Fprintf(e.stderr, "toolcat docs: %v\n", err)
		return exitUsage
	}
	cat, ok := loadCatalog(e, "docs", "text", fs.Args())
	if !ok {
		return exitUsage
	}
	counts, err := gen.Tokens(cat)
	if err != nil {
		fmt.Fprintf(e.stderr, "toolcat docs: %v\n", err)
		return exitUsage
	}
	core := 0
	for _, c := range counts {
		if !c.Hidden {
			core += c.Tokens
		}
	}
	if *tokens {
		for _, c := range counts {
			hidden := ""
			if c.Hidden {
				hidden = " (hidden)"
			}
			fmt.Fprintf(e.stdout, "%6d  %s%s\n", c.Tokens, c.Tool, hidden)
		}
		fmt.Fprintf(e.stdout, "%6d  core tools in total (o200k_base)\n", core)
	}
	overBudget := cfg.PromptBudgetTokens > 0 && core > cfg.PromptBudgetTokens
	if overBudget {
		fmt.Fprintf(e.stderr, "toolcat docs: the core tools take %d tokens, over the prompt budget of %d; shorten descriptions or make tools hidden\n", core, cfg.PromptBudgetTokens)
	}
	if *tokens {
		if overBudget {
			return exitFindings
		}
		return exitOK
	}
	files, err := gen.Docs(cat)
	if err != nil {
		fmt.Fprintf(e.stderr, "toolcat docs: %v\n", err)
		return exitUsage
	}
	if *deferHidden {
		deferred, err := gen.DeferredDefinitions(cat)
		if err != nil {
			fmt.Fprintf(e.stderr, "toolcat docs: %v\n", err)
			return exitUsage
		}
		maps.Copy(files, deferred)
	}
	stale, err := syncDir(e, *out, files, docsManifest, *check)
	if err != nil {
		fmt.Fprintf(e.stderr, "toolcat docs: %v\n", err)
		return exitUsage
	}
	if *check && stale {
		fmt.Fprintf(e.stderr, "toolcat docs: %s is stale: run toolcat docs\n", *out)
		return exitFindings
	}
	if overBudget {
		return exitFindings
	}
	return exitOK
}

// syncDir makes dir hold files: it writes the ones that changed and
// removes the ones a previous run wrote (listed in the manifest) that are
// no longer produced. With check it only prints a diff; it reports
// whether anything differed.
func syncDir(e *env, dir string, files map[string][]byte, manifest string, check bool) (bool, error) {
	var oldRaw []byte
	old, _ := readManifest(filepath.Join(dir, manifest), &oldRaw)
	newMan := makeManifest(files, nil)
	stale := !bytes.Equal(oldRaw, newMan)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join(dir, name)
		cur, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			return false, err
		}
		if bytes.Equal(cur, files[name]) {
			continue
		}
		stale = true
		if check {
			e.stdout.Write(diff.Diff(path+" (on disk)", cur, path+" (generated)", files[name]))
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, err
		}
		if err := writeAtomic(path, files[name]); err != nil {
			return false, err
		}
		fmt.Fprintf(e.stdout, "wrote %s\n", path)
	}
	for _, name := range old {
		if _, ok := files[name]; ok {
			continue
		}
		path := filepath.Join(dir, name)
		cur, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		stale = true
		if check {
			e.stdout.Write(diff.Diff(path+" (on disk)", cur, path+" (generated)", nil))
			continue
		}
		if err := os.Remove(path); err != nil {
			return false, err
		}
		fmt.Fprintf(e.stdout, "removed %s\n", path)
	}
	if !check && !bytes.Equal(oldRaw, newMan) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, err
		}
		if err := writeAtomic(filepath.Join(dir, manifest), newMan); err != nil {
			return false, err
		}
	}
	return stale, nil
}
