package lint

import (
	"github.com/santhosh-tekuri/jsonschema/v6"
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
// with its own compiler: compiling the schemas that examples are checked
// against is most of lint's work.
func checkSchemaValuesValidAll(p *Pass) {
	forEachToolParallel(newCompiler, checkSchemaValuesValid)(p)
}

func checkSchemaValuesValid(p *Pass, c *jsonschema.Compiler, t *catalog.Tool) {
	for _, r := range toolSchemas(t) {
		if r.node == nil || r.node.Kind != catalog.Object {
			continue
		}
		var cs *compiledSchema
		broken := false
		walkSchema(t, r.name, func(s schemaRef) bool {
			for _, kw := range []string{"default", "const", "enum", "examples"} {
				v := s.Node.Get(kw)
				if v == nil || broken {
					continue
				}
				values := []*catalog.Node{v}
				if kw == "enum" || kw == "examples" {
					if v.Kind != catalog.Array {
						continue
					}
					values = v.Items
				}
				// Scalars against a plain schema need no compiled validator.
				simple := true
				for _, x := range values {
					problem, handled := checkSimple(s.Node, x)
					if !handled {
						simple = false
						break
					}
					if problem != "" {
						p.Reportf(t, x.Pos, "%s value %s is not valid against its schema at %s: %s; fix the value or the schema", kw, describeValue(x), s.where(), problem)
					}
				}
				if simple {
					continue
				}
				if cs == nil {
					var err error
					if cs, err = compileSchema(c, t, r.name, r.node); err != nil {
						broken = true // SCHEMA_VALID reports it
						continue
					}
				}
				sch, err := cs.sub(s.Ptr)
				if err != nil {
					continue
				}
				for _, x := range values {
					if err := sch.Validate(x.Interface()); err != nil {
						pr := validationProblems(err)[0]
						p.Reportf(t, posIn(x, pr.Ptr), "%s value %s is not valid against its schema at %s: %s; fix the value or the schema", kw, describeValue(x), s.where(), pr.Msg)
					}
				}
			}
			return true
		})
		if broken || len(t.Examples) == 0 {
			continue
		}
		if cs == nil {
			var err error
			if cs, err = compileSchema(c, t, r.name, r.node); err != nil {
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
			if err := cs.sch.Validate(v.Interface()); err != nil {
				for _, pr := range validationProblems(err) {
					at := pr.Ptr
					if at == "" {
						at = "the top"
					}
					p.Reportf(t, posIn(v, pr.Ptr), "example %d %s is not valid at %s: %s; %s", i+1, r.name, at, pr.Msg, hint)
				}
			}
		}
	}
}
