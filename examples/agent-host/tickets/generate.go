package tickets

// The catalog in ./catalog is compiled into the *_gen.go files of this
// package; run "go generate ./examples/agent-host/tickets" after changing it.
//go:generate go tool toolcat gen ./catalog
