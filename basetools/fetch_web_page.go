package basetools

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// fetchWebPage implements the tool fetch_web_page.
type fetchWebPage struct{}

var _ FetchWebPage = (*fetchWebPage)(nil)

// Execute does the work of fetch_web_page.
func (t *fetchWebPage) Execute(ctx context.Context, args *FetchWebPageArgs) (*FetchWebPageResult, error) {
	return nil, runtime.ErrNotImplemented
}
