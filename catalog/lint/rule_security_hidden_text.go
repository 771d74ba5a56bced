package lint

import "github.com/toolcat/toolcat/runtime/toolscan"

// SecurityHiddenText flags text in a tool definition aimed at the model (see security.go).
var SecurityHiddenText = &Rule{
	ID:       "SECURITY_HIDDEN_TEXT",
	Category: "security",
	Purpose:  "Checks that no text a model reads holds characters a person reading it does not see: zero-width and format characters, bidirectional overrides, Unicode tag characters (decoded and checked again), controls, and words that mix Latin with Cyrillic or Greek look-alikes.",
	Check:    forEachSecurityFinding(toolscan.HiddenText, "remove the invisible characters and write the word in one script"),
}
