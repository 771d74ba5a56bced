package gen

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// The values of args schemas, checked before anything is generated. A
// generated validator must never refuse a call its schema accepts; a
// default that its own schema rejects, or that the tool's Go types cannot
// hold, would make it refuse every call that omits the argument (and the
// general validator too: it decodes the defaults it applies into the same
// Go types). Enum members and consts that their schema rejects are
// mistakes of the same kind. Generate stops with the position of each.

// checkValues returns the problems with the default, const and enum values
// of every tool's args schema, as a catalog.ErrorList sorted by position,
// or nil.
func checkValues(m *model) error {
	var errs catalog.ErrorList
	vc := catalog.NewValueChecker()
	for _, tm := range m.tools {
		t := tm.t
		if t.Args == nil || t.Args.Kind != catalog.Object {
			continue
		}
		// A schema the loader accepted compiles; were it not to, the
		// values checked until then are reported all the same.
		problems, _, _ := vc.SchemaValues(t.Name, "args", t.Args, nil, "default", "const", "enum")
		for _, p := range problems {
			errs = append(errs, &catalog.Error{Pos: p.Pos, Msg: fmt.Sprintf(
				"tools.%s.args%s: %s value %s is not valid against its schema: %s; the generated validator would refuse calls the schema accepts: fix the value or the schema",
				t.Name, p.Schema, p.Keyword, catalog.DescribeValue(p.Value), p.Msg)})
		}
		if len(problems) > 0 {
			continue
		}
		// Valid defaults the Go types cannot hold.
		ptrs := map[*catalog.Node]string{}
		catalog.WalkSchema(t.Args, func(ptr string, s *catalog.Node) bool {
			ptrs[s] = ptr
			return true
		})
		forEachField(tm.args, func(fd *goField) {
			if fd.Default == nil {
				return
			}
			if at, msg := defaultFits(fd.Default, fd.Type); msg != "" {
				errs = append(errs, &catalog.Error{Pos: at.Pos, Msg: fmt.Sprintf(
					"tools.%s.args%s: default value %s cannot be applied: %s; calls without %s would be refused: fix the value or the schema",
					t.Name, ptrs[fd.Schema], catalog.DescribeValue(fd.Default), msg, strconv.Quote(fd.JSON))})
			}
		})
		// Enum members and consts the Go types cannot hold: the schema
		// allows them, and both validators would refuse them.
		forEachType(tm.args, func(gt *goType) {
			s := gt.Schema
			if s == nil || gt.Kind != kInt && gt.Kind != kFloat && gt.Kind != kTime {
				return
			}
			var values []*catalog.Node
			if e := s.Get("enum"); e != nil && e.Kind == catalog.Array {
				values = e.Items
			}
			if c := s.Get("const"); c != nil {
				values = append(values, c)
			}
			for _, v := range values {
				if _, msg := defaultFits(v, gt); msg != "" {
					kw := "enum"
					if v == s.Get("const") {
						kw = "const"
					}
					errs = append(errs, &catalog.Error{Pos: v.Pos, Msg: fmt.Sprintf(
						"tools.%s.args%s: %s value %s cannot be held by the argument's Go type: %s; calls with it would be refused: fix the value or the schema",
						t.Name, ptrs[s], kw, catalog.DescribeValue(v), msg)})
				}
			}
		})
	}
	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, func(a, b *catalog.Error) int {
		switch {
		case a.Pos.Before(b.Pos):
			return -1
		case b.Pos.Before(a.Pos):
			return 1
		}
		return 0
	})
	return errs
}

// forEachType calls fn for t and every type reachable from it, each once.
func forEachType(t *goType, fn func(*goType)) {
	seen := map[*goType]bool{}
	var walk func(t *goType)
	walk = func(t *goType) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		fn(t)
		for _, fd := range t.Fields {
			walk(fd.Type)
		}
		walk(t.Elem)
		for _, v := range t.Variants {
			walk(v.Type)
		}
	}
	walk(t)
}

// forEachField calls fn for every field of every struct reachable from t.
func forEachField(t *goType, fn func(*goField)) {
	forEachType(t, func(gt *goType) {
		for _, fd := range gt.Fields {
			fn(fd)
		}
	})
}

