package basetools

// The catalog in ./catalog is compiled into the *_gen.go files of this
// package; run "go generate ./basetools" after changing it.
//go:generate go tool toolcat gen ./catalog
