package articles

import (
	"context"
	"errors"
	"fmt"
)

// getArticleByID implements the tool get_article_by_id.
type getArticleByID struct {
	store *Store
}

var _ GetArticleByID = (*getArticleByID)(nil)

// Execute does the work of get_article_by_id.
func (t *getArticleByID) Execute(ctx context.Context, args *GetArticleByIDArgs) (*GetArticleByIDResult, error) {
	a, ok, err := t.store.get(args.ArticleID)
	if errors.Is(err, errDown) {
		return nil, GetArticleByIDDependencyUnavailable(err.Error())
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, GetArticleByIDNotFound(fmt.Sprintf("no article has id %d", args.ArticleID))
	}
	status := GetArticleByIDResultStatusDraft
	if a.Published {
		status = GetArticleByIDResultStatusPublished
	}
	return &GetArticleByIDResult{ID: a.ID, Title: a.Title, Body: a.Body, Status: status, Tags: a.Tags}, nil
}
