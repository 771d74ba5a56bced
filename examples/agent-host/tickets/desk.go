package tickets

import (
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"
)

// Ticket is a ticket of the in-memory Desk.
type Ticket struct {
	ID       string
	Title    string
	Status   string // open, in_progress or closed
	Assignee string
	Priority string
}

// Desk is the example's tracker and paging service, in memory and safe for
// concurrent use: the tickets, a snapshot of them taken when the desk was
// made (what get_ticket_snapshot reads), and the pages sent. A real host
// would put the tracker's and the pager's APIs behind the same tools.
type Desk struct {
	mu          sync.Mutex
	tickets     map[string]Ticket
	snapshot    map[string]Ticket
	snapshotAt  time.Time
	pages       []string
	next        int
	trackerDown bool
	pagerDown   bool
	now         func() time.Time
}

// NewDesk returns a desk holding tickets; now is its clock (nil: time.Now).
func NewDesk(now func() time.Time, tickets ...Ticket) *Desk {
	if now == nil {
		now = time.Now
	}
	d := &Desk{tickets: map[string]Ticket{}, next: 100, now: now}
	for _, t := range tickets {
		d.tickets[t.ID] = t
	}
	d.snapshot = maps.Clone(d.tickets)
	d.snapshotAt = now().Add(-40 * time.Minute)
	return d
}

// SetTrackerDown makes the tracker answer as if it were unreachable; the
// snapshot still answers.
func (d *Desk) SetTrackerDown(down bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.trackerDown = down
}

// SetPagerDown makes the paging service answer as if it were unreachable.
func (d *Desk) SetPagerDown(down bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pagerDown = down
}

// Ticket returns the ticket id as the tracker holds it.
func (d *Desk) Ticket(id string) (Ticket, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.tickets[id]
	return t, ok
}

// Tickets returns how many tickets the tracker holds.
func (d *Desk) Tickets() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.tickets)
}

// Pages returns the pages sent, oldest first.
func (d *Desk) Pages() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.pages...)
}

var (
	errTrackerDown = errors.New("tracker unreachable: connection refused")
	errPagerDown   = errors.New("paging service unreachable: connection refused")
	errNoTicket    = errors.New("no such ticket")
)

func (d *Desk) get(id string) (Ticket, time.Time, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.trackerDown {
		return Ticket{}, time.Time{}, errTrackerDown
	}
	t, ok := d.tickets[id]
	if !ok {
		return Ticket{}, time.Time{}, errNoTicket
	}
	return t, d.now(), nil
}

func (d *Desk) getSnapshot(id string) (Ticket, time.Time, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.snapshot[id]
	if !ok {
		return Ticket{}, time.Time{}, errNoTicket
	}
	return t, d.snapshotAt, nil
}

// nextID is the id the next ticket would get.
func (d *Desk) nextID() (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.trackerDown {
		return "", errTrackerDown
	}
	return fmt.Sprintf("OPS-%d", d.next), nil
}

func (d *Desk) create(title, priority string) (Ticket, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.trackerDown {
		return Ticket{}, errTrackerDown
	}
	t := Ticket{ID: fmt.Sprintf("OPS-%d", d.next), Title: title, Status: "open", Priority: priority}
	d.next++
	d.tickets[t.ID] = t
	return t, nil
}

func (d *Desk) withdraw(id string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.trackerDown {
		return errTrackerDown
	}
	if _, ok := d.tickets[id]; !ok {
		return errNoTicket
	}
	delete(d.tickets, id)
	return nil
}

// oncall is who is on call now.
func (d *Desk) oncall() (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pagerDown {
		return "", errPagerDown
	}
	return "Dana (platform team)", nil
}

func (d *Desk) page(engineer, ticket, message string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pagerDown {
		return "", errPagerDown
	}
	id := fmt.Sprintf("page-%d", len(d.pages)+1)
	d.pages = append(d.pages, fmt.Sprintf("%s: %s about %s: %s", id, engineer, ticket, message))
	return id, nil
}

// state copies the desk's tickets and pages, for the conformance Probe.
// The counter of ticket ids is left out: a withdrawn ticket's id is not
// given again, as in a real tracker.
func (d *Desk) state() any {
	d.mu.Lock()
	defer d.mu.Unlock()
	return struct {
		Tickets map[string]Ticket
		Pages   []string
	}{maps.Clone(d.tickets), append([]string(nil), d.pages...)}
}
