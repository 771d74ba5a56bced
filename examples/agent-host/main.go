// Command agent-host is an example agent host: it loads the base tools
// (basetools, over a temporary workspace) and its own domain tools
// (./tickets) into one registry, and runs one conversation through a
// runtime.Session.
//
// By default it replays the scripted conversation of conversation.json —
// the model's tool calls, written down — and prints every envelope as the
// model reads it; no model and no network are needed:
//
//	go run ./examples/agent-host
//
// With --live, and OPENAI_BASE_URL and OPENAI_API_KEY set, it talks to an
// OpenAI-compatible chat-completions endpoint instead: it sends the
// session's tool definitions, runs the tool calls the model makes and
// feeds the envelopes back as tool messages until the model answers:
//
//	OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=... \
//	  go run ./examples/agent-host --live "is OPS-12 fixed yet?"
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

//go:embed conversation.json
var defaultScript []byte

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// Main is the program, testable: it returns the exit code (0 done, 1 a
// failure, 2 a usage error).
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("agent-host", flag.ContinueOnError)
	fs.SetOutput(stderr)
	script := fs.String("script", "", "a scripted conversation to replay (JSON, as conversation.json); default: the built-in one")
	live := fs.Bool("live", false, "talk to the chat-completions endpoint at $OPENAI_BASE_URL with $OPENAI_API_KEY; the arguments are the user's message")
	model := fs.String("model", "", "the model asked, with --live (default $OPENAI_MODEL, else gpt-4o-mini)")
	rounds := fs.Int("max-rounds", 10, "with --live, requests to the model at most before giving up")
	yes := fs.Bool("yes", false, "with --live, approve every call that needs approval without asking")
	traced := fs.Bool("trace", false, "print the conversation's OpenTelemetry spans after it (with $OTEL_EXPORTER_OTLP_ENDPOINT set they are sent over OTLP/HTTP too)")
	codeMode := fs.Bool("code-mode", false, "replay the conversation in code mode (codemode.json, or --script): the model is offered search_api and execute_code, then the token figures")
	figures := fs.Bool("token-figures", true, "with --code-mode, print the token figures of code mode against a definition per tool after the conversation")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: agent-host [--trace] [--script file.json]\n       agent-host --live [--trace] [--model m] [--yes] message...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	ctx := context.Background()
	tr, err := startTracing(ctx, *traced, getenv, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "agent-host:", err)
		return 2
	}
	defer func() {
		if err := tr.shutdown(ctx); err != nil {
			fmt.Fprintln(stderr, "agent-host: exporting the spans and metrics:", err)
		}
	}()
	if !*live {
		if fs.NArg() > 0 {
			fmt.Fprintln(stderr, "agent-host: a message is only read with --live")
			return 2
		}
		data := defaultScript
		if *codeMode {
			data = codeModeScript
		}
		if *script != "" {
			var err error
			if data, err = readLimited(*script, 1<<20); err != nil {
				fmt.Fprintln(stderr, "agent-host:", err)
				return 2
			}
		}
		s, err := parseScript(data)
		if err != nil {
			fmt.Fprintln(stderr, "agent-host:", err)
			return 2
		}
		ctx, end := tr.conversation(ctx, s.Session)
		_, err = replayIn(ctx, stdout, stderr, s, *codeMode, tr.options()...)
		end(err)
		if err != nil {
			fmt.Fprintln(stderr, "agent-host:", err)
			return 1
		}
		if *codeMode && *figures {
			if err := printTokenFigures(stdout, 50, 1000, 5000); err != nil {
				fmt.Fprintln(stderr, "agent-host:", err)
				return 1
			}
		}
		return 0
	}

	base, key := getenv("OPENAI_BASE_URL"), getenv("OPENAI_API_KEY")
	if base == "" || key == "" {
		fmt.Fprintln(stderr, "agent-host: --live needs OPENAI_BASE_URL and OPENAI_API_KEY")
		return 2
	}
	msg := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if msg == "" {
		fmt.Fprintln(stderr, "agent-host: --live needs the user's message as arguments")
		return 2
	}
	m := *model
	if m == "" {
		m = getenv("OPENAI_MODEL")
	}
	if m == "" {
		m = "gpt-4o-mini"
	}
	if *rounds < 1 {
		fmt.Fprintln(stderr, "agent-host: --max-rounds must be at least 1")
		return 2
	}
	cfg := liveConfig{
		BaseURL:   base,
		APIKey:    key,
		Model:     m,
		MaxRounds: *rounds,
		Client:    &http.Client{Timeout: 2 * time.Minute},
		Approve:   askApproval(stdin, stderr, *yes),
	}
	ctx, end := tr.conversation(ctx, "live-conversation")
	err = runLive(ctx, stdout, stderr, cfg, msg, tr.options()...)
	end(err)
	if err != nil {
		fmt.Fprintln(stderr, "agent-host:", err)
		return 1
	}
	return 0
}

// readLimited reads a file of at most limit bytes.
func readLimited(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, limit)
	}
	return data, nil
}
