package catalog

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A catalog written in YAML and JSON only is, in the common case, values
// that the format accepts exactly as written: strings where it wants
// strings, names that match #Name, known fields only. Such a catalog is
// decoded straight from its parsed trees, without evaluating it in CUE,
// which costs most of a load. The direct decoder checks every constraint
// of format.cue that such a value can break; on anything else (a value
// the format would reject, a field written in two files, a form it does
// not check itself) it gives up and the catalog is evaluated in CUE,
// which reports the problems. The two give the same catalog: the tests
// hold the direct decoder to CUE's on every catalog they load.

// The format's patterns and sets (format.cue).
var (
	directName       = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	directIdentifier = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	directRule       = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	directNonBlank   = regexp.MustCompile(`\S`)

	topFields = []string{"package", "title", "services", "tools", "suppress", "idempotency_key"}

	directRisks          = []Risk{RiskLow, RiskMedium, RiskHigh}
	directExposures      = []string{"core", "hidden"}
	directSideEffects    = SideEffects
	directAdditionalArgs = []string{"reject", "strip", "allow"}
	directIdemKeys       = []string{IdempotencyKeyHost, IdempotencyKeyArgument}
	directErrorCodes     = []string{"invalid_args", "not_found", "permission_denied",
		"approval_required", "rate_limited", "quota_exceeded",
		"dependency_unavailable", "external_error", "timeout",
		"idempotency_conflict", "retry_exhausted", "unsupported", "internal"}
)

// directToolField reports whether directTool decodes a #Tool field.
func directToolField(name string) bool {
	switch name {
	case "name", "original_name", "description", "category", "version", "owner",
		"capability_required", "risk", "has_side_effects", "side_effect", "idempotent",
		"idempotency_required", "supports_dry_run", "revertible", "returns_untrusted",
		"idempotency_key", "exposure", "autonomy", "additional_args", "max_retries",
		"sla_ms", "max_result_bytes", "fallback_tool", "dependencies", "renamed_from",
		"queries", "errors", "examples", "suppress", "args", "result":
		return true
	}
	return false
}

// maxQueries is list.MaxItems of #Tool.queries; maxQueryRunes is
// #Query's strings.MaxRunes.
const (
	maxQueries    = 20
	maxQueryRunes = 300
)

// direct decodes the catalog from l.trees without CUE; ok is false when
// it cannot vouch for the result (see above).
func (l *loader) direct(files []File) (c *Catalog, ok bool) {
	c = &Catalog{
		Package:        "tools",
		IdempotencyKey: IdempotencyKeyHost,
		Pos:            Pos{File: files[0].Name, Line: 1, Col: 1},
	}
	for _, f := range files {
		c.Files = append(c.Files, f.Name)
	}
	seen := map[string]bool{}
	metaFiles := 0
	for _, root := range l.trees {
		metas := len(c.Metadata)
		for _, f := range root.Fields {
			if f.Key == "tools" {
				if f.Value.Kind != Object {
					return nil, false
				}
				continue
			}
			if seen[f.Key] || !directTop(c, f) {
				return nil, false
			}
			seen[f.Key] = true
		}
		if len(c.Metadata) > metas {
			metaFiles++
		}
	}
	if metaFiles > 1 {
		return nil, false // CUE orders metadata of several files its own way
	}
	if len(l.toolIndex) > 0 {
		c.Tools = make([]*Tool, 0, len(l.toolIndex))
	}
	for name, fs := range l.toolIndex {
		if len(fs) != 1 || !directName.MatchString(name) {
			return nil, false
		}
		t, ok := l.directTool(fs[0])
		if !ok {
			return nil, false
		}
		c.Tools = append(c.Tools, t)
	}
	sort.Slice(c.Services, func(i, j int) bool { return c.Services[i].Name < c.Services[j].Name })
	sort.Slice(c.Tools, func(i, j int) bool { return c.Tools[i].Name < c.Tools[j].Name })
	return c, true
}

