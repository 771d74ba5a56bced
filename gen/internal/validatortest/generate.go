package validatortest

// The tools of ./catalog use every keyword the generated one-pass
// validators compile; differential_test.go compares those validators with
// the general one, bench_test.go times a call through one. The catalog is
// compiled into the *_gen.go files of this package: run
// "go generate ./gen/internal/validatortest" after changing it.
//go:generate go tool toolcat gen ./catalog
