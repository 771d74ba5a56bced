package runtime

import (
	"sync/atomic"

	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// A call arena is one allocation that holds a call's decoded arguments,
// the strings decoded for them, and room the registry writes the call's
// envelope into: a generated call then allocates once for all three
// instead of once each. The strings and the envelope never share bytes:
// the strings fill the room from its start, and the envelope goes after
// them. Holding any of them keeps the whole arena (the arguments and at
// most 1 KiB of room) reachable, as a substring keeps its string's memory.

// arenaValidator is a validator that decodes into a call arena: args,
// and text, the arena's room, whose length is what the strings used.
// sized tells it how much room a call needed (strings and envelope, in
// bytes), so that the next call's arena fits.
type arenaValidator interface {
	Validator
	validateArena(raw []byte) (args any, text []byte, te *ToolError)
	sized(strings, envelope int)
}

// arenaRooms are the sizes of an arena's room, smallest first.
var arenaRooms = [...]int{64, 128, 256, 512, 1024}

// arena is a call arena of room R ([N]byte): the arguments, the
// validation's own state (the decoder and the late error, which the
// generated scan function, called through a func value, would make
// escape), and the room.
type arena[T, R any] struct {
	args T
	dec  jsonscan.Decoder
	late *ToolError
	room R
}

// newArena returns the parts of a new arena of room size
// arenaRooms[class].
func newArena[T any](class int32) (args *T, dec *jsonscan.Decoder, late **ToolError, room []byte) {
	switch class {
	case 0:
		a := new(arena[T, [64]byte])
		return &a.args, &a.dec, &a.late, a.room[:0]
	case 1:
		a := new(arena[T, [128]byte])
		return &a.args, &a.dec, &a.late, a.room[:0]
	case 2:
		a := new(arena[T, [256]byte])
		return &a.args, &a.dec, &a.late, a.room[:0]
	case 3:
		a := new(arena[T, [512]byte])
		return &a.args, &a.dec, &a.late, a.room[:0]
	}
	a := new(arena[T, [1024]byte])
	return &a.args, &a.dec, &a.late, a.room[:0]
}

// arenaSize picks the room for calls that needed strings and envelope
// bytes: room for both when the largest has it, else for the strings.
type arenaSize struct{ class atomic.Int32 }

func (s *arenaSize) sized(strings, envelope int) {
	n := strings + envelope
	if n > arenaRooms[len(arenaRooms)-1] {
		n = strings
	}
	c := int32(len(arenaRooms) - 1)
	for i, room := range arenaRooms {
		if n <= room {
			c = int32(i)
			break
		}
	}
	if s.class.Load() != c { // no write while calls keep their size
		s.class.Store(c)
	}
}

// onePass is the validator OnePass returns.
type onePass[T any] struct {
	arenaSize // its sized is arenaValidator's
	obj       *Object
	scan      ScanFunc[T]
}

func (v *onePass[T]) Validate(raw []byte) (any, *ToolError) {
	a, _, te := v.validateArena(raw)
	return a, te
}

func (v *onePass[T]) validateArena(raw []byte) (any, []byte, *ToolError) {
	return validateInArena(v, v.obj, raw)
}

// arenaReader reads raw arguments into a new call arena: the arguments,
// and the room with the strings' length.
type arenaReader interface {
	one(raw []byte) (any, []byte, *ToolError)
}

// validateInArena is validateArena of a validator that reads with r the
// arguments of the object obj describes. On an error it reports what
// SchemaValidator reports first: invalid JSON, undeclared arguments; with
// a key given twice, only the last counts.
func validateInArena[R arenaReader](r R, obj *Object, raw []byte) (any, []byte, *ToolError) {
	a, text, te := r.one(raw)
	if te != nil {
		a, te := refineArgsError(raw, te, obj.Names, obj.Reject, func(raw []byte) (any, *ToolError) {
			a, _, te := r.one(raw)
			return a, te
		})
		return a, nil, te
	}
	return a, text, nil
}

func (v *onePass[T]) one(raw []byte) (any, []byte, *ToolError) {
	a, d, late, room := newArena[T](v.class.Load())
	d.Reset(NormalizeArgs(raw))
	d.StringsIn(room)
	te := v.read(d, a, late)
	room = d.Text()
	*d = jsonscan.Decoder{} // keep no reference to the arguments
	if te != nil {
		return nil, nil, te
	}
	return a, room, nil
}

func (v *onePass[T]) read(d *jsonscan.Decoder, a *T, late **ToolError) *ToolError {
	if err := d.BeginObject(); err != nil {
		return ArgRead("", "object", err)
	}
	if te := v.scan(d, nil, a, true, late); te != nil {
		return te
	}
	if err := d.End(); err != nil {
		return ArgSyntax(err)
	}
	return *late
}