// directTop decodes a top-level field other than tools into c.
func directTop(c *Catalog, f *Field) bool {
	v := f.Value
	switch f.Key {
	case "package":
		s, ok := directString(v)
		c.Package = s
		return ok && directIdentifier.MatchString(s)
	case "title":
		s, ok := directString(v)
		c.Title = s
		return ok
	case "idempotency_key":
		s, ok := directEnum(v, directIdemKeys)
		c.IdempotencyKey = s
		return ok
	case "services":
		if v.Kind != Object {
			return false
		}
		for _, sf := range v.Fields {
			if !directName.MatchString(sf.Key) || sf.Value.Kind != Object {
				return false
			}
			s := &Service{Name: sf.Key, Pos: sf.KeyPos}
			for _, ff := range sf.Value.Fields {
				str, ok := directString(ff.Value)
				switch {
				case !ok:
					return false
				case ff.Key == "description":
					s.Description = str
				case ff.Key == "url":
					s.URL = str
				default:
					return false
				}
			}
			c.Services = append(c.Services, s)
		}
		return true
	case "suppress":
		var ok bool
		c.Suppress, ok = directSuppressions(v)
		return ok
	}
	if Closest(f.Key, topFields) != "" {
		return false // a likely typo, which checkMetadata reports
	}
	m := Metadata{Key: f.Key, Pos: f.KeyPos}
	switch v.Kind {
	case String:
		m.Value = v.Str
		if !utf8.ValidString(m.Value) {
			return false
		}
	case Bool:
		m.Value = strconv.FormatBool(v.Bool)
	case Number:
		m.Value = v.Num
		if !directNumber(v) {
			return false
		}
	default:
		return false
	}
	if !utf8.ValidString(f.Key) {
		return false
	}
	c.Metadata = append(c.Metadata, m)
	return true
}

