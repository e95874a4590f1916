package data

import (
	"math"
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

// Baseline: exact (sortedBaseline).
func (s sortTask) Baseline(L int) Baseline { return sortedBaseline(s.symbols, L) }

// sortedBaseline is the baseline of L symbols uniform over k, sorted: slot j holds a value ≤ c
// when at least j + 1 of the L symbols are ≤ c, a binomial tail; the most likely answer is a
// multiset with counts as even as they can be (L = qk + r: r symbols q + 1 times, the others q),
// a multinomial probability.
func sortedBaseline(k, L int) Baseline {
	// atMost[c][j]: P(slot j ≤ c) = P(Binomial(L, (c+1)/k) ≥ j + 1)
	atMost := make([][]float64, k)
	for c := range atMost {
		atMost[c] = make([]float64, L)
		p := float64(c+1) / float64(k)
		tail := 0.0
		for x := L; x >= 1; x-- {
			if c == k-1 {
				tail = 1
			} else {
				lg := lchoose(L, x) + float64(x)*math.Log(p) + float64(L-x)*math.Log1p(-p)
				tail += math.Exp(lg)
			}
			atMost[c][x-1] = tail
		}
	}
	token := 0.0
	p := make([]float64, k)
	for j := range L {
		for c := range p {
			p[c] = atMost[c][j]
			if c > 0 {
				p[c] -= atMost[c-1][j]
			}
		}
		token += p[argmax(p)]
	}
	q, r := L/k, L%k
	lq, _ := math.Lgamma(float64(q + 1))
	lq1, _ := math.Lgamma(float64(q + 2))
	lL, _ := math.Lgamma(float64(L + 1))
	exact := math.Exp(lL - float64(r)*lq1 - float64(k-r)*lq - float64(L)*math.Log(float64(k)))
	return Baseline{Token: token / float64(L), Exact: exact}
}

// lchoose is log C(n, x).
func lchoose(n, x int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(x + 1))
	c, _ := math.Lgamma(float64(n - x + 1))
	return a - b - c
}
