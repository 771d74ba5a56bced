package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/toolcat/toolcat/catalog"
)

func newFile(pkg string) *jen.File {
	f := jen.NewFile(pkg)
	f.HeaderComment(Header)
	f.ImportName(runtimePkg, "runtime")
	f.ImportName(jsonscanPkg, "jsonscan")
	f.ImportName(conformancePkg, "conformance")
	return f
}

// render renders f as gofmt formats it. It formats the way go/format does,
// into a buffer sized from the source, with room for extra bytes more:
// go/format's own grows from empty, and for thousands of files the copies
// add up.
func render(f *jen.File, extra int) ([]byte, error) {
	f.NoFormat = true
	var raw bytes.Buffer
	if err := f.Render(&raw); err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", raw.Bytes(), parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	dropImportMarkers(file)
	ast.SortImports(fset, file)
	out := bytes.NewBuffer(make([]byte, 0, raw.Len()+raw.Len()/2+extra))
	if err := printerConfig.Fprint(out, fset, file); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// printerConfig is gofmt's configuration. gofmt also normalises the
// prefixes and exponents of number literals (0X1p4 to 0x1p4); jennifer
// writes them normalised already.
var printerConfig = printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}

// typeExpr is the Go type expression of t.
func typeExpr(t *goType) *jen.Statement {
	switch t.Kind {
	case kBool:
		return jen.Bool()
	case kInt:
		if t.Bits == 32 {
			return jen.Int32()
		}
		return jen.Int64()
	case kFloat:
		if t.Bits == 32 {
			return jen.Float32()
		}
		return jen.Float64()
	case kString:
		return jen.String()
	case kTime:
		return jen.Qual("time", "Time")
	case kEnum, kStruct, kUnion:
		return jen.Id(t.Name)
	case kMap:
		return jen.Map(jen.String()).Add(typeExpr(t.Elem))
	case kSlice:
		return jen.Index().Add(typeExpr(t.Elem))
	}
	return jen.Any()
}

// fieldExpr is the type of a struct field: a pointer where absent must
// differ from the zero value.
func fieldExpr(f *goField) *jen.Statement {
	if f.Pointer || (f.Type.Kind == kStruct && f.Type.Recursive) {
		return jen.Op("*").Add(typeExpr(f.Type))
	}
	return typeExpr(f.Type)
}

// comment writes text as // comment lines, keeping its line breaks.
func comment(text string) *jen.Statement {
	text = strings.TrimSpace(text)
	if text == "" {
		return jen.Null()
	}
	var s *jen.Statement
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t")
		c := jen.Comment(line)
		if line == "" {
			c = jen.Op("//")
		}
		if i == 0 {
			s = c
		} else {
			s = s.Line().Add(c)
		}
	}
	return s
}

// rawString writes s as a raw string literal when it can be one, which
// keeps embedded JSON readable.
func rawString(s string) *jen.Statement {
	if strings.ContainsAny(s, "`\r") {
		return jen.Lit(s)
	}
	return jen.Op("`" + s + "`")
}

// genNamedType emits one named type: a struct, an enum or a union.
func genNamedType(f *jen.File, t *goType) {
	switch t.Kind {
	case kStruct:
		genStruct(f, t)
	case kEnum:
		genEnum(f, t)
	case kUnion:
		genUnion(f, t)
	}
}

func genStruct(f *jen.File, t *goType) {
	doc := t.Doc
	switch {
	case t.role != "":
		doc = t.Name + " " + t.role
	case doc == "":
		doc = t.Name + " is an object of the schema."
	default:
		doc = t.Name + ": " + doc
	}
	f.Add(comment(doc))
	fields := make([]jen.Code, 0, len(t.Fields))
	for _, fd := range t.Fields {
		st := jen.Id(fd.Name).Add(fieldExpr(fd))
		if tagName(fd.JSON) {
			tag := fd.JSON
			if !fd.Required {
				tag += ",omitempty"
			}
			st.Tag(map[string]string{"json": tag})
		}
		d := fieldDoc(fd)
		if !tagName(fd.JSON) {
			d = strings.TrimSpace(d + fmt.Sprintf("\nIts JSON name is %q.", fd.JSON))
		}
		if d != "" {
			fields = append(fields, comment(d))
		}
		fields = append(fields, st)
	}
	f.Type().Id(t.Name).Struct(fields...)
	if t.ExactNames {
		genExactNames(f, t)
	}
}

