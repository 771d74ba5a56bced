package runtime

// GeneratedCodeVersion is bumped whenever generated code must be
// regenerated to fit this runtime. Generated files refer to
// runtime.GeneratedCodeVersionN, the constant of the version they were
// generated for, so a stale generation fails to compile instead of
// misbehaving.
//
// While the runtime is 0.x it supports one version: the current one. Code
// generated for an older version fails to compile on the missing constant
// (undefined: runtime.GeneratedCodeVersion3); `toolcat gen` with the
// toolcat of this runtime regenerates it.
const GeneratedCodeVersion = 4

// GeneratedCodeVersion4 is the constant that code generated for version 4
// of the runtime API refers to (as `const _ = runtime.GeneratedCodeVersion4`).
// Version 4 registers a package's tools from a table of Bindings
// (RegisterAll), so that the size of its code grows with the number of
// tools and not faster. For generated code.
const GeneratedCodeVersion4 = true
