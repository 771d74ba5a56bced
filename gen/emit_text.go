package gen

// The last functions of a tool's file, its data-mode validator and its
// binding to the runtime, have the same shape for every tool: gen writes
// them as text, already in gofmt's layout, after what jennifer renders
// and gofmt formats and before the descriptors (see preformatDescs).
// Parsing and printing them again was a fifth of the time gofmt took on
// a large catalog's files. Each needs only the runtime package, which
// the tool's metadata, printed before them, always imports.

// preformatFuncs is on: the validator and binding functions of a tool's
// file are written in gofmt's layout by gen. Tests turn it off to have
// gofmt lay them out, and compare.
var preformatFuncs = true

// dataValidatorText is the function that returns t's data-mode validator,
// as genDataValidator would have jennifer emit it; top names the
// descriptor of the arguments.
func dataValidatorText(out []byte, t *toolModel, top string) []byte {
	out = append(out, "\n// "...)
	out = append(out, t.validatorFn...)
	out = append(out, " returns the validator of "...)
	out = append(out, t.t.Name...)
	out = append(out, "'s arguments:\n// runtime.DataPassFor reads them in one pass, as "...)
	out = append(out, top...)
	out = append(out, " describes.\nfunc "...)
	out = append(out, t.validatorFn...)
	out = append(out, "(*runtime.Meta) (runtime.Validator, error) {\n\treturn runtime.DataPassFor((*"...)
	out = append(out, t.args.Name...)
	out = append(out, ")(nil), &"...)
	out = append(out, top...)
	return append(out, ")\n}\n"...)
}

// toolBindingText is the function genToolBinding would have jennifer emit.
func toolBindingText(out []byte, t *toolModel) []byte {
	out = append(out, "\n// "...)
	out = append(out, t.toolFn...)
	out = append(out, " binds the implementation of "...)
	out = append(out, t.iface...)
	out = append(out, " in impls to the runtime; ok is false when impls has none.\nfunc "...)
	out = append(out, t.toolFn...)
	out = append(out, "(impls *Tools) (tool runtime.Tool, ok bool, err error) {\n\timpl := impls."...)
	out = append(out, t.field...)
	out = append(out, '\n')
	for _, r := range t.renamed {
		if r.iface != "" {
			out = append(out, "\tif impl == nil {\n\t\timpl = impls."...)
			out = append(out, r.iface...)
			out = append(out, "\n\t}\n"...)
		}
	}
	out = append(out, "\tif impl == nil {\n\t\treturn runtime.Tool{}, false, nil\n\t}\n\tmeta := "...)
	out = append(out, t.metaFn...)
	out = append(out, "()\n\tv, err := "...)
	out = append(out, t.validatorFn...)
	out = append(out, "(&meta)\n\tif err != nil {\n\t\treturn runtime.Tool{}, true, err\n\t}\n\treturn runtime.Tool{\n"...)
	// The fields in the order of jennifer's Dict (by key), their values
	// aligned one column past the longest key, Validator.
	if t.dryRun {
		out = append(out, "\t\tDryRun:    runtime.Bind(impl.DryRun),\n"...)
	}
	out = append(out, "\t\tExecute:   runtime.Bind(impl.Execute),\n\t\tMeta:      meta,\n"...)
	if t.revert {
		out = append(out, "\t\tRevert:    runtime.BindRevert(impl.Revert),\n"...)
	}
	return append(out, "\t\tValidator: v,\n\t}, true, nil\n}\n"...)
}

// textFuncs reports whether the functions above are written as text: only
// with the descriptors, which follow them, written as text too.
func textFuncs() bool { return preformatFuncs && preformatDescs }