// directTool decodes the tool of field tf, with the format's defaults.
func (l *loader) directTool(tf *Field) (*Tool, bool) {
	v := tf.Value
	if v.Kind != Object {
		return nil, false
	}
	t := &Tool{
		Name:           tf.Key,
		Pos:            tf.KeyPos,
		FieldPos:       make(map[string]Pos, len(v.Fields)),
		Risk:           RiskLow,
		Exposure:       "core",
		AdditionalArgs: "reject",
	}
	var idempotent, autonomy, description bool
	for _, f := range v.Fields {
		t.FieldPos[f.Key] = f.KeyPos
		fv := f.Value
		ok := true
		switch f.Key {
		case "name":
			var s string
			s, ok = directString(fv)
			ok = ok && s == t.Name
		case "original_name":
			t.OriginalName, ok = directString(fv)
			ok = ok && directName.MatchString(t.OriginalName)
		case "description":
			t.Description, ok = directString(fv)
			description = true
		case "category":
			t.Category, ok = directString(fv)
		case "version":
			t.Version, ok = directString(fv)
		case "owner":
			t.Owner, ok = directString(fv)
		case "capability_required":
			t.CapabilityRequired, ok = directString(fv)
		case "risk":
			t.Risk, ok = directEnum(fv, directRisks)
		case "has_side_effects":
			t.HasSideEffects, ok = directBool(fv)
		case "side_effect":
			t.SideEffect, ok = directEnum(fv, directSideEffects)
		case "idempotent":
			t.Idempotent, ok = directBool(fv)
			idempotent = true
		case "idempotency_required":
			t.IdempotencyRequired, ok = directBool(fv)
		case "supports_dry_run":
			t.SupportsDryRun, ok = directBool(fv)
		case "revertible":
			t.Revertible, ok = directBool(fv)
		case "returns_untrusted":
			t.ReturnsUntrusted, ok = directBool(fv)
		case "idempotency_key":
			t.IdempotencyKey, ok = directEnum(fv, directIdemKeys)
		case "exposure":
			t.Exposure, ok = directEnum(fv, directExposures)
		case "autonomy":
			t.Autonomy, ok = directEnum(fv, Autonomies)
			autonomy = true
		case "additional_args":
			t.AdditionalArgs, ok = directEnum(fv, directAdditionalArgs)
		case "max_retries":
			t.MaxRetries, ok = directInt(fv, 0, 100)
		case "sla_ms":
			t.SLAms, ok = directInt(fv, 1, 1<<62)
		case "max_result_bytes":
			t.MaxResultBytes, ok = directInt(fv, 1, 1<<30)
		case "fallback_tool":
			if fv.Kind != Null {
				t.FallbackTool, ok = directString(fv)
				ok = ok && directName.MatchString(t.FallbackTool)
			}
		case "dependencies":
			t.Dependencies, t.DependencyPos, ok = directStrings(fv, directName.MatchString)
		case "renamed_from":
			t.RenamedFrom, t.RenamedFromPos, ok = directStrings(fv, directName.MatchString)
		case "queries":
			t.Queries, t.QueryPos, ok = directStrings(fv, directQuery)
			ok = ok && len(t.Queries) <= maxQueries
		case "errors":
			t.Errors, ok = directErrors(fv)
		case "examples":
			t.Examples, ok = directExamples(fv)
		case "suppress":
			t.Suppress, ok = directSuppressions(fv)
		case "args", "result":
			// Set aside in l.schemas; the format requires nothing of them.
		default:
			ok = false
		}
		if !ok {
			return nil, false
		}
	}
	if !description {
		return nil, false
	}
	if !idempotent {
		t.Idempotent = !t.HasSideEffects
	}
	if !autonomy {
		switch {
		case !t.HasSideEffects:
			t.Autonomy = AutonomyReadOnly
		case t.Risk == RiskHigh:
			t.Autonomy = AutonomyFull
		default:
			t.Autonomy = AutonomySupervised
		}
	}
	if f, ok := l.schemas[[2]string{t.Name, "args"}]; ok {
		t.Args = f.Value
	} else {
		t.Args = defaultArgs(t.Pos)
	}
	if f, ok := l.schemas[[2]string{t.Name, "result"}]; ok {
		t.Result = f.Value
	}
	return t, true
}

// defaultArgs is #Tool.args's default, a schema of no arguments, at p.
func defaultArgs(p Pos) *Node {
	field := func(key string, v *Node) *Field {
		v.Pos = p
		return &Field{Key: key, KeyPos: p, Value: v}
	}
	return &Node{Kind: Object, Pos: p, Fields: []*Field{
		field("type", &Node{Kind: String, Str: "object"}),
		field("properties", &Node{Kind: Object}),
		field("additionalProperties", &Node{Kind: Bool}),
	}}
}

func directString(n *Node) (string, bool) {
	if n.Kind != String || !utf8.ValidString(n.Str) {
		return "", false
	}
	return n.Str, true
}

func directBool(n *Node) (bool, bool) {
	return n.Bool, n.Kind == Bool
}

func directEnum[S ~string](n *Node, values []S) (S, bool) {
	s, ok := directString(n)
	if !ok || !slices.Contains(values, S(s)) {
		return "", false
	}
	return S(s), true
}

// directInt reads an integer in [lo, hi] written as one: CUE takes a
// number with a fraction or an exponent as a float, which an int field
// refuses.
func directInt(n *Node, lo, hi int64) (int, bool) {
	if n.Kind != Number || strings.ContainsAny(n.Num, ".eE") {
		return 0, false
	}
	i, err := strconv.ParseInt(n.Num, 10, 64)
	if err != nil || i < lo || i > hi {
		return 0, false
	}
	return int(i), true
}

// directNumber reports whether a number is within float64's range, as
// every number the YAML parser writes is; JSON may write others, which
// CUE's decimals may refuse.
func directNumber(n *Node) bool {
	_, err := strconv.ParseFloat(n.Num, 64)
	return err == nil
}

