package breaking

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// GoAPIChanged reports changes of the generated Go API that stop users'
// code from compiling.
var GoAPIChanged = &Rule{
	ID:       "GO_API_CHANGED",
	Category: Go,
	Purpose:  "Reports changes of a tool's generated Go API that break code compiled against it: a type, field, function or method removed or changed, a method added to the interface users implement.",
	Check: func(p *Pass) {
		if p.Old.GoAPI == nil || p.New.GoAPI == nil {
			return
		}
		for _, pr := range p.Pairs {
			checkGoAPI(p, pr.Old, pr.New)
		}
	},
}

func checkGoAPI(p *Pass, old, new *catalog.Tool) {
	oa, na := p.Old.GoAPI[old.Name], p.New.GoAPI[new.Name]
	if oa == nil || na == nil {
		return
	}
	// The new package's aliases stand for what they alias: with
	// type Old = New, a field of type Old is a field of type New.
	aliases := map[string]string{}
	renamedTo := map[string]string{} // current name → the old name aliasing it
	for k, v := range na {
		// Only names that were declarations and are now aliases: an
		// alias both versions declare stays as written.
		if t, ok := strings.CutPrefix(v, "type = "); ok && goIdent.MatchString(t) && oa[k] != "" && oa[k] != v {
			aliases[k] = t
			renamedTo[t] = k
		}
	}
	var msgs []string
	for _, key := range sortedKeys(oa) {
		ov := goIdentWord.ReplaceAllStringFunc(oa[key], func(w string) string {
			if a, ok := aliases[w]; ok {
				return a
			}
			return w
		})
		nv, ok := resolve(na, key)
		switch {
		case !ok:
			msgs = append(msgs, key+" removed")
		case nv != ov && !sameAlias(na, nv, ov):
			msgs = append(msgs, key+" changed from "+ov+" to "+nv)
		}
	}
	for _, key := range sortedKeys(na) {
		parent, member, isMember := strings.Cut(key, ".")
		if _, had := resolve(oa, key); had || !isMember {
			continue
		}
		if _, had := oa[renamedTo[parent]+"."+member]; had {
			continue
		}
		if (oa[parent] == "interface" || oa[renamedTo[parent]] == "interface") && strings.HasPrefix(na[key], "method ") {
			msgs = append(msgs, "method "+key+" added to an interface users implement")
		}
	}
	if len(msgs) == 0 {
		return
	}
	const show = 5
	more := ""
	if len(msgs) > show {
		more = "; and " + strconv.Itoa(len(msgs)-show) + " more"
		msgs = msgs[:show]
	}
	p.Reportf(new.Name, new.Pos, "%s: the generated Go API changed: %s%s; code compiled against the old package breaks", new.Name, strings.Join(msgs, "; "), more)
}

// sameAlias reports whether nv, a type alias in api, stands for a
// declaration written ov, through up to 8 aliases.
func sameAlias(api API, nv, ov string) bool {
	for range 8 {
		t, ok := strings.CutPrefix(nv, "type = ")
		if !ok {
			return false
		}
		if nv = api[t]; nv == ov || "type = "+t == ov {
			return true
		}
	}
	return false
}

// resolve looks key up in api, following type aliases for the type part
// of a member: with "type Old = New", "Old.Field" is "New.Field".
func resolve(api API, key string) (string, bool) {
	if v, ok := api[key]; ok {
		return v, true
	}
	typ, member, ok := strings.Cut(key, ".")
	if !ok {
		return "", false
	}
	for range 8 {
		v, ok := api[typ]
		if !ok || !strings.HasPrefix(v, "type = ") {
			return "", false
		}
		typ = strings.TrimPrefix(strings.TrimPrefix(v, "type = "), "*")
		if v, ok := api[typ+"."+member]; ok {
			return v, true
		}
	}
	return "", false
}

var (
	goIdent     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	goIdentWord = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

func sortedKeys(a API) []string {
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
