package validatortest

import "github.com/toolcat/toolcat/runtime"

// Validators returns the constructor of each tool's generated validator,
// by tool name: the tests of package datamode compare the validators of
// the two modes with each other.
func Validators() map[string]func(*runtime.Meta) (runtime.Validator, error) {
	return map[string]func(*runtime.Meta) (runtime.Validator, error){
		"assign_task":     assignTaskValidator,
		"create_event":    createEventValidator,
		"find_contact":    findContactValidator,
		"list_invoices":   listInvoicesValidator,
		"log_note":        logNoteValidator,
		"ping_host":       pingHostValidator,
		"search_notes":    searchNotesValidator,
		"update_settings": updateSettingsValidator,
	}
}
