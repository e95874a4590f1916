package setup

import (
	"slices"
	"testing"

	"github.com/posformer/posformer/config"
)

// TestGridWarnings: each warning is listed once, in the order of its first cell, after the
// groups it concerns (each group once, seeds folded into their group).
func TestGridWarnings(t *testing.T) {
	cell := func(task, scheme, seed string) config.Cell {
		var c config.Cell
		c.Config.Task.Name, c.Config.Position.Kind = task, scheme
		c.Values = map[string]string{"position.kind": scheme, "seed": seed}
		return c
	}
	cells := []config.Cell{cell("copy", "t5", "1"), cell("copy", "t5", "2"), cell("copy", "rope", "1"), cell("copy", "alibi", "1")}
	warns := [][]string{{"w1", "w2"}, {"w1"}, {"w2", "w1"}, nil}
	got := GridWarnings(cells, func(i int) []string { return warns[i] })
	want := []string{"copy · t5; copy · rope: w1", "copy · t5; copy · rope: w2"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := GridWarnings(cells, func(int) []string { return nil }); len(got) != 0 {
		t.Errorf("no warnings: got %q", got)
	}
}
