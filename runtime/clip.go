package runtime

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// An error envelope quotes what the model sent (a value, a key, a tool
// name) so that the model sees what was wrong. What it sent may be of any
// size, so every quote goes through clip: the envelope stays within a few
// KB whatever the input.
const (
	// maxEchoName bounds a quoted name: an argument, a key, a tool, a
	// field path.
	maxEchoName = 128
	// maxEchoValue bounds a quoted value: a string, a number as written.
	maxEchoValue = 200
	// maxEchoText bounds a quoted message: a parser's, or a tool's error
	// repeated by the retry guard.
	maxEchoText = 512
	// maxEchoJSON bounds an array or object echoed in details.received;
	// a larger one is left out.
	maxEchoJSON = 1024
)

// clip returns s when it has at most n bytes, and otherwise its first n
// bytes or fewer, cut before a character rather than inside one, followed
// by "… (N bytes)" with s's length.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:clipAt(s, n)] + clipped(s)
}

// quoteClipped is strconv.Quote of s clipped to n bytes, the note of its
// length outside the quotes.
func quoteClipped(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:clipAt(s, n)]) + clipped(s)
}

// clipAt returns where to cut s, longer than n bytes: at n, or up to three
// bytes before so as not to split a UTF-8 sequence.
func clipAt(s string, n int) int {
	for cut := n; cut >= 0 && cut > n-utf8.UTFMax; cut-- {
		if utf8.RuneStart(s[cut]) {
			return cut
		}
	}
	return n // not UTF-8 here: any cut will do
}

func clipped(s string) string { return "… (" + strconv.Itoa(len(s)) + " bytes)" }

// clipName is clip for names.
func clipName(s string) string { return clip(s, maxEchoName) }

// clipReceived bounds a received value for details.received: strings and
// numbers are clipped, arrays and objects kept only when small; ok is false
// when the value is to be left out.
func clipReceived(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool, float64, float32, int, int64, int32, uint64:
		return v, true
	case elided:
		return nil, false
	case string:
		return clip(x, maxEchoValue), true
	case json.Number:
		if len(x) > maxEchoValue {
			return clip(string(x), maxEchoValue), true
		}
		return x, true
	case []any, map[string]any:
		budget := maxEchoJSON
		if small(v, &budget) {
			return v, true
		}
		return nil, false
	}
	// Another Go value (a caller's own type): kept when it encodes small.
	b, err := json.Marshal(v)
	if err != nil || len(b) > maxEchoJSON {
		return nil, false
	}
	return v, true
}

// small reports whether v, as decoded by encoding/json, encodes to about
// *budget bytes or fewer, spending the budget as it goes so that it looks
// at no more than that much of v.
func small(v any, budget *int) bool {
	switch x := v.(type) {
	case nil, bool:
		*budget -= 5
	case float64:
		*budget -= 24
	case json.Number:
		*budget -= len(x)
	case string:
		*budget -= len(x) + 2
	case []any:
		*budget -= 2
		if len(x) > *budget {
			return false
		}
		for _, e := range x {
			*budget--
			if !small(e, budget) {
				return false
			}
		}
	case map[string]any:
		*budget -= 2
		if len(x) > *budget {
			return false
		}
		for k, e := range x {
			*budget -= len(k) + 4
			if *budget < 0 || !small(e, budget) {
				return false
			}
		}
	default:
		return false
	}
	return *budget >= 0
}

// elided stands for a received array or object too large to decode for an
// error message: its JSON type, "array" or "object".
type elided string

// decodeReceived decodes raw, one JSON value, for an error to quote it; an
// array or an object larger than maxEchoJSON is only checked, and comes
// back as elided. ok is false when raw is not valid JSON.
func decodeReceived(raw []byte) (v any, ok bool) {
	if len(raw) > maxEchoJSON && (raw[0] == '[' || raw[0] == '{') {
		if !json.Valid(raw) {
			return nil, false
		}
		if raw[0] == '[' {
			return elided("array"), true
		}
		return elided("object"), true
	}
	v, err := decodeExact(raw)
	return v, err == nil
}
