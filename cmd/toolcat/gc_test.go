package main

import "testing"

func TestRelaxGC(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want bool
	}{
		{0, false},
		{90 << 20, false}, // a 1,000-tool catalog
		{gcLimit/2 - 1, false},
		{gcLimit / 2, true},
		{1 << 30, true},
	} {
		if got := relaxGC(c.live); got != c.want {
			t.Errorf("relaxGC(%d MiB) = %v, want %v", c.live>>20, got, c.want)
		}
	}
}
