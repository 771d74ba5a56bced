// Package validatortest (in directory datamode) is the catalog of the
// package above compiled with --validators=data: its tools' validators
// are static descriptors read by runtime.DataPass where the descriptor
// covers the schema, one-pass code elsewhere. Its tests compare them with
// the general validator and with the code-mode validators of the package
// above. Run "go generate ./gen/internal/validatortest/datamode" after
// changing the catalog.
package validatortest

//go:generate go tool toolcat gen --validators=data ../catalog
