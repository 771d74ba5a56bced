package gen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
)

// The validator of a tool's arguments. A schema the one-pass validators
// support (validator_support.go) is read once into a model of what it
// checks (validator_model.go), with the names of what the validator
// declares decided among the package's others; from that model, code
// mode emits Go code that checks the arguments in one pass
// (validator_code.go) and data mode static descriptors that the runtime
// reads (validator_data.go). Any other schema gets the general
// validator, and the generated file says why.

// buildValidator makes the model of t's validator and asks for its
// names: data mode's when data is set and the descriptors cover the
// schema, else code mode's. A code-mode validator's names come from nc
// when it has them, and its model is made only if its file is rendered
// (see genValidator). A tool that the general validator validates has
// none.
func (m *model) buildValidator(t *toolModel, data bool, nc NamesCache) {
	if len(t.fallback) > 0 {
		return
	}
	var v *vModel
	if data {
		v = newVModel(t)
		if v.planData() {
			t.v, t.data, t.vwants = v, true, v.wants
			return
		}
	}
	// What the validator asks for depends on what the file's key covers
	// so far: the catalog entry and the names decided.
	var key string
	if nc != nil {
		key = "validator names " + m.key(t)
		if wants, ok := nc.GetNames(key); ok {
			t.vwants = wants
			return
		}
	}
	if v == nil {
		v = newVModel(t)
	}
	v.planCode()
	t.v, t.vwants = v, v.wants
	if nc != nil {
		nc.PutNames(key, v.wants)
	}
}

// genValidator emits the tool's argument validator, with the names
// buildModel decided for it; a data-mode one's descriptors are returned,
// for genDescs.
func genValidator(f *jen.File, t *toolModel) ([]namedDesc, error) {
	if len(t.fallback) > 0 {
		genGeneralValidator(f, t, t.fallback)
		return nil, nil
	}
	m := t.v
	if m == nil {
		// buildModel had the names from a NamesCache, which keeps those
		// of code mode: the model is made for the file it must render.
		m = newVModel(t)
		m.planCode()
		if !slices.Equal(m.wants, t.vwants) {
			return nil, fmt.Errorf("internal error: the validator of %s asks for other names than the cache holds", t.t.Name)
		}
		m.setNames(t.vnames)
	}
	if m.data {
		return genDataValidator(f, t, m)
	}
	genCodeValidator(f, t, m)
	return nil, nil
}

// genGeneralValidator emits a validator that validates with the schema
// (runtime.NewSchemaValidator) and decodes into the Args struct.
func genGeneralValidator(f *jen.File, t *toolModel, reasons []string) {
	f.Comment(t.validatorFn + " returns the validator of " + t.t.Name + "'s arguments.")
	f.Comment("They are validated by the general validator: the schema uses " + strings.Join(reasons, ", ") + ".")
	f.Func().Id(t.validatorFn).Params(jen.Id("meta").Op("*").Qual(runtimePkg, "Meta")).Params(jen.Qual(runtimePkg, "Validator"), jen.Error()).Block(
		jen.List(jen.Id("sv"), jen.Err()).Op(":=").Qual(runtimePkg, "NewSchemaValidator").Call(jen.Id("meta")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Qual(runtimePkg, "Typed").Types(jen.Id(t.args.Name)).Call(jen.Id("sv")), jen.Nil()),
	)
}
