package setup

import (
	"slices"
	"strings"

	"github.com/posformer/posformer/config"
)

// GridWarnings collects the config warnings of a grid's cells, each once, prefixed with the
// groups it concerns (config.GroupOf); warn gives cell i's (Checked.Warnings of a checked cell;
// nil: its config's, Warnings).
func GridWarnings(cells []config.Cell, warn func(i int) []string) []string {
	var order []string
	groups := map[string][]string{}
	for i, c := range cells {
		var ws []string
		if warn != nil {
			ws = warn(i)
		} else {
			ws = Warnings(c.Config)
		}
		for _, w := range ws {
			if _, ok := groups[w]; !ok {
				order = append(order, w)
			}
			label := config.GroupOf(c).String()
			if !slices.Contains(groups[w], label) {
				groups[w] = append(groups[w], label)
			}
		}
	}
	out := make([]string, len(order))
	for i, w := range order {
		out[i] = strings.Join(groups[w], "; ") + ": " + w
	}
	return out
}
