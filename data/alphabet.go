package data

import (
	"fmt"
	"math/rand/v2"
)

// alphabet holds the symbol set shared by the built-in tasks.
type alphabet struct{ symbols int }

func newAlphabet(opt Options) (alphabet, error) {
	n, err := opt.symbols()
	return alphabet{symbols: n}, err
}

// Vocab is FirstSymbol + Symbols.
func (a alphabet) Vocab() int { return FirstSymbol + a.symbols }

// draw returns L symbols uniform over the alphabet. It panics if L < 1.
func (a alphabet) draw(rng *rand.Rand, L int) []int {
	if L < 1 {
		panic(fmt.Sprintf("data: input length must be >= 1, got %d", L))
	}
	in := make([]int, L)
	for i := range in {
		in[i] = FirstSymbol + rng.IntN(a.symbols)
	}
	return in
}
