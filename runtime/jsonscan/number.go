package jsonscan

import "strconv"

// The largest numbers the decoder reads. A number beyond them is valid
// JSON but is refused with a *LimitError, so that no reader, and nothing
// that checks the number exactly afterwards, spends more than linear time
// and a bounded amount of memory on it: 1e999999 is nine bytes, and its
// exact value a million digits.
const (
	// MaxNumberLen is the longest number, in bytes, read.
	MaxNumberLen = 1000
	// MaxExponent is the largest magnitude of a number's exponent part.
	MaxExponent = 1000
)

// LimitError reports a well-formed number beyond MaxNumberLen or
// MaxExponent.
type LimitError struct {
	Offset int    // byte offset of the number
	Len    int    // its length in bytes
	Number string // the number as written, shortened to its first 40 bytes
	Msg    string // what limit it exceeds
}

// Error names the number and the limit.
func (e *LimitError) Error() string {
	return "number " + e.Number + " at offset " + strconv.Itoa(e.Offset) + " " + e.Msg
}

// ShortNumber returns num as written when it is at most 40 bytes long,
// else its first 20 bytes, "...", and its length.
func ShortNumber(num []byte) string {
	if len(num) <= 40 {
		return string(num)
	}
	return string(num[:20]) + "... (" + strconv.Itoa(len(num)) + " bytes)"
}

// checkLimits returns a *LimitError for the number num at offset off when
// it exceeds MaxNumberLen or MaxExponent; exp is the offset in num of the
// exponent's digits, or -1.
func checkLimits(num []byte, off, exp int) error {
	if len(num) > MaxNumberLen {
		return &LimitError{Offset: off, Len: len(num), Number: ShortNumber(num), Msg: "is longer than the " + strconv.Itoa(MaxNumberLen) + " bytes a number may have"}
	}
	if exp >= 0 {
		n := 0
		for _, c := range num[exp:] {
			n = n*10 + int(c-'0')
			if n > MaxExponent {
				return &LimitError{Offset: off, Len: len(num), Number: ShortNumber(num), Msg: "has an exponent beyond ±" + strconv.Itoa(MaxExponent)}
			}
		}
	}
	return nil
}

// ParseInt64 returns the value of num, a JSON number as written, as an
// int64, exactly: JSON Schema's integers include 2.0, 1e3, 1.5e1 and
// 9007199254740993.0, and none loses a digit on the way. It returns a
// *RangeError (Offset 0) saying "not an integer" for a number with a
// fraction part, else "out of range" for one beyond int64. The time it
// takes is linear in len(num); it does not allocate unless it fails.
func ParseInt64(num []byte) (int64, error) {
	i := 0
	neg := i < len(num) && num[i] == '-'
	if neg {
		i++
	}
	// The mantissa's digits, read as one run: intEnd marks the '.'.
	start := i
	for i < len(num) && num[i] >= '0' && num[i] <= '9' {
		i++
	}
	intEnd := i
	fracLen := 0
	if i < len(num) && num[i] == '.' {
		i++
		for i < len(num) && num[i] >= '0' && num[i] <= '9' {
			i++
			fracLen++
		}
	}
	exp := 0
	if i < len(num) && (num[i] == 'e' || num[i] == 'E') {
		i++
		expNeg := i < len(num) && num[i] == '-'
		if i < len(num) && (num[i] == '-' || num[i] == '+') {
			i++
		}
		for ; i < len(num) && num[i] >= '0' && num[i] <= '9'; i++ {
			if exp < 1<<30 {
				exp = exp*10 + int(num[i]-'0')
			}
		}
		if expNeg {
			exp = -exp
		}
	}
	if i != len(num) || intEnd == start {
		return 0, &RangeError{Number: string(num), Msg: "not a number"}
	}
	// digit returns the k-th digit of the mantissa, skipping the '.'.
	digit := func(k int) byte {
		if start+k < intEnd {
			return num[start+k]
		}
		return num[start+k+1]
	}
	n := intEnd - start + fracLen
	// Leading and trailing zeros: value = digits[lo:hi] × 10^e.
	lo, hi := 0, n
	for lo < hi && digit(lo) == '0' {
		lo++
	}
	if lo == hi {
		return 0, nil // 0, -0, 0.000e5
	}
	e := exp - fracLen
	for digit(hi-1) == '0' {
		hi--
		e++
	}
	if e < 0 {
		return 0, &RangeError{Number: string(num), Msg: "not an integer"}
	}
	if hi-lo+e > 19 {
		return 0, &RangeError{Number: string(num), Msg: "out of range"}
	}
	var u uint64 // at most 19 digits: below 1e19 < 2^64
	for k := lo; k < hi; k++ {
		u = u*10 + uint64(digit(k)-'0')
	}
	for ; e > 0; e-- {
		u *= 10
	}
	switch {
	case !neg && u <= 1<<63-1:
		return int64(u), nil
	case neg && u <= 1<<63:
		return int64(-u), nil
	}
	return 0, &RangeError{Number: string(num), Msg: "out of range"}
}
