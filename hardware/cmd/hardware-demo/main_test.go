package main

import (
	"strings"
	"testing"
)

// The walk-through of hardware/README.md runs and says what it says there.
func TestDemo(t *testing.T) {
	var b strings.Builder
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`"vid": "2341"`,
		`"hex": [`,
		`"0x20",`,
		`"register 0x00: 0xff becomes 0x00"`,
		`"previous": [`,
		`"code": "rate_limited"`,
		"1 call reverted (write_i2c_register)",
		`"values": [` + "\n      255",
		`"data": "READY\r\n"`,
		`"data": "TEMP 21.50\r\n"`,
		`"hex": "0003ff"`,
		`"code": "permission_denied"`,
		`"code": "invalid_args"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the walk-through lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}
