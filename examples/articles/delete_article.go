package articles

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolcat/toolcat/runtime"
)

// deleteArticle implements the tool delete_article. Its result holds the
// whole article, so that Revert (and a session's undo) can restore it.
type deleteArticle struct {
	store *Store
}

var _ DeleteArticle = (*deleteArticle)(nil)

// deleteError maps the store's errors to delete_article's own.
func deleteError(id int64, err error) error {
	switch {
	case errors.Is(err, errDown):
		return DeleteArticleDependencyUnavailable(err.Error())
	case errors.Is(err, errNotFound):
		return DeleteArticleNotFound(fmt.Sprintf("no article has id %d", id))
	}
	return err
}

// Execute does the work of delete_article.
func (t *deleteArticle) Execute(ctx context.Context, args *DeleteArticleArgs) (*DeleteArticleResult, error) {
	a, at, err := t.store.remove(args.ArticleID)
	if err != nil {
		return nil, deleteError(args.ArticleID, err)
	}
	return &DeleteArticleResult{
		ArticleID: a.ID,
		Title:     a.Title,
		Body:      a.Body,
		Tags:      a.Tags,
		Published: a.Published,
		DeletedAt: at,
	}, nil
}

// DryRun previews what Execute would do, changing nothing.
func (t *deleteArticle) DryRun(ctx context.Context, args *DeleteArticleArgs) (*runtime.Preview, error) {
	a, ok, err := t.store.get(args.ArticleID)
	if err == nil && !ok {
		err = errNotFound
	}
	if err != nil {
		return nil, deleteError(args.ArticleID, err)
	}
	effects := []string{fmt.Sprintf("%q is removed from the database", a.Title)}
	if a.Published {
		effects = append(effects, "readers of the site no longer find it")
	}
	return &runtime.Preview{Summary: fmt.Sprintf("would delete article %d", a.ID), Effects: effects}, nil
}

// Revert undoes a call of delete_article that returned result: it puts
// the article back as it was.
func (t *deleteArticle) Revert(ctx context.Context, args *DeleteArticleArgs, result *DeleteArticleResult) error {
	err := t.store.restore(Article{
		ID:        result.ArticleID,
		Title:     result.Title,
		Body:      result.Body,
		Tags:      result.Tags,
		Published: result.Published,
	})
	switch {
	case errors.Is(err, errDown):
		return DeleteArticleDependencyUnavailable(err.Error())
	case errors.Is(err, errExists):
		return runtime.NewError(runtime.CodeExternalError, fmt.Sprintf("article %d cannot be restored: another article has its id now", result.ArticleID))
	}
	return err
}
