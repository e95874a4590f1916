package report

import (
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/position"
)

// TestSchemeBase: the sinusoidal plots take a sinusoidal cell's base and the rope plot a rope
// cell's, whichever comes first in the grid (rope's base 500000 is no sinusoidal base), and the
// default when the grid has no cell of the kind.
func TestSchemeBase(t *testing.T) {
	cell := func(spec config.Position) config.Cell {
		var c config.Config
		c.Position = spec
		return config.Cell{Config: c}
	}
	g := &grid.Grid{Cells: []config.Cell{
		cell(config.Position{Spec: position.Spec{Kind: "rope"}}.With("base", 500000.0)),
		cell(config.Position{Spec: position.Spec{Kind: "none"}}),
		cell(config.Position{Spec: position.Spec{Kind: "sinusoidal"}}.With("base", 2000.0)),
	}}
	if b := schemeBase(g, "sinusoidal"); b != 2000 {
		t.Errorf("sinusoidal base %g, want 2000", b)
	}
	if b := schemeBase(g, "rope"); b != 500000 {
		t.Errorf("rope base %g, want 500000", b)
	}
	g.Cells = g.Cells[:2]
	if b := schemeBase(g, "sinusoidal"); b != position.DefaultBase {
		t.Errorf("no sinusoidal cell: base %g, want the default %g", b, position.DefaultBase)
	}
}
