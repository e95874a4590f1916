package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The YAML reader's own limits, checked on the parsed tree before anything walks it with its
// aliases expanded: a few hundred bytes of anchors and aliases (`&a1 [*a0, *a0, ...]`, ten
// wide and ten deep) stand for 10^10 nodes, and expanding them would take the machine. A config
// expands to a few hundred nodes and a claims file to a few thousand; the limits are far above
// both and far below what costs memory (a node is about 200 bytes).
const (
	// maxYAMLNodes bounds the nodes of a document counted with every alias expanded.
	maxYAMLNodes = 100_000
	// maxYAMLDepth bounds the nesting of a document, aliases expanded.
	maxYAMLDepth = 64
)

// ParseYAML parses the single YAML document in src (file labels errors) and returns its root
// node, nil for an empty document. It refuses, with one line naming the file, the line and the
// key: a syntax error, several documents, and a document past maxYAMLNodes or maxYAMLDepth once
// its aliases are expanded. The check walks each distinct node once, so refusing a bomb costs
// what parsing its bytes costs. Every YAML file posformer reads goes through it.
func ParseYAML(src []byte, file string) (*yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, syntaxError(file, err)
	}
	for {
		var next yaml.Node
		err := dec.Decode(&next)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, syntaxError(file, err)
		}
		if len(next.Content) > 0 && !(next.Content[0].Kind == yaml.ScalarNode && next.Content[0].Tag == "!!null") {
			return nil, fmt.Errorf("%s:%d: the file holds several YAML documents (separated by ---); a config is one document, so remove the extra ones", file, max(next.Content[0].Line, 1))
		}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if err := checkLimits(root, file); err != nil {
		return nil, err
	}
	return root, nil
}

// expansion is the size of a node's subtree with its aliases expanded: nodes (saturating just
// past maxYAMLNodes) and depth.
type expansion struct{ nodes, depth int }

// checkLimits refuses a tree whose expansion passes the limits, naming the deepest key whose
// value alone passes them.
func checkLimits(root *yaml.Node, file string) error {
	memo := map[*yaml.Node]expansion{}
	var size func(n *yaml.Node) expansion
	size = func(n *yaml.Node) expansion {
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		if e, ok := memo[n]; ok {
			return e
		}
		e := expansion{nodes: 1, depth: 1}
		memo[n] = e // a node that contains itself (the parser refuses it) counts once
		for _, c := range n.Content {
			ce := size(c)
			e.nodes = min(e.nodes+ce.nodes, maxYAMLNodes+1)
			e.depth = min(max(e.depth, ce.depth+1), maxYAMLDepth+1)
		}
		memo[n] = e
		return e
	}
	over := func(n *yaml.Node) bool {
		e := size(n)
		return e.nodes > maxYAMLNodes || e.depth > maxYAMLDepth
	}
	if !over(root) {
		return nil
	}
	// Walk down to the deepest value that passes the limits by itself.
	var path []string
	n, line := root, root.Line
	for descended := true; descended; {
		descended = false
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		for i, c := range n.Content {
			if !over(c) {
				continue
			}
			switch {
			case n.Kind == yaml.MappingNode && i%2 == 1:
				path, line = append(path, n.Content[i-1].Value), n.Content[i-1].Line
			case n.Kind == yaml.SequenceNode:
				path = append(path, fmt.Sprintf("[%d]", i))
			}
			n, descended = c, true
			break
		}
	}
	where := strings.ReplaceAll(strings.Join(path, "."), ".[", "[")
	if where == "" {
		where = "the document"
	}
	e := size(root)
	what := fmt.Sprintf("holds more than %d values", maxYAMLNodes)
	if e.nodes <= maxYAMLNodes {
		what = fmt.Sprintf("nests more than %d levels deep", maxYAMLDepth)
	}
	return fmt.Errorf("%s:%d: %s %s once its aliases (*name) are expanded, past the YAML reader's limit; write the values out and use fewer aliases", file, line, where, what)
}
