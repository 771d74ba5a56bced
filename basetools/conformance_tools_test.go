package basetools

import (
	"context"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolcat/toolcat/conformance"
)

// conformanceTools returns the base tools over a temporary workspace, with
// a shell that allows echo and ls and a web of one local test server
// answering for every host, and a Probe that snapshots the workspace.
func conformanceTools(t *testing.T) (Tools, conformance.Options) {
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{
		"README.md":        "# Demo\n\nHello from the workspace.\n",
		"notes.txt":        "first line\n",
		"docs/guide.md":    "A guide.\n",
		"src/main.go":      "package main\n",
		"src/main_test.go": "package main\n",
	})
	srv := newTestWeb(t)
	set, err := Open(Config{
		Workspace: ws,
		Shell:     ShellConfig{Allow: []string{"echo", "ls"}},
		Web:       srv.config(),
		Now:       func() time.Time { return time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	opts := conformance.Options{
		Probe:         func(context.Context) (any, error) { return snapshot(ws) },
		Deterministic: []string{"fetch_web_page", "find_files", "get_current_time", "list_dir", "read_file"},
	}
	return set.Tools(), opts
}

// writeTree writes files (slash-separated paths) under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot is every file, folder and symlink under dir with its content,
// mode or target.
func snapshot(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "symlink " + target
			return err
		case d.IsDir():
			out[rel] = "dir " + info.Mode().String()
		default:
			b, err := os.ReadFile(p)
			out[rel] = info.Mode().String() + " " + string(b)
			return err
		}
		return nil
	})
	return out, err
}

// testWeb is a TLS test server that every host name resolves to; its
// certificate is valid for example.com.
type testWeb struct {
	srv *httptest.Server
}

func newTestWeb(t testing.TB) *testWeb {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html><head><title>Example Domain</title><style>p{}</style></head>` +
			`<body><h1>Example Domain</h1><p>This domain is for use in examples.</p><script>alert(1)</script></body></html>`))
	})
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	return &testWeb{srv: srv}
}

// config resolves every name to 127.0.0.1, allows that address, and
// dials the test server whatever port the URL names.
func (w *testWeb) config() WebConfig {
	addr := w.srv.Listener.Addr().String()
	return WebConfig{
		AllowAddresses: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		RootCAs:        w.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs,
		LookupIP: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
		Timeout: 5 * time.Second,
	}
}
