package lint

import "github.com/toolcat/toolcat/runtime/toolscan"

// SecurityToolSteering flags text in a tool definition aimed at the model (see security.go).
var SecurityToolSteering = &Rule{
	ID:       "SECURITY_TOOL_STEERING",
	Category: "security",
	Purpose:  "Checks that texts send the model only to tools the catalog knows: an order to call or avoid a tool that is neither a tool of the catalog nor a declared dependency or fallback_tool is reported, and so is an order that changes how other tools behave (when this tool is available, before using any other tool).",
	Check:    forEachSecurityFinding(toolscan.ToolSteering, "declare the tool under dependencies or fallback_tool, or remove the order"),
}
