package tickets

import (
	"context"
	"errors"
	"fmt"
)

// getTicket implements the tool get_ticket: the live tracker.
type getTicket struct {
	desk *Desk
}

var _ GetTicket = (*getTicket)(nil)

// Execute does the work of get_ticket.
func (t *getTicket) Execute(ctx context.Context, args *GetTicketArgs) (*GetTicketResult, error) {
	tk, at, err := t.desk.get(args.TicketID)
	switch {
	case errors.Is(err, errTrackerDown):
		return nil, GetTicketDependencyUnavailable(err.Error())
	case errors.Is(err, errNoTicket):
		return nil, GetTicketNotFound(fmt.Sprintf("no ticket has id %s", args.TicketID))
	case err != nil:
		return nil, err
	}
	res := &GetTicketResult{TicketID: tk.ID, Title: tk.Title, Status: GetTicketResultStatus(tk.Status), AsOf: &at}
	if tk.Assignee != "" {
		res.Assignee = &tk.Assignee
	}
	return res, nil
}
