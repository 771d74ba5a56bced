package tickets

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolcat/toolcat/runtime"
)

// notifyOncallEngineer implements the tool notify_oncall_engineer: high
// risk, so a supervised session holds each call with its dry-run preview
// until the user approves it.
type notifyOncallEngineer struct {
	desk *Desk
}

var _ NotifyOncallEngineer = (*notifyOncallEngineer)(nil)

func pageError(err error) error {
	if errors.Is(err, errPagerDown) {
		return NotifyOncallEngineerDependencyUnavailable(err.Error())
	}
	return err
}

// Execute does the work of notify_oncall_engineer.
func (t *notifyOncallEngineer) Execute(ctx context.Context, args *NotifyOncallEngineerArgs) (*NotifyOncallEngineerResult, error) {
	who, err := t.desk.oncall()
	if err != nil {
		return nil, pageError(err)
	}
	id, err := t.desk.page(who, args.TicketID, args.Message)
	if err != nil {
		return nil, pageError(err)
	}
	return &NotifyOncallEngineerResult{PageID: id, Engineer: who}, nil
}

// DryRun previews what Execute would do, changing nothing.
func (t *notifyOncallEngineer) DryRun(ctx context.Context, args *NotifyOncallEngineerArgs) (*runtime.Preview, error) {
	who, err := t.desk.oncall()
	if err != nil {
		return nil, pageError(err)
	}
	return &runtime.Preview{
		Summary: fmt.Sprintf("would page %s about %s", who, args.TicketID),
		Effects: []string{fmt.Sprintf("their phone rings until they acknowledge; it shows %q", args.Message)},
	}, nil
}
