package breaking

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strings"
)

// API is the exported Go API generated for one tool: each exported
// declaration by name ("SearchArgs", "SearchArgs.Query",
// "SearchArticles.Execute"), with its kind and type as Go writes them
// ("field string", "method func(ctx context.Context, ...) ...").
type API map[string]string

// ParseGoAPI reads the exported API of one generated Go file.
func ParseGoAPI(name string, src []byte) (API, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("reading the generated Go API: %w", err)
	}
	api := API{}
	str := func(n ast.Node) string {
		var b bytes.Buffer
		_ = printer.Fprint(&b, fset, n)
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			key := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) == 1 {
				recv := strings.TrimPrefix(str(d.Recv.List[0].Type), "*")
				if !ast.IsExported(recv) {
					continue
				}
				key = recv + "." + key
			}
			api[key] = "func " + str(d.Type)[len("func"):]
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						typeAPI(api, s, str)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							typ := ""
							if s.Type != nil {
								typ = " " + str(s.Type)
							}
							api[n.Name] = d.Tok.String() + typ
						}
					}
				}
			}
		}
	}
	return api, nil
}

func typeAPI(api API, s *ast.TypeSpec, str func(ast.Node) string) {
	name := s.Name.Name
	if s.Assign.IsValid() {
		api[name] = "type = " + str(s.Type)
		return
	}
	switch t := s.Type.(type) {
	case *ast.StructType:
		api[name] = "struct"
		for _, f := range t.Fields.List {
			for _, n := range f.Names {
				if n.IsExported() {
					api[name+"."+n.Name] = "field " + str(f.Type)
				}
			}
		}
	case *ast.InterfaceType:
		api[name] = "interface"
		for _, m := range t.Methods.List {
			for _, n := range m.Names {
				api[name+"."+n.Name] = "method " + str(m.Type)
			}
		}
	default:
		api[name] = "type " + str(s.Type)
	}
}
