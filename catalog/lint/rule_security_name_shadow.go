package lint

import "github.com/toolcat/toolcat/runtime/toolscan"

// SecurityNameShadow flags text in a tool definition aimed at the model (see security.go).
var SecurityNameShadow = &Rule{
	ID:       "SECURITY_NAME_SHADOW",
	Category: "security",
	Purpose:  "Checks that no tool name imitates another: a name with letters outside ASCII, or one whose skeleton (look-alike letters folded, digits read as letters, separators dropped) equals another tool's.",
	Check:    forEachSecurityFinding(toolscan.NameShadow, "give the tool a name of its own in ASCII"),
}