// defaultFits reports whether a default decodes into the Go type t as the
// validators decode it: the general one turns its numbers into float64
// and decodes it with encoding/json, the generated one assigns it or
// decodes the same JSON. It returns the part of d that does not fit and
// why, or an empty message.
func defaultFits(d *catalog.Node, t *goType) (*catalog.Node, string) {
	if d.Kind == catalog.Null {
		return nil, "" // encoding/json leaves the Go value as it is
	}
	switch t.Kind {
	case kBool:
		if d.Kind != catalog.Bool {
			return d, "want a boolean"
		}
	case kString, kEnum:
		if d.Kind != catalog.String {
			return d, "want a string"
		}
	case kTime:
		if d.Kind != catalog.String {
			return d, "want a string"
		}
		var v time.Time
		if err := v.UnmarshalText([]byte(d.Str)); err != nil {
			return d, fmt.Sprintf("%q is not a time Go's time.Time reads (RFC 3339)", d.Str)
		}
	case kInt:
		if d.Kind != catalog.Number {
			return d, "want an integer"
		}
		n, err := jsonscan.ParseInt64([]byte(d.Num)) // exactly, as both validators read it
		var re *jsonscan.RangeError
		switch {
		case errors.As(err, &re) && re.Msg == "out of range":
			return d, fmt.Sprintf("%s is beyond the range of an int64", d.Num)
		case err != nil:
			return d, "want an integer"
		case t.Bits == 32 && (n < math.MinInt32 || n > math.MaxInt32):
			return d, fmt.Sprintf("%s does not fit an int32 (format int32)", d.Num)
		}
	case kFloat:
		f, ok := d.Float()
		switch {
		case d.Kind != catalog.Number:
			return d, "want a number"
		case !ok:
			return d, fmt.Sprintf("%s is beyond the range of a float64", d.Num)
		case t.Bits == 32 && math.Abs(f) > math.MaxFloat32:
			return d, fmt.Sprintf("%s does not fit a float32 (format float)", d.Num)
		}
	case kSlice:
		if d.Kind != catalog.Array {
			return d, "want an array"
		}
		for _, it := range d.Items {
			if at, msg := defaultFits(it, t.Elem); msg != "" {
				return at, msg
			}
		}
	case kMap:
		if d.Kind != catalog.Object {
			return d, "want an object"
		}
		for _, f := range d.Fields {
			if at, msg := defaultFits(f.Value, t.Elem); msg != "" {
				return at, msg
			}
		}
	case kStruct:
		if d.Kind != catalog.Object {
			return d, "want an object"
		}
		for _, f := range d.Fields {
			// A member fills the field of exactly its name (the runtime's
			// UnmarshalExact and exactMembers), never one that differs in
			// case.
			var match *goField
			for _, fd := range t.Fields {
				if fd.JSON == f.Key {
					match = fd
					break
				}
			}
			if match == nil {
				if at, msg := finiteNumbers(f.Value); msg != "" {
					return at, msg
				}
				continue
			}
			if at, msg := defaultFits(f.Value, match.Type); msg != "" {
				return at, msg
			}
		}
	default: // any JSON value
		return finiteNumbers(d)
	}
	return nil, ""
}

// finiteNumbers reports a number of d that a float64 does not hold: the
// general validator could not encode it again.
func finiteNumbers(d *catalog.Node) (*catalog.Node, string) {
	var bad *catalog.Node
	d.Walk(func(_ string, n *catalog.Node) bool {
		if bad != nil {
			return false
		}
		if n.Kind == catalog.Number {
			if _, ok := n.Float(); !ok {
				bad = n
			}
		}
		return true
	})
	if bad != nil {
		return bad, fmt.Sprintf("%s is beyond the range of a float64", bad.Num)
	}
	return nil, ""
}

// defaultJSON is a default as the general validator applies it: its
// numbers as written, encoded by encoding/json (members sorted by name),
// so that decoding it with runtime.UnmarshalExact gives the same Go value
// in both validators.
func defaultJSON(d *catalog.Node) []byte {
	b, err := json.Marshal(d.Interface())
	if err != nil {
		return d.JSON() // defaultFits has rejected such a default
	}
	return b
}
