package articles

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolcat/toolcat/runtime"
)

// publishArticle implements the tool publish_article. It reads the draft
// through the tool get_article_by_id (runtime.CallTool), one of its
// catalog dependencies, so that the read goes through the registry (or the
// session) as any call of that tool does.
type publishArticle struct {
	store *Store
}

var _ PublishArticle = (*publishArticle)(nil)

// draft reads article id with get_article_by_id, and maps that tool's
// errors to publish_article's own.
func (t *publishArticle) draft(ctx context.Context, id int64) (*GetArticleByIDResult, error) {
	res := runtime.CallTool(ctx, "get_article_by_id", fmt.Appendf(nil, `{"article_id":%d}`, id))
	if !res.Success {
		switch res.Error.Code {
		case runtime.CodeNotFound:
			return nil, PublishArticleNotFound(fmt.Sprintf("no draft has id %d", id))
		case runtime.CodeDependencyUnavailable:
			return nil, PublishArticleDependencyUnavailable(res.Error.Message)
		}
		return nil, res.Error
	}
	switch d := res.Data.(type) {
	case *GetArticleByIDResult:
		return d, nil
	case json.RawMessage: // a replayed or wrapped result: its JSON
		var a GetArticleByIDResult
		if err := json.Unmarshal(d, &a); err != nil {
			return nil, fmt.Errorf("reading article %d: %w", id, err)
		}
		return &a, nil
	}
	return nil, fmt.Errorf("reading article %d: get_article_by_id returned %T", id, res.Data)
}

// Execute does the work of publish_article.
func (t *publishArticle) Execute(ctx context.Context, args *PublishArticleArgs) (*PublishArticleResult, error) {
	if _, err := t.draft(ctx, args.ArticleID); err != nil {
		return nil, err
	}
	at, err := t.store.setPublished(args.ArticleID, true)
	if err != nil {
		return nil, err
	}
	return &PublishArticleResult{
		ArticleID:   args.ArticleID,
		URL:         fmt.Sprintf("https://example.com/%s/%d", args.Channel, args.ArticleID),
		PublishedAt: at,
	}, nil
}

// DryRun previews what Execute would do, changing nothing.
func (t *publishArticle) DryRun(ctx context.Context, args *PublishArticleArgs) (*runtime.Preview, error) {
	a, err := t.draft(ctx, args.ArticleID)
	if err != nil {
		return nil, err
	}
	effects := []string{fmt.Sprintf("%q becomes public on the %s", a.Title, args.Channel)}
	if args.NotifySubscribers {
		effects = append(effects, "the channel's subscribers get an email")
	}
	return &runtime.Preview{Summary: fmt.Sprintf("would publish article %d", a.ID), Effects: effects}, nil
}

// Revert undoes a call of publish_article that returned result.
func (t *publishArticle) Revert(ctx context.Context, args *PublishArticleArgs, result *PublishArticleResult) error {
	_, err := t.store.setPublished(result.ArticleID, false)
	return err
}
