package lint

import "github.com/toolcat/toolcat/runtime/toolscan"

// SecuritySecretAccess flags text in a tool definition aimed at the model (see security.go).
var SecuritySecretAccess = &Rule{
	ID:       "SECURITY_SECRET_ACCESS",
	Category: "security",
	Purpose:  "Checks that no text tells the model to read secrets or private data: sensitive files (~/.ssh, .env, cloud and tool credentials, mcp.json), keys, tokens, passwords, the conversation or the system prompt. A sensitive file named without an order to read it is reported only in a default, constant or enum value.",
	Check:    forEachSecurityFinding(toolscan.SecretAccess, "a tool takes what it needs as arguments the user sees; remove the order"),
}
