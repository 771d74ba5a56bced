// Package catalogtest makes synthetic catalogs for tests and benchmarks.
package catalogtest

import (
	"fmt"
	"strings"
)

var (
	verbs   = []string{"list", "get", "create", "update", "delete", "search", "publish", "archive", "export", "sync"}
	objects = []string{"invoices", "orders", "customers", "articles", "tickets", "shipments", "payments", "reports", "users", "devices", "projects", "alerts"}
	scopes  = []string{"by_region", "by_owner", "for_team", "in_folder", "since_date", "by_status", "for_account", "in_queue"}
)

// Name returns the name of synthetic tool i: verb_object_scope_N.
func Name(i int) string {
	return fmt.Sprintf("%s_%s_%s_%d", verbs[i%len(verbs)], objects[(i/len(verbs))%len(objects)], scopes[(i/7)%len(scopes)], i)
}

// YAML returns a catalog of n tools written as a team would: 7 to 10
// arguments each (one of them an object holding another), enums, bounds,
// patterns, formats, an array, error hints, examples, services,
// dependencies and fallbacks. It loads without error.
func YAML(n int) []byte {
	var b strings.Builder
	b.WriteString("package: synthetic\nservices:\n")
	for _, s := range []string{"postgresql", "search_index", "billing_api", "object_store"} {
		fmt.Fprintf(&b, "  %s:\n    description: The %s service.\n", s, strings.ReplaceAll(s, "_", " "))
	}
	b.WriteString("tools:\n")
	for i := range n {
		writeTool(&b, i)
	}
	return []byte(b.String())
}

func writeTool(b *strings.Builder, i int) {
	name := Name(i)
	verb := verbs[i%len(verbs)]
	obj := objects[(i/len(verbs))%len(objects)]
	sideEffects := verb == "create" || verb == "update" || verb == "delete" || verb == "publish" || verb == "archive"
	fmt.Fprintf(b, "  %s:\n", name)
	fmt.Fprintf(b, "    description: |\n      %s %s of the account, one page at a time, variant %d.\n", strings.ToUpper(verb[:1])+verb[1:], obj, i)
	fmt.Fprintf(b, "      Use when: the user asks to %s %s.\n      Do not use: for other accounts; this tool does not cross accounts.\n", verb, obj)
	fmt.Fprintf(b, "    category: %s\n    version: 1.%d.0\n    owner: team-%d\n", obj, i%10, i%17)
	fmt.Fprintf(b, "    capability_required: \"%s:%s:%s\"\n", obj, verb, "all")
	if sideEffects {
		b.WriteString("    has_side_effects: true\n    risk: medium\n    idempotency_required: true\n    supports_dry_run: true\n    max_retries: 1\n")
	} else {
		b.WriteString("    max_retries: 2\n")
	}
	fmt.Fprintf(b, "    sla_ms: %d\n", 200+i%5*100)
	fmt.Fprintf(b, "    dependencies: [%s]\n", []string{"postgresql", "search_index", "billing_api", "object_store"}[i%4])
	if i%10 == 1 && i > 10 && !sideEffects {
		fmt.Fprintf(b, "    fallback_tool: %s\n", Name(i-10))
	}
	b.WriteString("    args:\n      type: object\n      additionalProperties: false\n      required: [account_id, status]\n      properties:\n")
	b.WriteString("        account_id: {type: string, pattern: \"^acc_[0-9]+$\", description: \"The account's id, such as acc_42.\"}\n")
	b.WriteString("        status: {type: string, enum: [open, closed, pending], description: Which items to include.}\n")
	b.WriteString("        max_results: {type: integer, minimum: 1, maximum: 100, default: 20, description: How many items at most.}\n")
	b.WriteString("        sort_order: {type: string, enum: [newest, oldest], default: newest, description: Order of the items.}\n")
	b.WriteString("        include_archived: {type: boolean, default: false, description: Also return archived items.}\n")
	for k := range i % 4 {
		fmt.Fprintf(b, "        label_%d: {type: string, maxLength: 64, description: Free label number %d to match.}\n", k, k)
	}
	b.WriteString("        filter:\n          type: object\n          additionalProperties: false\n          description: Narrows the items.\n          properties:\n")
	b.WriteString("            created_after: {type: string, format: date-time, description: Only items created after this instant.}\n")
	b.WriteString("            amount_range:\n              type: object\n              additionalProperties: false\n              description: Bounds on the amount.\n              properties:\n")
	b.WriteString("                min: {type: number, minimum: 0, description: Lowest amount.}\n                max: {type: number, minimum: 0, description: Highest amount.}\n")
	b.WriteString("        tags:\n          type: array\n          maxItems: 10\n          description: Tags the items must carry.\n          items: {type: string, maxLength: 32, description: A tag.}\n")
	b.WriteString("    errors:\n      not_found: {suggestion: \"Nothing matched; widen the filter.\"}\n      rate_limited: {suggestion: \"Wait a minute, then retry once.\"}\n")
	b.WriteString("    examples:\n      - args: {account_id: acc_42, status: open}\n")
}
