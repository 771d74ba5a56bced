package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// SchemaValuesValid checks the values a schema and a tool's examples give.
var SchemaValuesValid = &Rule{
	ID:       "SCHEMA_VALUES_VALID",
	Category: "schemas",
	Purpose:  "Checks that default, enum, const and examples values inside args and result schemas are valid against their own (sub)schema, and that every catalog example's args are valid against args (examples expecting invalid_args excepted) and its result against result: the model copies these values, and the conformance tests run the examples.",
	Check:    checkSchemaValuesValidAll,
}

// checkSchemaValuesValidAll checks the tools on parallel workers, each
// with its own checker: compiling the schemas that examples are checked
// against is most of lint's work.
func checkSchemaValuesValidAll(p *Pass) {
	forEachToolParallel(catalog.NewValueChecker, checkSchemaValuesValid)(p)
}

func checkSchemaValuesValid(p *Pass, vc *catalog.ValueChecker, t *catalog.Tool) {
	for _, r := range toolSchemas(t) {
		if r.node == nil || r.node.Kind != catalog.Object {
			continue
		}
		problems, cs, err := vc.SchemaValues(t.Name, r.name, r.node, nil)
		for _, pr := range problems {
			p.Reportf(t, pr.Pos, "%s value %s is not valid against its schema at %s: %s; fix the value or the schema", pr.Keyword, catalog.DescribeValue(pr.Value), r.name+pr.Schema, pr.Msg)
		}
		if err != nil || len(t.Examples) == 0 {
			continue // SCHEMA_VALID reports a schema that does not compile
		}
		if cs == nil {
			if cs, err = vc.Compile(t.Name, r.name, r.node); err != nil {
				continue
			}
		}
		for i, ex := range t.Examples {
			v, hint := ex.Args, "fix the example, or set error: invalid_args if it shows a rejected call"
			if r.name == "result" {
				v, hint = ex.Result, "fix the example's result or the result schema"
			}
			if v == nil || r.name == "args" && ex.Error == "invalid_args" || r.name == "result" && ex.Error != "" {
				continue
			}
			for _, ve := range cs.Validate(v) {
				at := ve.Ptr
				if at == "" {
					at = "the top"
				}
				p.Reportf(t, ve.Pos, "example %d %s is not valid at %s: %s; %s", i+1, r.name, at, ve.Msg, hint)
			}
		}
	}
}
