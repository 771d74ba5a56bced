package validatortest

import (
	"testing"

	"github.com/toolcat/toolcat/conformance"
)

// conformanceTools returns the implementations that TestConformance
// checks. They are the scaffolded stubs: this package tests the generated
// validators, so the check that the tools are implemented is skipped, and
// the others (generated arguments, valid and invalid, against the
// validators) run.
func conformanceTools(t *testing.T) (Tools, conformance.Options) {
	impls := Tools{
		AssignTask:     &assignTask{},
		CreateEvent:    &createEvent{},
		FindContact:    &findContact{},
		ListInvoices:   &listInvoices{},
		LogNote:        &logNote{},
		PingHost:       &pingHost{},
		SearchNotes:    &searchNotes{},
		UpdateSettings: &updateSettings{},
	}
	stub := map[conformance.Check]string{conformance.CheckImplemented: "the tools are stubs; the package tests the validators"}
	opts := conformance.Options{Skip: map[string]map[conformance.Check]string{
		"assign_task":     stub,
		"create_event":    stub,
		"find_contact":    stub,
		"list_invoices":   stub,
		"log_note":        stub,
		"ping_host":       stub,
		"update_settings": stub,
	}}
	return impls, opts
}
