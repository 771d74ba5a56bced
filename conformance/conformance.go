// Package conformance checks a tool implementation against the promises of
// its catalog entry: examples, schemas, declared errors, dry runs, reverts
// and cancellation. Generated conformance tests call it.
//
// The harness is not part of this release yet.
package conformance
