// Package yamlkind names what a YAML node holds, for the one-line errors of the config decoders
// (train's and each position scheme's options), so both say it the same way.
package yamlkind

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Of says what n is, as an error message puts it: "a mapping", "a list", "nothing" (an empty
// value), the quoted scalar, or "an alias".
func Of(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "an alias"
}
