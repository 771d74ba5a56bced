package gen

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// ConformanceToolsFile is the scaffolded test file that gives the
// conformance test its implementations.
const ConformanceToolsFile = "conformance_tools_test.go"

// Scaffold is a user-owned file: written when missing, never rewritten.
type Scaffold struct {
	Tool string // the tool it implements; "" for the package's test file
	File string
	Data []byte
	// Iface and Impl name the interface and the implementation type, by
	// which an existing implementation is found.
	Iface, Impl string
	// Renamed are the interface's names before the tool was renamed
	// (renamed_from), which an existing implementation may still use.
	Renamed []string
	// Methods are the methods the interface requires, in order.
	Methods []Method
}

// Method is a method of a tool interface, as a stub to add.
type Method struct {
	Name string
	// Stub is the method's source, with RECV standing for the receiver.
	Stub string
	// Imports the stub needs.
	Imports []string
}

// Scaffolds returns the implementation files of cat's tools and the
// conformance test's file, for the CLI to write where they do not exist.
func Scaffolds(cat *catalog.Catalog) ([]Scaffold, error) {
	m, _ := nameTools(cat)
	return scaffolds(m)
}

// scaffolds returns the scaffolds of m's tools, named as far as
// nameTools names them.
func scaffolds(m *model) ([]Scaffold, error) {
	out := make([]Scaffold, len(m.tools))
	errs := make([]error, len(m.tools))
	parallel(len(m.tools), func(i int) {
		t := m.tools[i]
		s := Scaffold{Tool: t.t.Name, File: t.implFile, Iface: t.iface, Impl: t.impl, Methods: methods(t)}
		for _, r := range t.renamed {
			if r.iface != "" {
				s.Renamed = append(s.Renamed, r.iface)
			}
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"context\"\n\n\t%q\n)\n\n", m.pkg, runtimePkg)
		fmt.Fprintf(&b, "// %s implements the tool %s.\ntype %s struct{}\n\nvar _ %s = (*%s)(nil)\n", t.impl, t.t.Name, t.impl, t.iface, t.impl)
		for _, meth := range s.Methods {
			b.WriteString("\n" + strings.ReplaceAll(meth.Stub, "RECV", "t *"+t.impl))
		}
		if formatted(m.pkg, t.t.Name) {
			s.Data = b.Bytes()
		} else {
			s.Data, errs[i] = format.Source(b.Bytes())
		}
		out[i] = s
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"testing\"\n\n\t%q\n)\n\n", m.pkg, conformancePkg)
	b.WriteString("// conformanceTools returns the implementations that TestConformance\n" +
		"// checks, and the options of the checks. TestConformance calls them with\n" +
		"// valid and invalid arguments it makes up: give them test doubles of their\n" +
		"// databases and services here, never the real ones.\n")
	b.WriteString("func conformanceTools(t *testing.T) (Tools, conformance.Options) {\n\timpls := Tools{\n")
	for _, t := range m.tools {
		fmt.Fprintf(&b, "\t\t%s: &%s{},\n", t.field, t.impl)
	}
	b.WriteString("\t}\n\topts := conformance.Options{\n" +
		"\t\t// Probe snapshots the state the tools change, such as the rows of\n" +
		"\t\t// the test doubles, to check dry runs and reverts:\n" +
		"\t\t// Probe: func(ctx context.Context) (any, error) { return store.Snapshot(), nil },\n" +
		"\t\t// Deterministic names the tools without side effects that give the\n" +
		"\t\t// same result for the same arguments.\n" +
		"\t\t// Deterministic: []string{\"...\"},\n" +
		"\t\t// Skip turns a check off for one tool, with the reason:\n" +
		"\t\t// Skip: map[string]map[conformance.Check]string{\"...\": {conformance.CheckCancellation: \"...\"}},\n" +
		"\t}\n\treturn impls, opts\n}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, err
	}
	out = append(out, Scaffold{File: ConformanceToolsFile, Data: src})
	return out, nil
}

// formatted reports whether the scaffold of the tool called name in the
// package pkg is written in gofmt's layout as it is put together, so that
// go/format would give back the same bytes (TestScaffoldsAreGofmt): its
// other parts are Go names and fixed text, and its comments name the tool,
// which is then letters, digits and _.- only. A scaffold of any other is
// formatted, and an invalid package name is go/format's error.
func formatted(pkg, name string) bool {
	if !token.IsIdentifier(pkg) {
		return false
	}
	for _, r := range name {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '.' || r == '-') {
			return false
		}
	}
	return name != ""
}

