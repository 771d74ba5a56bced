package runtime

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClosestN(t *testing.T) {
	tools := []string{"publish_article", "search_articles_by_keyword", "get_article_by_id", "fetch_web_page"}
	tests := []struct {
		desc, name string
		want       []string
	}{
		{"a shortened name ranks its longer form first", "search_article", []string{"search_articles_by_keyword", "publish_article"}},
		{"a typo", "fetch_web_pgae", []string{"fetch_web_page"}},
		{"an extended name", "get_article_by_id_v2", []string{"get_article_by_id", "search_articles_by_keyword"}},
		{"nothing near", "send_email", nil},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got := ClosestN(tt.name, tools, 2)
			if len(got) == 0 {
				got = nil
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ClosestN(%q) (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}
