package main

import "context"
import "io"
import "net/http"

type liveConfig struct {
	BaseURL, APIKey, Model string
	MaxRounds              int
	Client                 *http.Client
	Approve                func(tool, preview string) bool
}

func askApproval(in io.Reader, out io.Writer, yes bool) func(string, string) bool { return nil }
func runLive(ctx context.Context, out, logs io.Writer, cfg liveConfig, msg string) error { return nil }