// methods lists the stubs of a tool's interface methods.
func methods(t *toolModel) []Method {
	ctx := "ctx context.Context"
	res := "*" + t.resultNm
	zero := "nil"
	if t.result == nil || t.result.Kind != kStruct {
		res = t.resultNm
		zero = zeroValue(t.result, t.resultNm)
	}
	doc := fmt.Sprintf("// Execute does the work of %s.\n", t.t.Name)
	if t.t.IdempotencyKey == catalog.IdempotencyKeyArgument {
		doc += "// runtime.IdempotencyKeyFrom(ctx) is the call's idempotency key, from\n" +
			"// the model's idempotency_key argument or the host, for the APIs it calls.\n"
	}
	out := []Method{{
		Name: "Execute",
		Stub: fmt.Sprintf("%sfunc (RECV) Execute(%s, args *%s) (%s, error) {\n\treturn %s, runtime.ErrNotImplemented\n}\n",
			doc, ctx, t.args.Name, res, zero),
		Imports: []string{"context", runtimePkg},
	}}
	if t.dryRun {
		out = append(out, Method{
			Name: "DryRun",
			Stub: fmt.Sprintf("// DryRun previews what Execute would do, changing nothing.\nfunc (RECV) DryRun(%s, args *%s) (*runtime.Preview, error) {\n\treturn nil, runtime.ErrNotImplemented\n}\n",
				ctx, t.args.Name),
			Imports: []string{"context", runtimePkg},
		})
	}
	if t.revert {
		out = append(out, Method{
			Name: "Revert",
			Stub: fmt.Sprintf("// Revert undoes a call of %s that returned result.\nfunc (RECV) Revert(%s, args *%s, result %s) error {\n\treturn runtime.ErrNotImplemented\n}\n",
				t.t.Name, ctx, t.args.Name, res),
			Imports: []string{"context", runtimePkg},
		})
	}
	return out
}

// zeroValue is the zero value of the result type t, called name, as the
// scaffold writes it, which imports only context and runtime.
func zeroValue(t *goType, name string) string {
	if t == nil {
		return "nil"
	}
	switch t.Kind {
	case kBool:
		return "false"
	case kInt, kFloat:
		return "0"
	case kString:
		return `""`
	case kEnum:
		return `""`
	case kTime:
		return name + "{}" // an alias of time.Time
	}
	return "nil"
}

// Implementation is what the user's files hold of one tool.
type Implementation struct {
	Type     string          // the implementation type, found by its assertion
	File     string          // the file of the assertion
	Methods  map[string]bool // methods declared on the type, in any file
	Receiver string          // receiver of its first method, "t *impl" style
}

// FindImplementations reads a package's user files (name → source) and
// returns, by interface name, the type asserted to implement it with
// var _ Iface = (*impl)(nil), and that type's methods.
func FindImplementations(files map[string][]byte) (map[string]*Implementation, error) {
	fset := token.NewFileSet()
	type methodDecl struct{ recvType, recv, name string }
	var decls []methodDecl
	impls := map[string]*Implementation{}
	names := slices.Sorted(maps.Keys(files))
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, files[name], parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					vs, ok := spec.(*ast.ValueSpec)
					if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "_" || len(vs.Values) != 1 {
						continue
					}
					iface, ok := vs.Type.(*ast.Ident)
					if !ok {
						continue
					}
					if typ := assertedType(vs.Values[0]); typ != "" {
						impls[iface.Name] = &Implementation{Type: typ, File: name, Methods: map[string]bool{}}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil || len(d.Recv.List) != 1 {
					continue
				}
				r := d.Recv.List[0]
				typ, ptr := recvType(r.Type)
				recv := typ
				if ptr {
					recv = "*" + typ
				}
				if len(r.Names) == 1 {
					recv = r.Names[0].Name + " " + recv
				}
				decls = append(decls, methodDecl{recvType: typ, recv: recv, name: d.Name.Name})
			}
		}
	}
	for _, impl := range impls {
		for _, d := range decls {
			if d.recvType == impl.Type {
				impl.Methods[d.name] = true
				if impl.Receiver == "" {
					impl.Receiver = d.recv
				}
			}
		}
	}
	return impls, nil
}

// assertedType returns T of (*T)(nil) or T{} / T(nil).
func assertedType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.CallExpr:
		p, ok := e.Fun.(*ast.ParenExpr)
		if !ok {
			return ""
		}
		if star, ok := p.X.(*ast.StarExpr); ok {
			if id, ok := star.X.(*ast.Ident); ok {
				return id.Name
			}
		}
	case *ast.CompositeLit:
		if id, ok := e.Type.(*ast.Ident); ok {
			return id.Name
		}
	case *ast.UnaryExpr:
		return assertedType(e.X)
	}
	return ""
}

func recvType(e ast.Expr) (string, bool) {
	ptr := false
	if s, ok := e.(*ast.StarExpr); ok {
		e, ptr = s.X, true
	}
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name, ptr
	case *ast.IndexExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			return id.Name, ptr
		}
	}
	return "", ptr
}

// AppendMethods adds the stubs of missing methods at the end of src,
// adding the imports they need to its import block, and changes no other
// byte. recv is the receiver to write, such as "t *searchArticles".
func AppendMethods(src []byte, missing []Method, recv string) ([]byte, error) {
	if len(missing) == 0 {
		return src, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		have[p] = true
	}
	var need []string
	for _, m := range missing {
		for _, imp := range m.Imports {
			if !have[imp] {
				have[imp] = true
				need = append(need, imp)
			}
		}
	}
	sort.Strings(need)
	out := append([]byte(nil), src...)
	if len(need) > 0 {
		var lines bytes.Buffer
		for _, imp := range need {
			fmt.Fprintf(&lines, "import %q\n", imp)
		}
		// After the last import declaration, or after the package clause.
		at := fset.Position(f.Name.End()).Offset
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				at = fset.Position(g.End()).Offset
			}
		}
		ins := "\n" + lines.String()
		if at < len(out) && out[at] == '\n' {
			at++
			ins = lines.String()
		}
		out = append(out[:at], append([]byte(ins), out[at:]...)...)
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	for _, m := range missing {
		out = append(out, '\n')
		out = append(out, strings.ReplaceAll(m.Stub, "RECV", recv)...)
	}
	return out, nil
}
