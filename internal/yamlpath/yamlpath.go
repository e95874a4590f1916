// Package yamlpath locates a path of keys and list items ("eval.variants[1].rope_factor") in a
// parsed YAML document: the one locator config (the line of a key an error names) and claims (the
// node of a dotted path, whether a mapping has a key) share.
package yamlpath

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Step is one step of a path: a mapping's key and, when Index ≥ 0, the item of that index in
// the key's sequence value.
type Step struct {
	Key   string
	Index int
}

// Steps parses path parts ("eval", "variants[1]", "rope_factor"); false when a part's index is
// not a whole number ≥ 0.
func Steps(parts ...string) ([]Step, bool) {
	steps := make([]Step, len(parts))
	for i, p := range parts {
		steps[i] = Step{Key: p, Index: -1}
		if open := strings.IndexByte(p, '['); open > 0 && strings.HasSuffix(p, "]") {
			n, err := strconv.Atoi(p[open+1 : len(p)-1])
			if err != nil || n < 0 {
				return nil, false
			}
			steps[i] = Step{Key: p[:open], Index: n}
		}
	}
	return steps, true
}

// Hop is a step Walk took: the key in its mapping, and its value (or the value's item, Item).
type Hop struct {
	Key, Node *yaml.Node
	Item      bool
}

// Trail is where a walk went.
type Trail struct {
	Hops  []Hop // the steps taken, in order
	Found bool  // every step was taken
	// When not Found, why: NoKey, the next step's key is not in the node reached (or that node
	// is no mapping); else Seq is the key's value, which is no sequence or too short for the index.
	NoKey bool
	Seq   *yaml.Node
}

// Walk follows steps from n (a mapping). A key written twice is its last writing, as the
// decoder reads it.
func Walk(n *yaml.Node, steps []Step) Trail {
	var t Trail
	cur := n
	for _, s := range steps {
		var key, next *yaml.Node
		for i := 0; cur != nil && cur.Kind == yaml.MappingNode && i+1 < len(cur.Content); i += 2 {
			if cur.Content[i].Value == s.Key {
				key, next = cur.Content[i], cur.Content[i+1]
			}
		}
		if next == nil {
			t.NoKey = true
			return t
		}
		if s.Index >= 0 {
			if next.Kind != yaml.SequenceNode || s.Index >= len(next.Content) {
				t.Seq = next
				return t
			}
			t.Hops = append(t.Hops, Hop{Key: key, Node: next.Content[s.Index], Item: true})
		} else {
			t.Hops = append(t.Hops, Hop{Key: key, Node: next})
		}
		cur = t.Hops[len(t.Hops)-1].Node
	}
	t.Found = true
	return t
}

// Reached is the last node the walk reached: the path's node when Found, else the node whose
// key was missing (n itself when the first was), or the value too short for the index.
func (t Trail) Reached(n *yaml.Node) *yaml.Node {
	switch {
	case t.Seq != nil:
		return t.Seq
	case len(t.Hops) == 0:
		return n
	}
	return t.Hops[len(t.Hops)-1].Node
}

// Has tells whether mapping n has key.
func Has(n *yaml.Node, key string) bool { return Walk(n, []Step{{Key: key, Index: -1}}).Found }