// directQuery is #Query: 1 to 300 characters, not all blank.
func directQuery(s string) bool {
	n := utf8.RuneCountInString(s)
	return n >= 1 && n <= maxQueryRunes && directNonBlank.MatchString(s)
}

// directStrings reads a list of strings that valid accepts, with the
// position of each.
func directStrings(n *Node, valid func(string) bool) ([]string, []Pos, bool) {
	if n.Kind != Array {
		return nil, nil, false
	}
	var out []string
	var pos []Pos
	for _, it := range n.Items {
		s, ok := directString(it)
		if !ok || !valid(s) {
			return nil, nil, false
		}
		out = append(out, s)
		pos = append(pos, it.Pos)
	}
	return out, pos, true
}

func directErrors(n *Node) ([]ErrorHint, bool) {
	if n.Kind != Object {
		return nil, false
	}
	var out []ErrorHint
	for _, f := range n.Fields {
		if !directCode(f.Key) || f.Value.Kind != Object {
			return nil, false
		}
		h := ErrorHint{Code: f.Key, Pos: f.KeyPos}
		for _, hf := range f.Value.Fields {
			ok := false
			switch hf.Key {
			case "suggestion":
				h.Suggestion, ok = directString(hf.Value)
			case "retry_allowed":
				var b bool
				b, ok = directBool(hf.Value)
				h.RetryAllowed = &b
			}
			if !ok {
				return nil, false
			}
		}
		out = append(out, h)
	}
	return out, true
}

func directCode(s string) bool { return slices.Contains(directErrorCodes, s) }

// directObjects decodes each item of the array n, an object, with item.
func directObjects[T any](n *Node, item func(*Node) (T, bool)) ([]T, bool) {
	if n.Kind != Array {
		return nil, false
	}
	var out []T
	for _, it := range n.Items {
		if it.Kind != Object {
			return nil, false
		}
		v, ok := item(it)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

func directExamples(n *Node) ([]Example, bool) {
	return directObjects(n, func(it *Node) (Example, bool) {
		ex := Example{Pos: it.Pos}
		for _, f := range it.Fields {
			ok := true
			switch f.Key {
			case "description":
				ex.Description, ok = directString(f.Value)
			case "args":
				ex.Args, ok = f.Value, f.Value.Kind == Object && directJSON(f.Value)
			case "result":
				ex.Result, ok = f.Value, directJSON(f.Value)
			case "error":
				ex.Error, ok = directString(f.Value)
				ok = ok && directCode(ex.Error)
			default:
				ok = false
			}
			if !ok {
				return ex, false
			}
		}
		if ex.Args == nil {
			ex.Args = &Node{Kind: Object, Pos: ex.Pos}
		}
		return ex, true
	})
}

// directJSON reports whether CUE takes every string, key and number of
// n as written.
func directJSON(n *Node) bool {
	switch n.Kind {
	case Number:
		return directNumber(n)
	case String:
		return utf8.ValidString(n.Str)
	case Object:
		for _, f := range n.Fields {
			if !utf8.ValidString(f.Key) || !directJSON(f.Value) {
				return false
			}
		}
	case Array:
		for _, it := range n.Items {
			if !directJSON(it) {
				return false
			}
		}
	}
	return true
}

func directSuppressions(n *Node) ([]Suppression, bool) {
	return directObjects(n, func(it *Node) (Suppression, bool) {
		s := Suppression{Pos: it.Pos}
		var rule, reason bool
		for _, f := range it.Fields {
			str, ok := directString(f.Value)
			switch {
			case !ok:
				return s, false
			case f.Key == "rule" && directRule.MatchString(str):
				s.Rule, rule = str, true
			case f.Key == "reason" && directNonBlank.MatchString(str):
				s.Reason, reason = str, true
			default:
				return s, false
			}
		}
		return s, rule && reason
	})
}
