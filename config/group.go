package config

import (
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Group identifies the runs that are aggregated together: everything a grid varies except the
// seed. Variant lists the swept fields other than task.name, position.kind and seed.
type Group struct {
	Task    string `json:"task"`
	Scheme  string `json:"scheme"`
	Variant string `json:"variant,omitempty"`
}

func (g Group) String() string {
	s := g.Task + " · " + g.Scheme
	if g.Variant != "" {
		s += " · " + g.Variant
	}
	return s
}

// GroupOf is the group of a cell.
func GroupOf(c Cell) Group {
	g := Group{Task: c.Config.Task.Name, Scheme: c.Config.Position.Kind}
	var rest []string
	for _, k := range slices.Sorted(maps.Keys(c.Values)) {
		if k == "task.name" || k == "position.kind" || k == "seed" {
			continue
		}
		rest = append(rest, variantParts(k, c.Values[k])...)
	}
	g.Variant = strings.Join(rest, ",")
	return g
}

// variantParts names one swept value in a group's variant: "key=value", or for a swept mapping
// such as position: {kind: rope, rope_scaling: ntk} its own fields ("rope_scaling=ntk"), without
// the position's kind or the task's name (task: {name: reverse, symbols: 2} is "symbols=2"),
// which are the group's scheme and task already.
func variantParts(key, value string) []string {
	var n yaml.Node
	if !strings.HasPrefix(value, "{") || yaml.Unmarshal([]byte(value), &n) != nil ||
		len(n.Content) != 1 || n.Content[0].Kind != yaml.MappingNode {
		return []string{key + "=" + value}
	}
	var parts []string
	m := n.Content[0].Content
	for i := 0; i+1 < len(m); i += 2 {
		if (key == "position" && m[i].Value == "kind") || (key == "task" && m[i].Value == "name") {
			continue
		}
		parts = append(parts, m[i].Value+"="+m[i+1].Value)
	}
	return parts
}
