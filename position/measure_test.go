package position_test

import (
	"testing"

	"github.com/posformer/posformer/position"
	"gorgonia.org/tensor"
)

// TestMeasures: the measurement functions the claims command reports agree with the identities
// (small errors) and can tell a wrong identity from a right one.
func TestMeasures(t *testing.T) {
	offsets := []int{0, 1, 7, 100, 2047}
	if e := position.ShiftRotationError(64, 10000, 2049, offsets); e > 1e-9 {
		t.Errorf("ShiftRotationError = %g", e)
	}
	if e := position.DotOffsetError(64, 10000, 2049, 16); e > 1e-9 {
		t.Errorf("DotOffsetError = %g", e)
	}
	s, err := position.New(position.Spec{Kind: "rope"}, position.Dims{DModel: 64, Heads: 4, Dtype: tensor.Float64})
	if err != nil {
		t.Fatal(err)
	}
	if e := position.RoPERelativeError(s.(*position.RoPE), 500, 2048, 1); e > 1e-9 {
		t.Errorf("RoPERelativeError = %g", e)
	}
	// float32 arithmetic at p = 100000 is far off; casting a float64 result is within float32 rounding.
	computed, cast := position.Float32Error(100000, 64, 10000)
	if !(computed > 1e-3) || !(cast < 1e-7) {
		t.Errorf("position.Float32Error(1e5) = %g computed, %g cast", computed, cast)
	}
}
