package lint

import "github.com/toolcat/toolcat/runtime/toolscan"

// SecurityExfiltration flags text in a tool definition aimed at the model (see security.go).
var SecurityExfiltration = &Rule{
	ID:       "SECURITY_EXFILTRATION",
	Category: "security",
	Purpose:  "Checks that no text sends data out: addresses of data collectors, URLs whose parameters are to be filled with data, orders to send, copy or forward to an address or to change a recipient, and orders to pass content along inside an argument.",
	Check:    forEachSecurityFinding(toolscan.Exfiltration, "remove the address or the order; a destination is an argument the user sees"),
}
