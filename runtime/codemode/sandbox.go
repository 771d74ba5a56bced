package codemode

import (
	"fmt"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"

	"github.com/toolcat/toolcat/runtime"
)

// removed are the globals a program does not get: binary buffers (a
// typed array allocates its whole length in one native step) and the
// hooks on the collector.
var removed = []string{
	"ArrayBuffer", "SharedArrayBuffer", "DataView", "Atomics",
	"Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
	"Int32Array", "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array",
	"WeakRef", "FinalizationRegistry",
}

// guards wraps, before the program runs, the built-ins that make a large
// string or array in one native step, so that they check the size first:
// the interpreter cannot be interrupted inside them. stop is the host's
// memory stop; maxChars and maxLen bound a string's and an array's size.
// The originals stay in the closure, out of the program's reach.
const guards = `(function (stop, maxChars, maxLen) {
  "use strict";
  const define = (o, k, f) => Object.defineProperty(o, k, { value: f, writable: true, configurable: true, enumerable: false });
  const len = (x) => (x == null ? 0 : String(x).length);
  const SP = String.prototype, AP = Array.prototype, FP = Function.prototype;
  const apply = Reflect.apply, construct = Reflect.construct;
  // An array-like's length becomes a list of arguments in one native step.
  const tooLong = (list) => list != null && (+list.length || 0) > maxLen;
  define(FP, "apply", function (self, list) {
    if (tooLong(list)) return stop();
    return apply(this, self, list == null ? [] : list);
  });
  define(Reflect, "apply", function (f, self, list) {
    if (tooLong(list)) return stop();
    return apply(f, self, list);
  });
  define(Reflect, "construct", function (f, list, target) {
    if (tooLong(list)) return stop();
    return arguments.length > 2 ? construct(f, list, target) : construct(f, list);
  });
  const repeat = SP.repeat;
  define(SP, "repeat", function repeat_(n) {
    if (len(this) * Number(n) > maxChars) return stop();
    return repeat.call(this, n);
  });
  for (const k of ["padStart", "padEnd"]) {
    const f = SP[k];
    define(SP, k, function (n, fill) {
      if (Number(n) > maxChars) return stop();
      return f.call(this, n, fill);
    });
  }
  for (const k of ["replace", "replaceAll"]) {
    const f = SP[k];
    define(SP, k, function (pattern, repl) {
      if (typeof repl !== "function" && len(this) * (len(repl) + 1) > maxChars) return stop();
      return f.call(this, pattern, repl);
    });
  }
  const split = SP.split;
  define(SP, "split", function (sep, limit) {
    if (len(this) > maxLen) return stop();
    return split.call(this, sep, limit);
  });
  // Every method but the constant-time ones may walk the whole length,
  // however sparse the array: new Array(2 ** 32 - 1).sort() never returns.
  const constant = ["constructor", "push", "pop", "at"];
  for (const k of Object.getOwnPropertyNames(AP).concat(Object.getOwnPropertySymbols(AP))) {
    const f = AP[k];
    if (typeof f !== "function" || constant.includes(k)) continue;
    const join = k === "join" || k === "toString" || k === "toLocaleString";
    define(AP, k, function () {
      const n = this == null ? 0 : +this.length || 0;
      if (n > maxLen || (join && n * (len(arguments[0]) + 1) > maxChars)) return stop();
      return apply(f, this, arguments);
    });
  }
  // JSON.stringify walks an array's whole length natively: a replacer sees
  // each array before its elements, and stops a huge one.
  const stringify = JSON.stringify, isArray = Array.isArray;
  define(JSON, "stringify", function (value, replacer, space) {
    const allow = isArray(replacer) ? new Set(replacer.map(String)) : null;
    return stringify(value, function (k, x) {
      if (isArray(x) && x.length > maxLen) return stop();
      if (allow !== null && k !== "" && !isArray(this) && !allow.has(k)) return undefined;
      return typeof replacer === "function" ? apply(replacer, this, [k, x]) : x;
    }, space);
  });
  const from = Array.from;
  define(Array, "from", function (src, ...rest) {
    if (src != null && (Number(src.length) || 0) > maxLen) return stop();
    return from.call(this, src, ...rest);
  });
})`

