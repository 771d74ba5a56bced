// Package gen compiles a tool catalog into typed Go code: argument and
// result structs, one interface per tool, a registry wired to the runtime,
// conformance tests, provider definitions and docs.
//
// Code generation is not part of this release yet; the catalog model it
// builds on is package catalog.
package gen
