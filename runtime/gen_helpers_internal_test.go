package runtime

import (
	"strings"
	"testing"
)

func TestRefineArgsError(t *testing.T) {
	names := []string{"a", "b"}
	first := InvalidArgs("first")
	scan := func(raw []byte) (any, *ToolError) { return string(raw), nil }
	for _, tc := range []struct {
		desc, raw, msg string
		accept         string
	}{
		{"invalid JSON first", `{"a":1,}`, "arguments are not valid JSON", ""},
		{"a number beyond float64 is valid JSON", `{"a":1e400}`, "first", ""},
		{"a number beyond the limits, before undeclared arguments", `{"zz":1,"a":[1,1e-1001]}`, "a[1]=1e-1001 has an exponent beyond ±1000", ""},
		{"unknown argument, first in order", `{"a":1,"zz":1,"c":2}`, `unknown argument "c"`, ""},
		{"the error found", `{"a":1}`, "first", ""},
		{"repeated key: scanned again", `{"a":1,"a":{"x":2,"x":3}}`, "", `{"a":{"x":3}}`},
	} {
		got, te := refineArgsError([]byte(tc.raw), first, names, true, scan)
		switch {
		case tc.accept != "":
			if te != nil || got != tc.accept {
				t.Errorf("%s: %v %v", tc.desc, got, te)
			}
		case te == nil || !strings.HasPrefix(te.Message, tc.msg):
			t.Errorf("%s: %v", tc.desc, te)
		}
	}
}
