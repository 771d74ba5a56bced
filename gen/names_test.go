package gen

import (
	"go/token"
	"testing"
)

// Every name gives an exported identifier, whatever its letters: a field
// whose name is not exported is one encoding/json cannot fill.
func TestExported(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"search_articles", "SearchArticles"},
		{"user_id", "UserID"},
		{"api-url", "APIURL"},
		{"2fa_code", "X2faCode"},
		{"Ünï", "Xn"},
		{"ünï_kind", "XnKind"},
		{"€", "X"},
		{"", "X"},
		{"-", "X"},
	} {
		got := exported(c.in)
		if got != c.want {
			t.Errorf("exported(%q) = %q; want %q", c.in, got, c.want)
		}
		if !token.IsExported(got) || !token.IsIdentifier(got) {
			t.Errorf("exported(%q) = %q, not an exported identifier", c.in, got)
		}
	}
}
