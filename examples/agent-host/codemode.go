package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"

	"github.com/tiktoken-go/tokenizer"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
	"github.com/toolcat/toolcat/gen"
	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/codemode"
	"github.com/toolcat/toolcat/runtime/codemode/tsdecl"
	"github.com/toolcat/toolcat/runtime/export"
)

// codeModeScript is the scripted conversation in code mode: the model is
// offered search_api and execute_code, and writes one program.
//
//go:embed codemode.json
var codeModeScript []byte

// useCodeMode makes h answer in code mode: the model is offered
// search_api and execute_code (runtime/codemode) instead of a definition
// per tool. The session lists hidden tools to the program as it does to a
// provider's own search (SessionProviderSearch): search_api is the search.
func (h *host) useCodeMode(id string) {
	h.sess = h.reg.Session(id,
		runtime.SessionSender("user-1"),
		runtime.SessionAutonomy(runtime.AutonomySupervised),
		runtime.SessionUndoTool(true),
		runtime.SessionProviderSearch(true),
	)
	h.mode = codemode.New(h.reg)
}

// dispatch makes a call of the model: through code mode when the host uses
// it, else through the session.
func (h *host) dispatch(ctx context.Context, name string, args []byte) runtime.Result {
	if h.mode != nil {
		return h.mode.Call(ctx, h.sess, name, args, runtime.CallOptions{})
	}
	return h.sess.Call(ctx, name, args, runtime.CallOptions{})
}

// printOffer prints, in code mode, what each offer costs the model: code
// mode's two definitions against one definition per tool (as Anthropic's
// API takes them), in o200k_base tokens.
func (h *host) printOffer(ctx context.Context, out io.Writer) error {
	tools, err := h.sess.Tools(ctx)
	if err != nil {
		return err
	}
	perTool, err := tokensOf(export.Anthropic(tools, export.IncludeHidden()))
	if err != nil {
		return err
	}
	code, err := tokensOf(export.Anthropic(h.mode.Tools()))
	if err != nil {
		return err
	}
	decl, err := tokensOf(tsdecl.File(tools), nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "host: code mode's 2 definitions take %d tokens; the %d tools' own definitions would take %d; all their declarations, which search_api cuts from, %d\n",
		code, len(tools), perTool, decl)
	return nil
}

// o200k is the tokenizer, made when the program starts: before code
// mode bounds regexp2's matches (codemode.MaxRegexpMatch), which under
// load a match over a 1,000-tool catalog's text can outlast.
var o200k, o200kErr = tokenizer.Get(tokenizer.O200kBase)

func codec() (tokenizer.Codec, error) { return o200k, o200kErr }

// tokensOf counts the o200k_base tokens of b, as toolcat docs does.
func tokensOf(b []byte, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	c, err := codec()
	if err != nil {
		return 0, err
	}
	return c.Count(string(b))
}

// tokenRow is what code mode costs against a definition per tool, for a
// synthetic catalog of Tools tools.
type tokenRow struct {
	Tools    int
	PerTool  int // every tool's definition, as Anthropic's API takes them
	CodeMode int // search_api and execute_code
	// PerMatch is what search_api returns for one tool, on average.
	PerMatch int
	// All is every tool's declaration, with the envelope's.
	All int
}

// tokenFigures measures code mode against a definition per tool for
// catalogs of the given sizes (catalog/catalogtest's synthetic tools: 7 to
// 10 arguments each, enums, bounds, patterns, error hints).
func tokenFigures(sizes ...int) ([]tokenRow, error) {
	code, err := tokensOf(export.Anthropic(codemode.New(runtime.New()).Tools()))
	if err != nil {
		return nil, err
	}
	prelude, err := tokensOf([]byte(tsdecl.Prelude), nil)
	if err != nil {
		return nil, err
	}
	var rows []tokenRow
	for _, n := range sizes {
		cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: catalogtest.YAML(n)})
		if err != nil {
			return nil, err
		}
		metas := gen.Metas(cat)
		per, err := tokensOf(export.Anthropic(metas))
		if err != nil {
			return nil, err
		}
		all, err := tokensOf(tsdecl.File(metas), nil)
		if err != nil {
			return nil, err
		}
		rows = append(rows, tokenRow{Tools: n, PerTool: per, CodeMode: code, PerMatch: (all - prelude) / n, All: all})
	}
	return rows, nil
}

// printTokenFigures prints tokenFigures as a table.
func printTokenFigures(out io.Writer, sizes ...int) error {
	rows, err := tokenFigures(sizes...)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "\n== What the model is sent, in o200k_base tokens (synthetic catalogs)")
	fmt.Fprintf(out, "%8s  %22s  %22s  %18s  %20s\n", "tools", "a definition per tool", "code mode, 2 tools", "per search match", "every declaration")
	for _, r := range rows {
		fmt.Fprintf(out, "%8d  %22d  %15d (%3.1f%%)  %18d  %20d\n", r.Tools, r.PerTool, r.CodeMode, 100*float64(r.CodeMode)/float64(r.PerTool), r.PerMatch, r.All)
	}
	return nil
}
