package jsonscan_test

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// Integers are read exactly, whatever way JSON writes them: never through
// a float64, which holds integers exactly only up to 2^53.
func TestInt64Exact(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  string // "": none; else the RangeError's Msg
	}{
		{"9007199254740993", 9007199254740993, ""},
		{"9007199254740993.0", 9007199254740993, ""},
		{"9007199254740993.000000000000000000000000", 9007199254740993, ""},
		{"-9007199254740993.0", -9007199254740993, ""},
		{"9223372036854775807.0", 9223372036854775807, ""},
		{"-9223372036854775808.0", -9223372036854775808, ""},
		{"-9.223372036854775808e18", -9223372036854775808, ""},
		{"9.223372036854775807e18", 9223372036854775807, ""},
		{"9223372036854775808", 0, "out of range"},
		{"9.223372036854775808e18", 0, "out of range"},
		{"-9223372036854775809", 0, "out of range"},
		{"1e19", 0, "out of range"},
		{"1.5e1", 15, ""},
		{"1E+2", 100, ""},
		{"150e-1", 15, ""},
		{"1.25e2", 125, ""},
		{"1.255e2", 0, "not an integer"},
		{"0.1e-400", 0, "not an integer"},
		{"-0", 0, ""},
		{"-0.0e7", 0, ""},
		{"0e-1000", 0, ""},
		{"1e400", 0, "out of range"},
		{"1.5e400", 0, "out of range"},
		{"1e-400", 0, "not an integer"},
		{"12345678901234567890e-1", 1234567890123456789, ""},
		{"1234567890123456789.1", 0, "not an integer"},
	} {
		var d jsonscan.Decoder
		d.Reset([]byte(c.in))
		got, err := d.Int64()
		var re *jsonscan.RangeError
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("Int64(%s) = %d, %v; want %d", c.in, got, err, c.want)
		case c.err != "" && (!errors.As(err, &re) || re.Msg != c.err):
			t.Errorf("Int64(%s) = %d, %v; want a RangeError %q", c.in, got, err, c.err)
		}
	}
}

// Numbers beyond the limits are valid JSON, refused with a LimitError
// that shortens them. That they are read in linear time is measured by
// BenchmarkNumberLimits, not asserted here.
func TestNumberLimits(t *testing.T) {
	long := "1" + strings.Repeat("0", 100000)
	for _, c := range []struct {
		in  string
		err bool
	}{
		{strings.Repeat("1", jsonscan.MaxNumberLen), false},
		{strings.Repeat("1", jsonscan.MaxNumberLen+1), true},
		{long, true},
		{"0." + strings.Repeat("0", 100000) + "1", true},
		{"1e1000", false},
		{"1e-1000", false},
		{"1e+01000", false},
		{"1e1001", true},
		{"1e-1001", true},
		{"1e" + strings.Repeat("9", 100000), true},
	} {
		for _, read := range []func(*jsonscan.Decoder) error{
			func(d *jsonscan.Decoder) error { _, err := d.Int64(); return err },
			func(d *jsonscan.Decoder) error { _, err := d.Float64(); return err },
			func(d *jsonscan.Decoder) error { return d.Skip() },
			func(d *jsonscan.Decoder) error { _, err := d.Raw(); return err },
		} {
			var d jsonscan.Decoder
			d.Reset([]byte(c.in))
			err := read(&d)
			var le *jsonscan.LimitError
			if got := errors.As(err, &le); got != c.err {
				t.Errorf("%.20s (%d bytes): err = %v, want a LimitError: %v", c.in, len(c.in), err, c.err)
			}
			if le != nil && (len(le.Error()) > 200 || le.Len != len(c.in)) {
				t.Errorf("LimitError %q, Len %d", le.Error(), le.Len)
			}
		}
	}
}

// FuzzParseInt64 checks ParseInt64 against math/big's exact value of the
// number.
func FuzzParseInt64(f *testing.F) {
	for _, s := range []string{"1", "-0", "1.0", "1e3", "9007199254740993.0", "9.223372036854775807e18", "1.5e1", "0.1e-400", "-9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var d jsonscan.Decoder
		d.Reset([]byte(s))
		num, err := d.Number()
		if err != nil || d.End() != nil {
			return
		}
		n, err := jsonscan.ParseInt64(num)
		r, ok := new(big.Rat).SetString(string(num))
		if !ok {
			t.Fatalf("%s: math/big does not read it", s)
		}
		var re *jsonscan.RangeError
		switch {
		case !r.IsInt():
			if !errors.As(err, &re) || re.Msg != "not an integer" {
				t.Fatalf("%s: %d, %v; want not an integer", s, n, err)
			}
		case !r.Num().IsInt64():
			if !errors.As(err, &re) || re.Msg != "out of range" {
				t.Fatalf("%s: %d, %v; want out of range", s, n, err)
			}
		case err != nil || n != r.Num().Int64():
			t.Fatalf("%s: %d, %v; want %s", s, n, err, r.Num())
		}
	})
}

// BenchmarkNumberLimits reads numbers of 10,000 and 100,000 digits past
// the limit: ns/op grows tenfold, not a hundredfold.
func BenchmarkNumberLimits(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		in := []byte("1" + strings.Repeat("0", n))
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			var d jsonscan.Decoder
			for b.Loop() {
				d.Reset(in)
				if err := d.Skip(); err == nil {
					b.Fatal("no LimitError")
				}
			}
		})
	}
}