// describe shows a thrown value: its text and its stack, each read inside
// the interpreter (both may run the program's code: a toString, a getter),
// with the String function of before the program.
const describe = `(function () {
  "use strict";
  const S = String;
  return function (e) {
    let text = "(a value that cannot be shown)", stack = "";
    try { text = S(e); } catch (x) {}
    try { if (e !== null && typeof e === "object" && typeof e.stack === "string") stack = e.stack; } catch (x) {}
    return [text, stack];
  };
})()`

// setup makes the program's interpreter: its globals, the guards, the
// console and the tools.
func (p *program) setup() error {
	vm := goja.New()
	p.vm = vm
	vm.SetMaxCallStackSize(p.limits.StackDepth)
	// eval and Function parse with these too: a sourceMappingURL comment
	// would otherwise make the parser read a file.
	vm.SetParserOptions(parser.WithDisableSourceMaps)
	global := vm.GlobalObject()
	for _, name := range removed {
		if err := global.Delete(name); err != nil {
			return err
		}
	}
	d, err := vm.RunString(describe)
	if err != nil {
		return err
	}
	p.describe, _ = goja.AssertFunction(d)
	g, err := vm.RunString(guards)
	if err != nil {
		return err
	}
	install, _ := goja.AssertFunction(g)
	maxChars := p.limits.Memory / 2
	maxLen := p.limits.Memory / 16
	stop := vm.ToValue(func(goja.FunctionCall) goja.Value {
		vm.Interrupt(p.memoryStop())
		return goja.Undefined()
	})
	if _, err := install(goja.Undefined(), stop, vm.ToValue(maxChars), vm.ToValue(maxLen)); err != nil {
		return err
	}
	// The guarded stringify and the original parse, taken before the
	// program can change the global JSON.
	json := global.Get("JSON").ToObject(vm)
	var ok bool
	if p.stringify, ok = goja.AssertFunction(json.Get("stringify")); !ok {
		return fmt.Errorf("JSON.stringify is missing")
	}
	if p.parse, ok = goja.AssertFunction(json.Get("parse")); !ok {
		return fmt.Errorf("JSON.parse is missing")
	}

	freeze, _ := goja.AssertFunction(global.Get("Object").ToObject(vm).Get("freeze"))
	console := vm.NewObject()
	log := vm.ToValue(p.console)
	for _, k := range []string{"log", "info", "warn", "error", "debug"} {
		if err := console.Set(k, log); err != nil {
			return err
		}
	}
	if _, err := freeze(goja.Undefined(), log); err != nil {
		return err
	}
	if _, err := freeze(goja.Undefined(), console); err != nil {
		return err
	}
	api := vm.NewDynamicObject(&toolSet{p: p, fns: map[string]goja.Value{}})
	if err := api.SetPrototype(nil); err != nil {
		return err
	}
	for k, v := range map[string]goja.Value{"tools": api, "console": console} {
		if err := global.DefineDataProperty(k, v, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	return nil
}

// toolSet is the object tools: a function for each tool of the registry
// (and each built-in tool of the session), made on first use, so that
// start-up costs the same for 10 tools as for 5,000. It has no prototype,
// and refuses every write and delete (a TypeError in the program's strict
// mode): what tools.name is cannot change. Which calls the session allows
// is Session.Call's to say, as with any call.
type toolSet struct {
	p   *program
	fns map[string]goja.Value
}

func (t *toolSet) Get(name string) goja.Value {
	if fn, ok := t.fns[name]; ok {
		return fn
	}
	if !t.Has(name) {
		return nil
	}
	fn := t.p.vm.ToValue(func(c goja.FunctionCall) goja.Value { return t.p.call(name, c) })
	t.fns[name] = fn
	return fn
}

func (t *toolSet) Has(name string) bool {
	if _, ok := t.p.m.reg.Get(name); ok {
		return true
	}
	switch name {
	case runtime.SearchToolsByKeywords, runtime.SearchToolsByRegex, runtime.UndoLastActions:
		return true
	}
	return false
}

func (t *toolSet) Set(string, goja.Value) bool { return false }
func (t *toolSet) Delete(string) bool          { return false }
func (t *toolSet) Keys() []string              { return t.p.m.reg.Names() }
