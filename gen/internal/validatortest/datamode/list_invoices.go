package validatortest

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// listInvoices implements the tool list_invoices.
type listInvoices struct{}

var _ ListInvoices = (*listInvoices)(nil)

// Execute does the work of list_invoices.
func (t *listInvoices) Execute(ctx context.Context, args *ListInvoicesArgs) (ListInvoicesResult, error) {
	return nil, runtime.ErrNotImplemented
}
