package runtime

import (
	"fmt"
	"strings"
)

// A Binding is one row of the table a generated package registers its
// tools from: the tool's name, its catalog entry, and the function that
// binds the implementation the package's Tools struct T holds. Generated
// code keeps the table as static data, so that a catalog of thousands of
// tools compiles to a loop over it rather than to one statement a tool.
type Binding[T any] struct {
	// Name is the tool's name.
	Name string
	// Meta returns the tool's catalog entry.
	Meta func() Meta
	// Bind returns the tool bound to its implementation in impls; ok is
	// false when impls holds none.
	Bind func(impls *T) (tool Tool, ok bool, err error)
}

// RegisterAll registers the tool of every binding with its implementation
// in impls, all at once (Registry.RegisterTools): on the first tool that
// does not bind or register, none is. A tool without an implementation is
// an error too, reported once with every such tool named.
func RegisterAll[T any](reg *Registry, impls *T, table []Binding[T]) error {
	tools := make([]Tool, 0, len(table))
	var missing []string
	for i := range table {
		b := &table[i]
		t, ok, err := b.Bind(impls)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w", b.Name, err)
		case !ok:
			missing = append(missing, b.Name)
		default:
			tools = append(tools, t)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no implementation of %s", strings.Join(missing, ", "))
	}
	return reg.RegisterTools(tools...)
}

// BindingMetas returns the catalog entry of every binding, in the table's
// order.
func BindingMetas[T any](table []Binding[T]) []Meta {
	metas := make([]Meta, len(table))
	for i := range table {
		metas[i] = table[i].Meta()
	}
	return metas
}
