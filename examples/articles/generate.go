package articles

// The catalog in ./catalog is compiled into the *_gen.go files of this
// package, and written as the model reads it into docs/; run
// "go generate ./examples/articles" after changing it.
//go:generate go tool toolcat gen ./catalog
//go:generate go tool toolcat docs --out docs ./catalog
