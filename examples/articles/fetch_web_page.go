package articles

import "context"

// fetchWebPage implements the tool fetch_web_page. The catalog marks it
// returns_untrusted, so the runtime wraps what it returns as untrusted data.
type fetchWebPage struct {
	fetch Fetcher
}

var _ FetchWebPage = (*fetchWebPage)(nil)

// Execute does the work of fetch_web_page.
func (t *fetchWebPage) Execute(ctx context.Context, args *FetchWebPageArgs) (*FetchWebPageResult, error) {
	title, text, err := t.fetch(ctx, args.URL, int(args.MaxChars))
	if err != nil {
		return nil, FetchWebPageExternalError(err.Error())
	}
	if r := []rune(text); len(r) > int(args.MaxChars) {
		text = string(r[:args.MaxChars])
	}
	res := &FetchWebPageResult{URL: args.URL, Text: text}
	if title != "" {
		res.Title = &title
	}
	return res, nil
}
