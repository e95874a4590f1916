package data

import (
	"math/rand/v2"
	"slices"
)

func init() {
	Register("copy", func(opt Options) (Task, error) {
		a, err := newAlphabet(opt)
		if err != nil {
			return nil, err
		}
		return copyTask{a}, nil
	})
}

// copyTask: Output = Input.
type copyTask struct{ alphabet }

func (copyTask) Name() string        { return "copy" }
func (copyTask) OutputLen(L int) int { return L }
func (c copyTask) Generate(rng *rand.Rand, L int) Example {
	in := c.draw(rng, L)
	return Example{Input: in, Output: slices.Clone(in)}
}
