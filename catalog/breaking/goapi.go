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

// GoAPI reads the exported API of each tool from the files of its
// generated package: files by name, the file of each tool by tool name,
// and the name of the common file, whose Tools struct has a field per
// tool that counts as that tool's API.
func GoAPI(files map[string][]byte, toolFiles map[string]string, common string) (map[string]API, error) {
	out := map[string]API{}
	owner := map[string]string{} // interface name → tool
	for tool, file := range toolFiles {
		api, err := ParseGoAPI(file, files[file])
		if err != nil {
			return nil, err
		}
		out[tool] = api
		for k, v := range api {
			if v == "interface" {
				owner[k] = tool
			}
		}
	}
	capi, err := ParseGoAPI(common, files[common])
	if err != nil {
		return nil, err
	}
	for k, v := range capi {
		if typ, ok := strings.CutPrefix(v, "field "); ok && strings.HasPrefix(k, "Tools.") {
			if tool, ok := owner[typ]; ok {
				out[tool][k] = v
			}
		}
	}
	return out, nil
}

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
