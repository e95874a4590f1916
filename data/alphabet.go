package data

import (
	"fmt"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
)

// alphabet holds the symbol set shared by the tasks whose alphabet size is
// chosen with [Options.Symbols] (copy, reverse, sort, bucket_sort, duplicate,
// odds_first and the Kazemnejad variants).
type alphabet struct{ symbols int }

func newAlphabet(opt Options) (alphabet, error) {
	n, err := opt.symbols()
	return alphabet{symbols: n}, err
}

// Vocab is FirstSymbol + Symbols.
func (a alphabet) Vocab() int { return FirstSymbol + a.symbols }

// draw returns L symbols uniform over the alphabet. It panics if L < 1.
func (a alphabet) draw(rng *rand.Rand, L int) []int {
	checkLen(L)
	in := make([]int, L)
	for i := range in {
		in[i] = FirstSymbol + rng.IntN(a.symbols)
	}
	return in
}

// checkLen panics unless L >= 1, the input lengths every Generate accepts.
func checkLen(L int) {
	if L < 1 {
		panic(fmt.Sprintf("data: input length must be >= 1, got %d", L))
	}
}

// fixedAlphabet checks the options of a task whose alphabet is fixed by its
// definition (parity, binary_addition, stack_manipulation, ...: every task
// that is not one of those with an alphabet above): such a task has no alphabet size to choose, so
// [Options.Symbols] must be left unset. Unset means 0 or DefaultSymbols, the
// value the training config fills in for an unset task.symbols; any other
// value is an error naming task.symbols rather than being silently ignored
// (a sweep over task.symbols would otherwise train identical runs).
// symbols is the task's fixed number of symbols, quoted in the error.
func fixedAlphabet(task string, symbols int, opt Options) error {
	if opt.Symbols == 0 || opt.Symbols == DefaultSymbols {
		return nil
	}
	return fielderr.New("task.symbols", "the %s task has a fixed alphabet (%d symbols) and takes no alphabet size; remove task.symbols (a written %d, the default, is accepted too), got %d",
		task, symbols, DefaultSymbols, opt.Symbols)
}
