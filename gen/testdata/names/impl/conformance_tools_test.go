package names

import (
	"testing"

	"github.com/toolcat/toolcat/conformance"
)

// conformanceTools replaces the scaffolded one in the golden module: most
// tools are the scaffolded stubs, so the check that they are implemented is
// skipped for them, and every other check runs.
func conformanceTools(t *testing.T) (Tools, conformance.Options) {
	impls := Tools{
		Conformance:              &conformance_{},
		ConformanceTools:         &conformanceTools2{},
		EchoNames:                &echoNames{},
		EchoNamesGeneral:         &echoNamesGeneral{},
		Fmt:                      &fmt_{},
		Init:                     &init_{},
		Int64:                    &int64_{},
		Jsonscan:                 &jsonscan_{},
		ScanSearchWebArgs:        &scanSearchWebArgs{},
		SearchWeb:                &searchWeb{},
		SearchWebArgsObject:      &searchWebArgsObject{},
		SearchWebArgsQuerySchema: &searchWebArgsQuerySchema{},
		SearchWebArgsSchema:      &searchWebArgsSchema{},
		SearchWebMeta:            &searchWebMeta{},
		SearchWebNotFound:        &searchWebNotFound{},
		SearchWebTool:            &searchWebTool{},
		SearchWebValidator:       &searchWebValidator{},
		T:                        &t2{},
		Testing:                  &testing_{},
		Time:                     &time_{},
		Toolcat:                  &toolcat{},
	}
	stub := map[conformance.Check]string{conformance.CheckImplemented: "the golden case has the scaffolded stubs"}
	skip := map[string]map[conformance.Check]string{}
	for _, m := range Metas() {
		if m.Name != "echo_names" && m.Name != "echo_names_general" {
			skip[m.Name] = stub
		}
	}
	return impls, conformance.Options{Skip: skip}
}
