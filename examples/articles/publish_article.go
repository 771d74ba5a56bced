package articles

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolcat/toolcat/runtime"
)

// publishArticle implements the tool publish_article.
type publishArticle struct {
	store *Store
}

var _ PublishArticle = (*publishArticle)(nil)

func (t *publishArticle) draft(id int64) (Article, error) {
	a, ok, err := t.store.get(id)
	switch {
	case errors.Is(err, errDown):
		return a, runtime.DependencyUnavailable(err.Error())
	case err != nil:
		return a, err
	case !ok:
		return a, PublishArticleNotFound(fmt.Sprintf("no draft has id %d", id))
	}
	return a, nil
}

// Execute does the work of publish_article.
func (t *publishArticle) Execute(ctx context.Context, args *PublishArticleArgs) (*PublishArticleResult, error) {
	if _, err := t.draft(args.ArticleID); err != nil {
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
	a, err := t.draft(args.ArticleID)
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
