package breaking

import (
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
	var msgs []string
	for _, key := range sortedKeys(oa) {
		ov := oa[key]
		nv, ok := resolve(na, key)
		switch {
		case !ok:
			msgs = append(msgs, key+" removed")
		case nv != ov && !(strings.HasPrefix(nv, "type = ") && (ov == "struct" || ov == "interface")):
			msgs = append(msgs, key+" changed from "+ov+" to "+nv)
		}
	}
	for _, key := range sortedKeys(na) {
		parent, _, isMember := strings.Cut(key, ".")
		if _, had := resolve(oa, key); had || !isMember {
			continue
		}
		if oa[parent] == "interface" && strings.HasPrefix(na[key], "method ") {
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

func sortedKeys(a API) []string {
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
