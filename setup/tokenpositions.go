package setup

import (
	"fmt"
	"math/rand/v2"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/position"
)

// checkTokenPositions asks a scheme that derives positions from the tokens
// (position.TokenPositioner) for those of an example at the longest training length, with the
// training offsets, and at the longest test length, without: a table too short for them is
// refused before training rather than at the evaluation (an addition example's numbers have the
// lengths of every other at its length).
func checkTokenPositions(s position.Scheme, task data.Task, trainLen, testLen int) error {
	tp, ok := s.(position.TokenPositioner)
	if !ok {
		return nil
	}
	for _, l := range []struct {
		L   int
		rng *rand.Rand
	}{{trainLen, rand.New(rand.NewPCG(1, 2))}, {testLen, nil}} {
		ex, err := data.TestSet(task, l.L, 1, 0)
		if err != nil {
			return err
		}
		b, err := data.MakeBatch(task, ex)
		if err != nil {
			return err
		}
		if _, err := tp.TokenPositions(b.Inputs, b.B, b.T, l.rng); err != nil {
			return fmt.Errorf("%w (at length %d)", err, l.L)
		}
	}
	return nil
}
