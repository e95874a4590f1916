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
// when at least j + 1 of the L symbols are ≤ c, a binomial tail; the majority answer is right
// when the input holds its multiset, a multinomial probability (none when it is not sorted).
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
	best, token := make([]int, L), 0.0
	p := make([]float64, k)
	for j := range best {
		for c := range p {
			p[c] = atMost[c][j]
			if c > 0 {
				p[c] -= atMost[c-1][j]
			}
		}
		best[j] = argmax(p)
		token += p[best[j]]
	}
	exact := 0.0
	if slices.IsSorted(best) {
		lg := math.Lgamma
		l, _ := lg(float64(L + 1))
		for i := 0; i < L; {
			n := 1
			for i+n < L && best[i+n] == best[i] {
				n++
			}
			f, _ := lg(float64(n + 1))
			l -= f
			i += n
		}
		exact = math.Exp(l - float64(L)*math.Log(float64(k)))
	}
	return Baseline{Token: token / float64(L), Exact: exact}
}

// lchoose is log C(n, x).
func lchoose(n, x int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(x + 1))
	c, _ := math.Lgamma(float64(n - x + 1))
	return a - b - c
}
