package ops

import (
	"errors"
	"fmt"
	"hash"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// sameHashGELU is GELU with a hash code that does not depend on the instance: two of them on one
// input collide the way two of our ops do when their 32-bit hash codes happen to be equal.
type sameHashGELU struct{ geluOp }

func (op *sameHashGELU) WriteHash(h hash.Hash) { fmt.Fprint(h, "posformer.sameHashGELU") }
func (op *sameHashGELU) Hashcode() uint32      { return 7 }

// TestApplyRefusesMergedNode: when Gorgonia hands back an existing node for a new op (equal
// hash codes, ExprGraph.AddNode), apply returns ErrHashCollision instead of a node that computes
// the other op's value; an op with its own hash code gets its own node.
func TestApplyRefusesMergedNode(t *testing.T) {
	g := G.NewGraph()
	x := G.NewMatrix(g, tensor.Float64, G.WithShape(2, 3), G.WithName("x"))
	if _, err := apply(&sameHashGELU{geluOp{base: newBase("GELU", 1)}}, x); err != nil {
		t.Fatal(err)
	}
	if _, err := apply(&sameHashGELU{geluOp{base: newBase("GELU", 1)}}, x); !errors.Is(err, ErrHashCollision) {
		t.Fatalf("second op with the same hash code: err = %v, want ErrHashCollision", err)
	}
	if _, err := GELU(x); err != nil {
		t.Fatalf("GELU with its own hash code: %v", err)
	}
}
