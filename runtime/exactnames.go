package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// ObjectWriter writes a JSON object member by member. Generated code uses it
// in the MarshalJSON method of a struct whose member names a struct tag
// cannot express ("-", "", "a,b", names with quotes or backslashes), so
// that every name is written exactly as the schema spells it. Values are
// encoded as encoding/json encodes them, without escaping '<', '>' and
// '&': json.Marshal escapes them in the whole output, an Encoder with
// SetEscapeHTML(false) does not, as for any other struct.
type ObjectWriter struct {
	buf bytes.Buffer
	err error
}

// Add writes the member name with the value v. The generated method
// leaves out an optional member as omitempty would.
func (w *ObjectWriter) Add(name string, v any) {
	if w.err != nil {
		return
	}
	if w.buf.Len() == 0 {
		w.buf.WriteByte('{')
	} else {
		w.buf.WriteByte(',')
	}
	enc := json.NewEncoder(&w.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(name); err != nil {
		w.err = err
		return
	}
	trimNewline(&w.buf)
	w.buf.WriteByte(':')
	if err := enc.Encode(v); err != nil {
		w.err = fmt.Errorf("member %q: %w", name, err)
		return
	}
	trimNewline(&w.buf)
}

// JSON returns the object written.
func (w *ObjectWriter) JSON() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.buf.Len() == 0 {
		return []byte("{}"), nil
	}
	w.buf.WriteByte('}')
	return w.buf.Bytes(), nil
}

func trimNewline(b *bytes.Buffer) {
	if n := b.Len(); n > 0 && b.Bytes()[n-1] == '\n' {
		b.Truncate(n - 1)
	}
}

// DecodeMembers decodes the JSON object data into the fields that field
// returns by member name (nil: none), for the UnmarshalJSON method
// generated beside a MarshalJSON that uses an ObjectWriter. It decodes as encoding/json decodes a struct (null changes
// nothing, members without a field are skipped, a later duplicate wins)
// but matches names exactly, where encoding/json also accepts a name that
// differs in case.
func DecodeMembers(data []byte, field func(name string) any) error {
	var d jsonscan.Decoder
	d.Reset(data)
	if d.Peek() == jsonscan.Null {
		if err := d.Null(); err != nil {
			return err
		}
		return d.End()
	}
	if err := d.BeginObject(); err != nil {
		return err
	}
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return err
		}
		if !more {
			break
		}
		name := string(key)
		target := field(name)
		if target == nil {
			if err := d.Skip(); err != nil {
				return err
			}
			continue
		}
		raw, err := d.Raw()
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, target); err != nil {
			return fmt.Errorf("member %q: %w", name, err)
		}
	}
	return d.End()
}
