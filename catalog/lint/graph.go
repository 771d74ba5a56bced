package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// toolNames lists the catalog's tool names, sorted.
func toolNames(c *catalog.Catalog) []string {
	names := make([]string, len(c.Tools))
	for i, t := range c.Tools {
		names[i] = t.Name
	}
	return names
}

// findCycles returns the cycles of a directed graph over the catalog's
// tools, one per strongly connected component with a loop, each as the
// path from the component's first tool (by name) back to itself.
func findCycles(c *catalog.Catalog, edges func(t *catalog.Tool) []*catalog.Tool) [][]*catalog.Tool {
	// Tarjan's algorithm, iterative over tools in name order.
	index := map[*catalog.Tool]int{}
	low := map[*catalog.Tool]int{}
	onStack := map[*catalog.Tool]bool{}
	var stack []*catalog.Tool
	var sccs [][]*catalog.Tool
	next := 0
	var strong func(v *catalog.Tool)
	strong = func(v *catalog.Tool) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range edges(v) {
			if _, seen := index[w]; !seen {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var scc []*catalog.Tool
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				scc = append(scc, w)
				if w == v {
					break
				}
			}
			sccs = append(sccs, scc)
		}
	}
	for _, t := range c.Tools {
		if _, seen := index[t]; !seen {
			strong(t)
		}
	}
	var cycles [][]*catalog.Tool
	for _, scc := range sccs {
		in := map[*catalog.Tool]bool{}
		first := scc[0]
		for _, t := range scc {
			in[t] = true
			if t.Name < first.Name {
				first = t
			}
		}
		if len(scc) == 1 && !contains(edges(first), first) {
			continue
		}
		cycles = append(cycles, cyclePath(first, in, edges))
	}
	return cycles
}

// cyclePath finds a shortest path from start back to start inside one
// strongly connected component.
func cyclePath(start *catalog.Tool, in map[*catalog.Tool]bool, edges func(*catalog.Tool) []*catalog.Tool) []*catalog.Tool {
	prev := map[*catalog.Tool]*catalog.Tool{}
	queue := []*catalog.Tool{start}
	seen := map[*catalog.Tool]bool{}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range edges(v) {
			if !in[w] {
				continue
			}
			if w == start {
				path := []*catalog.Tool{start}
				for x := v; x != start; x = prev[x] {
					path = append(path, x)
				}
				// reverse all but the first, then close the loop
				for i, j := 1, len(path)-1; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return append(path, start)
			}
			if !seen[w] {
				seen[w] = true
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	return []*catalog.Tool{start, start}
}

func contains(ts []*catalog.Tool, t *catalog.Tool) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// pathString formats a cycle as a → b → a.
func pathString(path []*catalog.Tool) string {
	s := ""
	for i, t := range path {
		if i > 0 {
			s += " → "
		}
		s += t.Name
	}
	return s
}
