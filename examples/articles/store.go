package articles

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Article is an article of the in-memory Store.
type Article struct {
	ID        int64
	Title     string
	Body      string
	Tags      []string
	Published bool
}

// Store is the articles database of the example: in memory, safe for
// concurrent use. A real host would put PostgreSQL behind the same tools.
type Store struct {
	mu       sync.Mutex
	articles map[int64]*Article
	down     bool
	now      func() time.Time
}

// NewStore returns a store holding articles.
func NewStore(articles ...Article) *Store {
	s := &Store{articles: map[int64]*Article{}, now: time.Now}
	for _, a := range articles {
		s.articles[a.ID] = &a
	}
	return s
}

// SetDown makes the store answer as if the database were unreachable.
func (s *Store) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

func (s *Store) get(id int64) (Article, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return Article{}, false, errDown
	}
	a, ok := s.articles[id]
	if !ok {
		return Article{}, false, nil
	}
	return *a, true, nil
}

var errDown = fmt.Errorf("articles database unreachable")

// search returns the articles whose title or tags contain every keyword.
func (s *Store) search(query string, limit int) ([]Article, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return nil, errDown
	}
	words := strings.Fields(strings.ToLower(query))
	var out []Article
	for _, a := range s.articles {
		text := strings.ToLower(a.Title + " " + strings.Join(a.Tags, " "))
		match := true
		for _, w := range words {
			if !strings.Contains(text, w) {
				match = false
				break
			}
		}
		if match {
			out = append(out, *a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// setPublished publishes or unpublishes an article.
func (s *Store) setPublished(id int64, published bool) (time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return time.Time{}, errDown
	}
	a, ok := s.articles[id]
	if !ok {
		return time.Time{}, errNotFound
	}
	a.Published = published
	return s.now().UTC().Truncate(time.Second), nil
}

var (
	errNotFound = fmt.Errorf("no such article")
	errExists   = fmt.Errorf("an article has this id already")
)

// remove deletes an article and returns it as it was.
func (s *Store) remove(id int64) (Article, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return Article{}, time.Time{}, errDown
	}
	a, ok := s.articles[id]
	if !ok {
		return Article{}, time.Time{}, errNotFound
	}
	delete(s.articles, id)
	return *a, s.now().UTC().Truncate(time.Second), nil
}

// restore puts back an article that remove took out.
func (s *Store) restore(a Article) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return errDown
	}
	if _, ok := s.articles[a.ID]; ok {
		return errExists
	}
	s.articles[a.ID] = &a
	return nil
}

// Article returns the article id as the store holds it.
func (s *Store) Article(id int64) (Article, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.articles[id]
	if !ok {
		return Article{}, false
	}
	return *a, true
}

// Fetcher downloads a web page; the example's host plugs in a fake one.
type Fetcher func(ctx context.Context, url string, maxChars int) (title, text string, err error)

// New returns the implementations of every tool, over store and fetch.
func New(store *Store, fetch Fetcher) Tools {
	return Tools{
		FetchWebPage:            &fetchWebPage{fetch: fetch},
		DeleteArticle:           &deleteArticle{store: store},
		GetArticleByID:          &getArticleByID{store: store},
		PublishArticle:          &publishArticle{store: store},
		SearchArticlesByKeyword: &searchArticlesByKeyword{store: store},
	}
}
