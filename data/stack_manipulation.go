package data

import (
	"math"
	"math/rand/v2"
)

func init() {
	Register("stack_manipulation", func(opt Options) (Task, error) {
		if err := fixedAlphabet("stack_manipulation", 6, opt); err != nil {
			return nil, err
		}
		return stackTask{}, nil
	})
}

// Tokens of the stack_manipulation task.
const (
	stackZero  = FirstSymbol     // bit 0 (input stack and output)
	stackOne   = FirstSymbol + 1 // bit 1
	stackPop   = FirstSymbol + 2 // action POP
	stackPush0 = FirstSymbol + 3 // action PUSH 0
	stackPush1 = FirstSymbol + 4 // action PUSH 1
	stackEnd   = FirstSymbol + 5 // output: the end of the final stack
)

// stackTask is "stack_manipulation": Delétang et al.'s Stack Manipulation (deterministic
// context-free), from google-deepmind/neural_networks_chomsky_hierarchy
// tasks/dcf/stack_manipulation.py (commit 2b8eb4b; the sampler at lines 55-78, the output at
// 86-92, the sizes at 100-116).
//
//   - Tokens: bits 0 and 1 are FirstSymbol (2) and FirstSymbol+1 (3); the actions POP, PUSH 0
//     and PUSH 1 are 4, 5 and 6 (theirs: 2, 3, 4); the end of the final stack is 7 (theirs: 2,
//     an output class of its own).
//   - Input: a stack of k bits given bottom to top, then L − k actions, k uniform over
//     [1, L−1] (their randint(1, length)), bits and actions uniform and independent; L = 1 is a
//     stack of one bit and no action (their special case, lines 59-61).
//   - Output: the actions applied left to right (POP on an empty stack does nothing), the final
//     stack written top to bottom, then the end token, then bit-0 tokens up to OutputLen(L) =
//     L + 1 (the final stack has at most L bits). Their encoding exactly; but they score the
//     tokens up to the end token only (accuracy_mask, lines 118-134) and posformer scores every
//     output token, the padding included, as for binary_addition.
//   - Vocab: FirstSymbol + 6 = 8; an output token takes 3 values. The alphabet is fixed.
//
// For example 0 1 1 0 PUSH1 POP POP (L = 7) gives 1 1 0 END 0 0 0 0 (their docstring's).
type stackTask struct{}

func (stackTask) Name() string        { return "stack_manipulation" }
func (stackTask) Vocab() int          { return stackEnd + 1 }
func (stackTask) OutputLen(L int) int { return L + 1 }
func (stackTask) OutputClasses() int  { return 3 }
func (stackTask) Generate(rng *rand.Rand, L int) Example {
	checkLen(L)
	k := 1
	if L > 1 {
		k = 1 + rng.IntN(L-1)
	}
	in := make([]int, L)
	for i := range in {
		if i < k {
			in[i] = stackZero + rng.IntN(2)
		} else {
			in[i] = stackPop + rng.IntN(3)
		}
	}
	stack := append([]int(nil), in[:k]...)
	for _, a := range in[k:] {
		switch a {
		case stackPop:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case stackPush0:
			stack = append(stack, stackZero)
		case stackPush1:
			stack = append(stack, stackOne)
		}
	}
	out := make([]int, 0, L+1)
	for i := len(stack) - 1; i >= 0; i-- {
		out = append(out, stack[i])
	}
	out = append(out, stackEnd)
	for len(out) < L+1 {
		out = append(out, stackZero)
	}
	return Example{Input: in, Output: out}
}

// Baseline: exact. Every bit of the final stack is uniform and independent of its length ℓ, so
// slot j holds a uniform bit when j < ℓ, END when j = ℓ and the padding 0 when j > ℓ; ℓ's
// distribution is the walk of the actions (POP −1, floored at 0, w.p. 1/3; PUSH +1, 2/3) from k
// for L − k steps, k uniform over [1, L−1]. An answer with ℓ bits has the probability
// P(ℓ)·2^−ℓ.
func (stackTask) Baseline(L int) Baseline {
	if L == 1 {
		return Baseline{Token: 0.75, Exact: 0.5} // one uniform bit, then END
	}
	// length[s]: the probability that the final stack has s bits. The walks that start with k
	// bits join at step k, so one pass over the steps carries them all.
	length := make([]float64, L+1)
	for t := 1; t <= L; t++ {
		next := make([]float64, L+1)
		for s, p := range length {
			next[max(s-1, 0)] += p / 3
			if s < L {
				next[s+1] += 2 * p / 3
			}
		}
		length = next
		if t <= L-1 {
			length[t] += 1 / float64(L-1)
		}
	}
	// slot j: [bit 0, bit 1, END] with probabilities longer/2 + shorter, longer/2, length[j]
	token, exact, longer := 0.0, 0.0, 1.0
	for j, p := range length {
		longer -= p // P(ℓ > j)
		token += max(longer/2+(1-longer-p), p)
		exact = max(exact, p*math.Pow(0.5, float64(j)))
	}
	return Baseline{Token: token / float64(L+1), Exact: exact}
}
