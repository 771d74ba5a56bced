package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2/clientcredentials"
)

// TestIssues: the server prints its issuer and gives the agent client a
// token for a resource, with the scopes it may have.
func TestIssues(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0"}, pw)
		pw.Close()
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("articles-auth exited %d", code)
		}
	}()
	lines := bufio.NewScanner(pr)
	var issuer string
	for lines.Scan() && issuer == "" {
		if _, rest, ok := strings.Cut(lines.Text(), "issuer "); ok {
			issuer, _, _ = strings.Cut(rest, " ")
		}
	}
	go io.Copy(io.Discard, pr)
	if issuer == "" {
		t.Fatal("articles-auth printed no issuer")
	}
	cfg := clientcredentials.Config{ClientID: "agent", ClientSecret: "agent-secret", TokenURL: issuer + "/oauth/token",
		Scopes: []string{"db:read:articles", "cms:delete:articles"}, EndpointParams: url.Values{"resource": {"http://127.0.0.1:8080/mcp"}}}
	tok, err := cfg.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok.AccessToken, ".")[1])
	var claims map[string]any
	json.Unmarshal(b, &claims)
	if claims["iss"] != issuer || claims["scope"] != "db:read:articles" || claims["aud"].([]any)[0] != "http://127.0.0.1:8080/mcp" {
		t.Errorf("claims %v", claims)
	}
}
