package export

import (
	"encoding/json"

	"github.com/toolcat/toolcat/runtime"
)

// testMetas covers the cases each exporter treats apart: a schema that
// qualifies for OpenAI strict mode and ones that do not, nullable
// properties, $ref/$defs with recursion, const, oneOf, formats and bounds
// Gemini lacks, a hidden tool, and read-only, additive and destructive
// tools, and a tool with example requests (queries), which no export
// shows.
func testMetas() []runtime.Meta {
	return []runtime.Meta{
		{
			// Listed out of order: exports sort by name.
			Name:        "update_ticket_status",
			Description: "Moves a support ticket to another status.\nUse when: the user resolves or reopens a ticket.\n",
			Risk:        runtime.RiskLow, HasSideEffects: true, Idempotent: true, Revertible: true,
			Exposure: runtime.ExposureCore,
			// Strict-qualifying: closed, all required, optional one nullable.
			ArgsSchema:   json.RawMessage(`{"type":"object","additionalProperties":false,"required":["ticket_id","status","note"],"properties":{"ticket_id":{"type":"string","pattern":"^T-[0-9]+$","description":"Ticket id, such as T-42."},"status":{"type":"string","enum":["open","pending","closed"]},"note":{"type":["string","null"],"description":"Why, for the ticket history; null for none."}}}`),
			ResultSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["ticket_id","status"],"properties":{"ticket_id":{"type":"string"},"status":{"type":"string","enum":["open","pending","closed"]}}}`),
		},
		{
			Name:        "create_category_tree",
			Description: "Creates a tree of categories under a parent.",
			Risk:        runtime.RiskMedium, HasSideEffects: true, Idempotent: false, Revertible: true,
			Exposure: runtime.ExposureCore,
			// Strict-qualifying with $defs and recursion; Gemini inlines and cuts.
			ArgsSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"required":["parent","root"],"properties":{"parent":{"type":"integer","minimum":1,"description":"Id of the parent category."},"root":{"$ref":"#/$defs/category"}},"$defs":{"category":{"type":"object","description":"A category and its children.","additionalProperties":false,"required":["name","children"],"properties":{"name":{"type":"string"},"children":{"type":"array","maxItems":20,"items":{"$ref":"#/$defs/category"}}}}}}`),
		},
		{
			Name:        "delete_customer_account",
			Description: "Deletes a customer account and all its data, for good.",
			Risk:        runtime.RiskHigh, HasSideEffects: true, Idempotent: true, IdempotencyRequired: true,
			Exposure: runtime.ExposureCore,
			// Not strict: default, minLength and an optional property.
			ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["customer_id","confirm"],"properties":{"customer_id":{"type":"string","minLength":3,"maxLength":40},"confirm":{"const":"DELETE","description":"Type DELETE to confirm."},"reason":{"type":"string","default":"customer request"}}}`),
		},
		{
			Name:        "search_orders",
			Description: "Finds orders by customer, date or amount.",
			Risk:        runtime.RiskLow, Idempotent: true, ReturnsUntrusted: true,
			Exposure: runtime.ExposureCore,
			// Example requests are for discovery: no export shows them.
			Queries: []string{"where is the order I placed last week", "orders above 100 euros"},
			// Not strict (oneOf, open object, uniqueItems); Gemini folds
			// the bounds and formats it lacks into descriptions.
			ArgsSchema:   json.RawMessage(`{"type":"object","required":["filter"],"properties":{"filter":{"description":"How to pick the orders.","oneOf":[{"type":"object","additionalProperties":false,"required":["customer_email"],"properties":{"customer_email":{"type":"string","format":"email"}}},{"type":"object","additionalProperties":false,"required":["since"],"properties":{"since":{"type":"string","format":"date-time"}}}]},"min_total":{"type":"number","exclusiveMinimum":0,"multipleOf":0.01,"description":"Only orders above this amount"},"tags":{"type":"array","items":{"type":"string","pattern":"^[a-z]+$"},"uniqueItems":true,"minItems":1,"maxItems":5},"page":{"type":"integer","enum":[1,2,3]},"cursor":{"anyOf":[{"type":"string"},{"type":"null"}],"description":"Cursor from the last page."},"amount_or_code":{"type":["number","string"]},"meta":{"type":"object","additionalProperties":{"type":"string"}}}}`),
			ResultSchema: json.RawMessage(`{"type":"object","properties":{"orders":{"type":"array","items":{"type":"string"}}}}`),
		},
		{
			Name:        "describe_tool_usage",
			Description: "Explains when to use a tool of the catalog.",
			Risk:        runtime.RiskLow, Idempotent: true,
			Exposure:   runtime.ExposureHidden,
			ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["tool"],"properties":{"tool":{"type":"string"}}}`),
		},
		{
			Name:        "ping_service",
			Description: "Checks that the service answers. Takes no arguments & returns <ok>.",
			Risk:        runtime.RiskLow, Idempotent: true,
			Exposure:     runtime.ExposureCore,
			ResultSchema: json.RawMessage(`{"type":"string"}`),
		},
	}
}
