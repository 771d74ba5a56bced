package lint

import "github.com/toolcat/toolcat/runtime/toolscan"

// SecurityEncodedBlob flags text in a tool definition aimed at the model (see security.go).
var SecurityEncodedBlob = &Rule{
	ID:       "SECURITY_ENCODED_BLOB",
	Category: "security",
	Purpose:  "Checks that no text holds an encoded run a person cannot read: base64 or hex that decodes to text (decoded and checked again), long base64-like runs, and runs of escapes (\\x, \\u, %xx, &#...;).",
	Check:    forEachSecurityFinding(toolscan.EncodedBlob, "write the text in clear, or move the data out of the definition"),
}
