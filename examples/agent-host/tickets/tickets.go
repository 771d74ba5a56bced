package tickets

// The domain tools of the example agent host (examples/agent-host): an
// on-call assistant's tracker and pager, compiled by toolcat from ./catalog
// (the package doc is in toolcat_gen.go), with the bodies written by hand
// over an in-memory Desk.

// New returns the implementations of the catalog's tools over desk, for
// NewRegistry.
func New(desk *Desk) Tools {
	return Tools{
		CreateTicket:         &createTicket{desk: desk},
		GetTicket:            &getTicket{desk: desk},
		GetTicketSnapshot:    &getTicketSnapshot{desk: desk},
		NotifyOncallEngineer: &notifyOncallEngineer{desk: desk},
	}
}
