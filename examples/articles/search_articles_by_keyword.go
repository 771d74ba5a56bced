package articles

import (
	"context"
	"errors"
)

// searchArticlesByKeyword implements the tool search_articles_by_keyword.
type searchArticlesByKeyword struct {
	store *Store
}

var _ SearchArticlesByKeyword = (*searchArticlesByKeyword)(nil)

// Execute does the work of search_articles_by_keyword.
func (t *searchArticlesByKeyword) Execute(ctx context.Context, args *SearchArticlesByKeywordArgs) (*SearchArticlesByKeywordResult, error) {
	found, err := t.store.search(args.Query, int(args.MaxResults))
	if errors.Is(err, errDown) {
		return nil, SearchArticlesByKeywordDependencyUnavailable(err.Error())
	}
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, SearchArticlesByKeywordNotFound("no article matches " + args.Query)
	}
	res := &SearchArticlesByKeywordResult{Articles: []SearchArticlesByKeywordResultArticlesItem{}}
	for _, a := range found {
		res.Articles = append(res.Articles, SearchArticlesByKeywordResultArticlesItem{ID: a.ID, Title: a.Title})
	}
	return res, nil
}
