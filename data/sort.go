package data

import (
	"math/rand/v2"
	"slices"
)

func init() {
	Register("sort", func(opt Options) (Task, error) {
		a, err := newAlphabet(opt)
		if err != nil {
			return nil, err
		}
		return sortTask{a}, nil
	})
}

// sortTask: Output = Input sorted ascending (duplicates kept).
type sortTask struct{ alphabet }

func (sortTask) Name() string        { return "sort" }
func (sortTask) OutputLen(L int) int { return L }
func (s sortTask) Generate(rng *rand.Rand, L int) Example {
	in := s.draw(rng, L)
	out := slices.Clone(in)
	slices.Sort(out)
	return Example{Input: in, Output: out}
}
