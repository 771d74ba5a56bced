package hardware

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolcat/toolcat/runtime"
)

// toBytes converts the byte arrays of the arguments; the schemas bound
// every item to 0-255, and this checks it again for callers that bypass
// the registry.
func toBytes(field string, in []int64) ([]byte, error) {
	out := make([]byte, len(in))
	for i, v := range in {
		if v < 0 || v > 255 {
			return nil, runtime.NewError(runtime.CodeInvalidArgs, fmt.Sprintf("%s[%d]=%d is not a byte (0-255)", field, i, v)).
				WithDetail("field", fmt.Sprintf("/%s/%d", field, i))
		}
		out[i] = byte(v)
	}
	return out, nil
}

func toInts(b []byte) []int64 {
	out := make([]int64, len(b))
	for i, v := range b {
		out[i] = int64(v)
	}
	return out
}

// hexBytes reads as "0x01 0x80 0x00".
func hexBytes(b []byte) string {
	parts := make([]string, len(b))
	for i, v := range b {
		parts[i] = fmt.Sprintf("0x%02x", v)
	}
	return strings.Join(parts, " ")
}

// decodeData decodes the data argument of write_serial_port.
func decodeData(data, encoding string) ([]byte, error) {
	var b []byte
	var err error
	switch encoding {
	case "", "text":
		return []byte(data), nil
	case "hex":
		b, err = hex.DecodeString(strings.Join(strings.Fields(data), ""))
	case "base64":
		b, err = base64.StdEncoding.DecodeString(data)
	default:
		return nil, runtime.NewError(runtime.CodeInvalidArgs, fmt.Sprintf("encoding %q is not text, hex or base64", encoding)).WithDetail("field", "/encoding")
	}
	if err != nil {
		return nil, runtime.NewError(runtime.CodeInvalidArgs, fmt.Sprintf("data is not valid %s: %v", encoding, err)).
			WithSuggestion(fmt.Sprintf("Give data in %s, such as %s, or set encoding to text.", encoding, map[string]string{"hex": `"50494e470a"`, "base64": `"UElORwo="`}[encoding])).
			WithDetail("field", "/data")
	}
	return b, nil
}

// encodeData encodes bytes read for read_serial_port.
func encodeData(b []byte, encoding string) string {
	switch encoding {
	case "hex":
		return hex.EncodeToString(b)
	case "base64":
		return base64.StdEncoding.EncodeToString(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// quoted shows bytes as text where they are printable.
func quoted(b []byte) string {
	return strconv.Quote(string(b))
}
