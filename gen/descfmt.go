package gen

// The descriptors of data-mode validators are the largest part of a large
// catalog's generated code and the slowest for gofmt to print: go/printer
// measures each element of a list that spans lines by printing it, so
// the elements of a descriptor's fields would be printed several times
// over, and jennifer's trees of them are costly to build and render. gen
// writes them as text instead (see litWriter), already in gofmt's
// layout: each literal on one line, but for the fields of a StructDesc,
// one a line, indented by a tab. They follow the rest of the tool's
// file, which jennifer renders and gofmt formats.

// preformatDescs is on: descriptors are written in gofmt's layout by gen.
// Tests turn it off to have gofmt lay them out, and compare.
var preformatDescs = true