// genExactNames emits the MarshalJSON and UnmarshalJSON methods of a
// struct with a member name that no json tag expresses: they write and
// read every member by its exact name, leaving out optional members as
// omitempty does.
func genExactNames(f *jen.File, t *goType) {
	var adds []jen.Code
	for _, fd := range t.Fields {
		add := jen.Id("w").Dot("Add").Call(jen.Lit(fd.JSON), jen.Id("v").Dot(fd.Name))
		if cond := present(fd); cond != nil && !fd.Required {
			add = jen.If(cond).Block(add)
		}
		adds = append(adds, add)
	}
	f.Comment("MarshalJSON writes the members of " + t.Name + " by the names the schema gives them,")
	f.Comment("which json struct tags cannot all express.")
	f.Func().Params(jen.Id("v").Id(t.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		append(append([]jen.Code{jen.Var().Id("w").Qual(runtimePkg, "ObjectWriter")}, adds...),
			jen.Return(jen.Id("w").Dot("JSON").Call()))...,
	)
	var cases []jen.Code
	for _, fd := range t.Fields {
		cases = append(cases, jen.Case(jen.Lit(fd.JSON)).Block(jen.Return(jen.Op("&").Id("v").Dot(fd.Name))))
	}
	f.Comment("UnmarshalJSON reads the members of " + t.Name + " by their exact names.")
	f.Func().Params(jen.Id("v").Op("*").Id(t.Name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Return(jen.Qual(runtimePkg, "DecodeMembers").Call(jen.Id("b"), jen.Func().Params(jen.Id("name").String()).Any().Block(
			jen.Switch(jen.Id("name")).Block(cases...),
			jen.Return(jen.Nil()),
		))),
	)
}

// present is the condition under which omitempty writes an optional
// field, or nil when it always does (structs and times held by value).
func present(fd *goField) *jen.Statement {
	v := jen.Id("v").Dot(fd.Name)
	if fd.Pointer || (fd.Type.Kind == kStruct && fd.Type.Recursive) {
		return v.Op("!=").Nil()
	}
	switch fd.Type.Kind {
	case kAny:
		return v.Op("!=").Nil()
	case kSlice, kMap, kUnion:
		return jen.Len(v).Op(">").Lit(0)
	case kString, kEnum:
		return v.Op("!=").Lit("")
	case kInt, kFloat:
		return v.Op("!=").Lit(0)
	case kBool:
		return v
	}
	return nil
}

// fieldDoc documents a field with its description, constraints and default.
func fieldDoc(fd *goField) string {
	var parts []string
	if fd.Doc != "" {
		parts = append(parts, strings.TrimSpace(fd.Doc))
	}
	if c := constraints(fd.Schema); c != "" {
		parts = append(parts, c+".")
	}
	if fd.Default != nil {
		parts = append(parts, "Default: "+string(fd.Default.JSON())+".")
	}
	return strings.Join(parts, " ")
}

// constraints summarises the bounds of a schema for a doc comment.
func constraints(s *catalog.Node) string {
	if s == nil {
		return ""
	}
	var parts []string
	add := func(key, label string) {
		if v := s.Get(key); v != nil && v.Kind != catalog.Object && v.Kind != catalog.Array {
			parts = append(parts, label+" "+string(v.JSON()))
		}
	}
	add("minimum", ">=")
	add("exclusiveMinimum", ">")
	add("maximum", "<=")
	add("exclusiveMaximum", "<")
	add("minLength", "length >=")
	add("maxLength", "length <=")
	add("minItems", "items >=")
	add("maxItems", "items <=")
	add("pattern", "matches")
	add("format", "format")
	return strings.Join(parts, ", ")
}

func genEnum(f *jen.File, t *goType) {
	doc := t.Doc
	if doc != "" {
		doc = t.Name + ": " + doc
	} else {
		doc = t.Name + " is one of a closed set of values."
	}
	f.Add(comment(doc))
	f.Type().Id(t.Name).String()
	consts := make([]jen.Code, 0, len(t.Values))
	for _, v := range t.Values {
		consts = append(consts, jen.Id(v.Name).Id(t.Name).Op("=").Lit(v.Value))
	}
	f.Comment("The values of " + t.Name + ".")
	f.Const().Defs(consts...)
}

func genUnion(f *jen.File, t *goType) {
	doc := t.Doc
	if doc != "" {
		doc = t.Name + ": " + doc + "\n\n"
	} else {
		doc = t.Name + " holds one of several shapes of value. "
	}
	names := make([]string, len(t.Variants))
	for i, v := range t.Variants {
		names[i] = "As" + v.Name
	}
	doc += "It keeps the value as JSON; " + strings.Join(names, ", ") + " decode it."
	f.Add(comment(doc))
	f.Type().Id(t.Name).Qual("encoding/json", "RawMessage")
	f.Comment("MarshalJSON returns the value as received.")
	f.Func().Params(jen.Id("v").Id(t.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.If(jen.Len(jen.Id("v")).Op("==").Lit(0)).Block(jen.Return(jen.Index().Byte().Parens(jen.Lit("null")), jen.Nil())),
		jen.Return(jen.Qual("encoding/json", "RawMessage").Parens(jen.Id("v")).Dot("MarshalJSON").Call()),
	)
	f.Comment("UnmarshalJSON keeps a copy of the value.")
	f.Func().Params(jen.Id("v").Op("*").Id(t.Name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Op("*").Id("v").Op("=").Append(jen.Parens(jen.Op("*").Id("v")).Index(jen.Op(":").Lit(0)), jen.Id("b").Op("...")),
		jen.Return(jen.Nil()),
	)
	for _, v := range t.Variants {
		f.Comment(fmt.Sprintf("As%s decodes the value as %s.", v.Name, describeType(v.Type)))
		f.Func().Params(jen.Id("v").Id(t.Name)).Id("As"+v.Name).Params().Params(jen.Id("out").Add(typeExpr(v.Type)), jen.Err().Error()).Block(
			jen.Err().Op("=").Qual("encoding/json", "Unmarshal").Call(jen.Id("v"), jen.Op("&").Id("out")),
			jen.Return(),
		)
	}
}

func describeType(t *goType) string {
	switch t.Kind {
	case kBool:
		return "a boolean"
	case kInt:
		return "an integer"
	case kFloat:
		return "a number"
	case kString:
		return "a string"
	case kTime:
		return "a time"
	case kSlice:
		return "a list"
	case kMap:
		return "an object"
	case kStruct, kEnum, kUnion:
		return t.Name
	}
	return "any value"
}

// keyed are the elements of a composite literal, written on one line:
// go/format lays out a one-line literal much faster than one with an
// element per line.
type keyed []jen.Code

func (k *keyed) add(key string, v jen.Code) { *k = append(*k, jen.Id(key).Op(":").Add(v)) }
