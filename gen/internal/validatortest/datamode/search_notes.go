package validatortest

import (
	"context"
)

// searchNotes implements the tool search_notes: it returns up to two notes
// titled after the query, which is all the benchmark needs.
type searchNotes struct{}

var _ SearchNotes = (*searchNotes)(nil)

// Execute does the work of search_notes.
func (t *searchNotes) Execute(ctx context.Context, args *SearchNotesArgs) (*SearchNotesResult, error) {
	n := min(int(args.MaxResults), 2)
	res := &SearchNotesResult{Notes: make([]SearchNotesResultNotesItem, n), Total: int64(n)}
	for i := range n {
		res.Notes[i] = SearchNotesResultNotesItem{ID: int64(i + 1), Title: args.Query}
	}
	return res, nil
}
