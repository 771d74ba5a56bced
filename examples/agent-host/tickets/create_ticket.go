package tickets

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolcat/toolcat/runtime"
)

// createTicket implements the tool create_ticket. The runtime makes a
// retry with the same idempotency key replay the first result instead of
// filing the ticket twice; Revert (a session's undo) withdraws the ticket.
type createTicket struct {
	desk *Desk
}

var _ CreateTicket = (*createTicket)(nil)

func createError(err error) error {
	if errors.Is(err, errTrackerDown) {
		return CreateTicketDependencyUnavailable(err.Error())
	}
	return err
}

// Execute does the work of create_ticket.
func (t *createTicket) Execute(ctx context.Context, args *CreateTicketArgs) (*CreateTicketResult, error) {
	tk, err := t.desk.create(args.Title, string(args.Priority))
	if err != nil {
		return nil, createError(err)
	}
	return &CreateTicketResult{TicketID: tk.ID, Title: tk.Title, Priority: CreateTicketResultPriority(tk.Priority)}, nil
}

// DryRun previews what Execute would do, changing nothing.
func (t *createTicket) DryRun(ctx context.Context, args *CreateTicketArgs) (*runtime.Preview, error) {
	id, err := t.desk.nextID()
	if err != nil {
		return nil, createError(err)
	}
	return &runtime.Preview{
		Summary: fmt.Sprintf("would file ticket %s", id),
		Effects: []string{fmt.Sprintf("%q is filed with priority %s", args.Title, args.Priority)},
	}, nil
}

// Revert undoes a call of create_ticket that returned result.
func (t *createTicket) Revert(ctx context.Context, args *CreateTicketArgs, result *CreateTicketResult) error {
	err := t.desk.withdraw(result.TicketID)
	if errors.Is(err, errNoTicket) {
		return nil // already gone: nothing to undo
	}
	return createError(err)
}
