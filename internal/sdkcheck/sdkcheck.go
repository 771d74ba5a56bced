// Package sdkcheck proves that the tool definitions of runtime/export are
// read by the providers' official Go SDKs as they are written: each export
// unmarshals into the SDK's request types and marshals back to the same
// JSON. It is a module of its own, so that the SDKs are dependencies of
// this check only, not of toolcat; run it with `make test-sdk`.
package sdkcheck
