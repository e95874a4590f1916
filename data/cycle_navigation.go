package data

import "math/rand/v2"

func init() {
	Register("cycle_navigation", func(opt Options) (Task, error) {
		if err := fixedAlphabet("cycle_navigation", 3+cycleStates, opt); err != nil {
			return nil, err
		}
		return cycleNavigationTask{}, nil
	})
}

// Tokens of the cycle_navigation task.
const (
	cycleStates   = 5               // states 0 .. 4 of the cycle
	cycleBackward = FirstSymbol     // action -1
	cycleStay     = FirstSymbol + 1 // action 0
	cycleForward  = FirstSymbol + 2 // action +1
	cycleState0   = FirstSymbol + 3 // state s is token cycleState0 + s
)

// cycleNavigationTask is "cycle_navigation": Deletang et al.'s Cycle
// Navigation (regular).
//
//   - Input: L actions drawn uniformly and independently from {-1 (backward),
//     0 (stay), +1 (forward)}, tokens FirstSymbol (2), FirstSymbol+1 (3) and
//     FirstSymbol+2 (4). L is the number of actions.
//   - Output: one token, the final state of a walk on a cycle of 5 states that
//     starts at state 0 and applies the actions in order, i.e. the sum of the
//     actions mod 5 (in 0..4). State s is token FirstSymbol+3+s (5 .. 9), its
//     own token, distinct from the actions. OutputLen(L) = 1.
//   - Vocab: FirstSymbol + 3 + 5 = 10. The alphabet is fixed: Options.Symbols
//     must be unset (see fixedAlphabet).
type cycleNavigationTask struct{}

func (cycleNavigationTask) Name() string       { return "cycle_navigation" }
func (cycleNavigationTask) Vocab() int         { return cycleState0 + cycleStates }
func (cycleNavigationTask) OutputLen(int) int  { return 1 }
func (cycleNavigationTask) OutputClasses() int { return cycleStates }
func (cycleNavigationTask) Generate(rng *rand.Rand, L int) Example {
	in := alphabet{symbols: 3}.draw(rng, L)
	state := 0
	for _, tok := range in {
		// tok-cycleStay is the action -1, 0 or +1; adding cycleStates keeps it >= 0.
		state = (state + tok - cycleStay + cycleStates) % cycleStates
	}
	return Example{Input: in, Output: []int{cycleState0 + state}}
}

// Baseline: exact, the walk's distribution over the 5 states after L uniform steps of −1, 0, +1
// (not uniform: after one step the states 4, 0, 1 have 1/3 each).
func (cycleNavigationTask) Baseline(L int) Baseline {
	p := make([]float64, cycleStates)
	p[0] = 1
	for range L {
		next := make([]float64, cycleStates)
		for s, q := range p {
			for d := cycleStates - 1; d <= cycleStates+1; d++ {
				next[(s+d)%cycleStates] += q / 3
			}
		}
		p = next
	}
	return singleSlot(p)
}
