package yamlpath

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"go.yaml.in/yaml/v3"
)

// random builds a random document of nested mappings, lists and scalars.
func random(r *rand.Rand, depth int) any {
	switch k := r.IntN(3); {
	case depth == 0 || k == 0:
		return r.IntN(100)
	case k == 1:
		m := map[string]any{}
		for i := 0; i < 1+r.IntN(4); i++ {
			m[fmt.Sprintf("k%d", r.IntN(6))] = random(r, depth-1)
		}
		return m
	default:
		var l []any
		for i := 0; i < 1+r.IntN(3); i++ {
			l = append(l, random(r, depth-1))
		}
		return l
	}
}

// every collects each mapping key of the tree by its path parts, and each sequence's items.
func every(n *yaml.Node, parts []string, out map[string]Hop, seqs map[string]*yaml.Node) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p := append(append([]string(nil), parts...), k.Value)
		out[fmt.Sprint(p)] = Hop{Key: k, Node: v}
		every(v, p, out, seqs)
		if v.Kind == yaml.SequenceNode {
			seqs[fmt.Sprint(p)] = v
			for j, it := range v.Content {
				q := append(append([]string(nil), parts...), fmt.Sprintf("%s[%d]", k.Value, j))
				out[fmt.Sprint(q)] = Hop{Key: k, Node: it, Item: true}
				every(it, q, out, seqs)
			}
		}
	}
}

// TestWalk: over many random documents, every key and list item is found at its own node (the
// tree walked independently), a key missing under any of them stops there (NoKey, Reached is
// that node), and an index past a list's end stops at the list (Seq).
func TestWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	checked := 0
	for doc := 0; doc < 300; doc++ {
		top := map[string]any{"k0": random(r, 4), "k1": random(r, 4)}
		src, err := yaml.Marshal(top)
		if err != nil {
			t.Fatal(err)
		}
		var d yaml.Node
		if err := yaml.Unmarshal(src, &d); err != nil {
			t.Fatal(err)
		}
		root := d.Content[0]
		hops, seqs := map[string]Hop{}, map[string]*yaml.Node{}
		var paths [][]string
		var collect func(n *yaml.Node, parts []string)
		collect = func(n *yaml.Node, parts []string) {
			if n.Kind != yaml.MappingNode {
				return
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i].Value, n.Content[i+1]
				p := append(append([]string(nil), parts...), k)
				paths = append(paths, p)
				collect(v, p)
				for j, it := range v.Content {
					if v.Kind == yaml.SequenceNode {
						q := append(append([]string(nil), parts...), fmt.Sprintf("%s[%d]", k, j))
						paths = append(paths, q)
						collect(it, q)
					}
				}
			}
		}
		every(root, nil, hops, seqs)
		collect(root, nil)
		for _, p := range paths {
			steps, ok := Steps(p...)
			if !ok {
				t.Fatalf("%q does not parse", p)
			}
			tr := Walk(root, steps)
			want := hops[fmt.Sprint(p)]
			if !tr.Found || len(tr.Hops) != len(p) || tr.Hops[len(p)-1] != want || tr.Reached(root) != want.Node {
				t.Fatalf("%s\n%q: %+v, want the last hop %+v", src, p, tr, want)
			}
			missing := Walk(root, append(steps, Step{Key: "absent", Index: -1}))
			if missing.Found || !missing.NoKey || missing.Reached(root) != want.Node {
				t.Fatalf("%q.absent: %+v, want it to stop at %q's node", p, missing, p)
			}
			if s, ok := seqs[fmt.Sprint(p)]; ok {
				past := append(steps[:len(steps)-1:len(steps)-1], Step{Key: steps[len(steps)-1].Key, Index: len(s.Content)})
				if tr := Walk(root, past); tr.Found || tr.NoKey || tr.Seq != s || tr.Reached(root) != s {
					t.Fatalf("%q past its end: %+v, want it to stop at the list", p, tr)
				}
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Errorf("only %d paths checked", checked)
	}
}

// TestStepsAndHas: an index that is not a whole number ≥ 0 does not parse; a part with no key
// before its bracket is a plain key; Has sees a mapping's keys only.
func TestStepsAndHas(t *testing.T) {
	for _, bad := range []string{"a[-1]", "a[x]", "a[]"} {
		if _, ok := Steps("top", bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
	if s, ok := Steps("[0]", "a[2]"); !ok || s[0] != (Step{"[0]", -1}) || s[1] != (Step{"a", 2}) {
		t.Errorf("Steps: %v %v", s, ok)
	}
	var d yaml.Node
	yaml.Unmarshal([]byte("a: 1\nb: [x]\n"), &d)
	if !Has(d.Content[0], "a") || Has(d.Content[0], "x") || Has(nil, "a") || Has(d.Content[0].Content[3], "x") {
		t.Error("Has: want a mapping's keys only")
	}
}
