package lint

import "github.com/toolcat/toolcat/runtime/toolscan"

// SecurityModelDirective flags text in a tool definition aimed at the model (see security.go).
var SecurityModelDirective = &Rule{
	ID:       "SECURITY_MODEL_DIRECTIVE",
	Category: "security",
	Purpose:  "Checks that no text addresses the model over the user's head: tags such as `<IMPORTANT>` or `<SYSTEM>`, orders to ignore earlier instructions or act regardless of the user, and orders to keep an action from the user. A note to the model or an [IMPORTANT] marker alone, which real servers write, is not reported.",
	Check:    forEachSecurityFinding(toolscan.Directive, "say what the tool does to the user who reads the catalog, not to the model"),
}
