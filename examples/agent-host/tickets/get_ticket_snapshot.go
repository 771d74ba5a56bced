package tickets

import (
	"context"
	"errors"
	"fmt"
)

// getTicketSnapshot implements the tool get_ticket_snapshot, the fallback
// of get_ticket: the tracker's last snapshot, which answers while the
// tracker does not.
type getTicketSnapshot struct {
	desk *Desk
}

var _ GetTicketSnapshot = (*getTicketSnapshot)(nil)

// Execute does the work of get_ticket_snapshot.
func (t *getTicketSnapshot) Execute(ctx context.Context, args *GetTicketSnapshotArgs) (*GetTicketSnapshotResult, error) {
	tk, at, err := t.desk.getSnapshot(args.TicketID)
	switch {
	case errors.Is(err, errNoTicket):
		return nil, GetTicketSnapshotNotFound(fmt.Sprintf("the snapshot has no ticket %s", args.TicketID))
	case err != nil:
		return nil, err
	}
	res := &GetTicketSnapshotResult{TicketID: tk.ID, Title: tk.Title, Status: GetTicketSnapshotResultStatus(tk.Status), AsOf: &at}
	if tk.Assignee != "" {
		res.Assignee = &tk.Assignee
	}
	return res, nil
}
