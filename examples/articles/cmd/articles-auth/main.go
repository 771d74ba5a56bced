// Command articles-auth is a development authorization server, to try
// articles-serve's OAuth on one machine: an OpenID provider in memory
// (runtime/mcpserver/oauth/oauthtest) whose users log in without a
// password. Never use it beyond a laptop.
//
//	articles-auth --addr 127.0.0.1:9000
//
// Users: alice may be granted every scope of the example catalog, bob
// db:read:articles and net:http:get only. Clients: articles-client
// (authorization code with PKCE, for an MCP client) and agent (client
// credentials, for scripts), with the secrets it prints.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/toolcat/toolcat/runtime/mcpserver/oauth/oauthtest"
)

// scopes are the capability_required of the example catalog's tools.
var scopes = []string{"db:read:articles", "net:http:get", "cms:publish:articles", "cms:delete:articles"}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

func run(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("articles-auth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:9000", "listen on `ADDR`; the issuer is http://ADDR")
	redirect := fs.String("redirect-uri", "http://localhost:6274/oauth/callback", "the `URL` articles-client may be sent back to (default: the MCP inspector's)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	p, err := oauthtest.New(*addr, map[string][]string{"alice": scopes, "bob": scopes[:2]},
		oauthtest.Client{ID: "articles-client", Secret: "articles-client-secret", RedirectURI: *redirect},
		oauthtest.Client{ID: "agent", Secret: "agent-secret", Scopes: scopes[:2]})
	if err != nil {
		fmt.Fprintln(stderr, "articles-auth:", err)
		return 2
	}
	defer p.Close()
	fmt.Fprintf(stderr, "articles-auth: issuer %s (development only: no passwords, all in memory)\n", p.URL)
	fmt.Fprintf(stderr, "articles-auth: users alice (every scope), bob (%s %s)\n", scopes[0], scopes[1])
	fmt.Fprintf(stderr, "articles-auth: clients articles-client/articles-client-secret (authorization code, back to %s), agent/agent-secret (client credentials)\n", *redirect)
	<-ctx.Done()
	return 0
}
