package catalog

import (
	"slices"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
)

// The direct decoder's sets and field names are the format's
// (format.cue): a value added to the format must be added there too.
func TestDirectSetsMatchFormat(t *testing.T) {
	v := cuecontext.New().CompileBytes(formatSource)
	if err := v.Err(); err != nil {
		t.Fatal(err)
	}
	disjuncts := func(def string) []string {
		op, args := v.LookupPath(cue.ParsePath(def)).Expr()
		if op != cue.OrOp {
			t.Fatalf("%s is not a disjunction", def)
		}
		var out []string
		for _, a := range args {
			s, err := a.String()
			if err != nil {
				t.Fatalf("%s: %v", def, err)
			}
			out = append(out, s)
		}
		return out
	}
	for def, set := range map[string][]string{
		"#Risk":           strs(directRisks),
		"#Exposure":       directExposures,
		"#Autonomy":       strs(Autonomies),
		"#AdditionalArgs": directAdditionalArgs,
		"#IdempotencyKey": directIdemKeys,
		"#ErrorCode":      directErrorCodes,
	} {
		if got := disjuncts(def); !slices.Equal(got, set) {
			t.Errorf("%s is %q in the format, %q in the direct decoder", def, got, set)
		}
	}
	if got := fieldNames(v.LookupPath(cue.ParsePath("#Catalog"))); !slices.Equal(got, topFields) {
		t.Errorf("#Catalog has the fields %q, the direct decoder %q", got, topFields)
	}
	var toolFields []string
	for _, f := range fieldNames(v.LookupPath(cue.ParsePath("#Tool"))) {
		if !directToolField(f) {
			toolFields = append(toolFields, f)
		}
	}
	if len(toolFields) > 0 {
		t.Errorf("the direct decoder does not know the #Tool fields %q", toolFields)
	}
}

func strs[S ~string](vs []S) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
