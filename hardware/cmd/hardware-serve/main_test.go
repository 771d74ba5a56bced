package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	cfg, code := parseFlags([]string{"-serial", "/dev/ttyUSB0", "-i2c", "1=0x76,0x20", "-i2c", "3", "-spi", "0.0", "-rate", "2"}, &strings.Builder{})
	if code != -1 {
		t.Fatalf("exit code %d; want to go on", code)
	}
	if !slices.Equal(cfg.I2C["1"], []uint16{0x76, 0x20}) || !hasBus(cfg.I2C, "3") || len(cfg.I2C["3"]) != 0 ||
		!slices.Equal(cfg.SerialPorts, []string{"/dev/ttyUSB0"}) || !slices.Equal(cfg.SPIPorts, []string{"0.0"}) || cfg.WritesPerSecond != 2 {
		t.Fatalf("config %+v", cfg)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "nothing allowed"},
		{[]string{"-i2c", "1=0x99"}, "not a 7-bit device address"},
		{[]string{"-i2c", "1=seventy"}, `address "seventy" is not a number`},
		{[]string{"-serial", "/etc/passwd"}, `serial port "/etc/passwd"`},
	} {
		var stderr strings.Builder
		if _, code := parseFlags(tc.args, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
	if cfg, code := parseFlags([]string{"-sim"}, &strings.Builder{}); code != -1 || len(cfg.SerialPorts) != 1 || cfg.Drivers.OpenI2C == nil {
		t.Fatalf("-sim: exit %d, config %+v; want the simulated board", code, cfg)
	}
}

func hasBus(m map[string][]uint16, bus string) bool { _, ok := m[bus]; return ok }
