package data

import (
	"math/rand/v2"
	"slices"
)

func init() {
	Register("reverse", func(opt Options) (Task, error) {
		a, err := newAlphabet(opt)
		if err != nil {
			return nil, err
		}
		return reverseTask{a}, nil
	})
}

// reverseTask: Output = Input reversed.
type reverseTask struct{ alphabet }

func (reverseTask) Name() string        { return "reverse" }
func (reverseTask) OutputLen(L int) int { return L }
func (r reverseTask) Generate(rng *rand.Rand, L int) Example {
	in := r.draw(rng, L)
	out := slices.Clone(in)
	slices.Reverse(out)
	return Example{Input: in, Output: out}
}
