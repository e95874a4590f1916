package data

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// Baseline is what the best constant answer scores at one input length: the answer that writes,
// in every output slot, the value that slot most often takes under the task's own input
// distribution (its majority class; a tie goes to the smaller token), whatever the input.
type Baseline struct {
	// Token is its expected token accuracy: the mean over the slots of the majority class's
	// probability.
	Token float64
	// Exact is its expected exact match: the probability that the whole answer is that one.
	Exact float64
}

// Baselined is the optional hook of a task whose answer is not uniform over its output classes,
// slot by slot and independently (a zero-padded sum, a sorted string, a constant separator, a
// value mod 5 that × skews towards 0): Baseline(L) is what the best constant answer scores at
// input length L (L >= 1), computed exactly where a formula exists, else counted over a fixed-seed
// sample (countBaseline). A task without the hook answers uniformly: guessing scores 1/k per token
// and (1/k)^n exact for an n-token answer (k its output classes), and that is its baseline.
type Baselined interface {
	Baseline(L int) Baseline
}

var (
	_ Baselined = stackTask{}
	_ Baselined = binaryAdditionTask{}
	_ Baselined = binaryMultiplicationTask{}
	_ Baselined = computeSqrtTask{}
	_ Baselined = sortTask{}
	_ Baselined = bucketSortTask{}
	_ Baselined = duplicateTask{}
	_ Baselined = repeatTask{}
	_ Baselined = twiceTask{}
	_ Baselined = evenPairsTask{}
	_ Baselined = cycleNavigationTask{}
	_ Baselined = modArithTask{}
	_ Baselined = modBracketsTask{}
	_ Baselined = solveEquationTask{}
	_ Baselined = missingDuplicateTask{}
)

// baselines caches BaselineOf by task and length: a per-seed table asks for the same few lengths
// once per run, and the counted baselines take a second each.
var baselines = struct {
	sync.Mutex
	m map[baselineKey]Baseline
}{m: map[baselineKey]Baseline{}}

type baselineKey struct {
	t Baselined
	L int
}

// BaselineOf returns what the best constant answer of t scores at input length L, from the task's
// [Baselined] hook, and false for a task without it (its baseline is the uniform guess). With
// task.end_token the answer's last slot is always END, which a constant answer gets right: token
// (n·b + 1)/(n + 1) for an n-token answer, exact unchanged; the slots format scores the same tokens.
func BaselineOf(t Task, L int) (Baseline, bool) {
	switch w := t.(type) {
	case endTask:
		b, ok := BaselineOf(w.Task, L)
		n := float64(w.Task.OutputLen(L))
		b.Token = (n*b.Token + 1) / (n + 1)
		return b, ok
	case slotTask:
		return BaselineOf(w.Task, L)
	case Baselined:
		baselines.Lock()
		defer baselines.Unlock()
		k := baselineKey{w, L}
		b, ok := baselines.m[k]
		if !ok {
			b = w.Baseline(L)
			baselines.m[k] = b
		}
		return b, true
	}
	return Baseline{}, false
}

// countSamples is the sample size of countBaseline in the tasks that count: a slot's majority
// frequency then has a standard error of at most 0.5/√65536 ≈ 0.002 (the token baseline, their
// mean, no more), and the exact baseline is counted to within 1/65536 where it is near 0.
const countSamples = 1 << 16

// countBaseline estimates t's baseline at length L from n examples drawn with a fixed seed (so
// the same for every call): the majority token of every slot (a tie to the smaller token), the
// mean of their frequencies, and the fraction of examples whose answer is that majority answer
// (a second pass over the same draws). answer draws one example's answer: t's Generate, or a
// faster equivalent (nil: Generate).
func countBaseline(t Task, L, n int, seed uint64, answer func(*rand.Rand) []int) Baseline {
	if answer == nil {
		answer = func(rng *rand.Rand) []int { return t.Generate(rng, L).Output }
	}
	slots, vocab := t.OutputLen(L), t.Vocab()
	counts := make([]int, slots*vocab) // [slots, vocab]
	rng := rand.New(rand.NewPCG(seed, uint64(L)))
	for range n {
		for j, tok := range answer(rng) {
			counts[j*vocab+tok]++
		}
	}
	best, hits := make([]int, slots), 0
	for j := range best {
		row := counts[j*vocab : (j+1)*vocab]
		best[j] = argmax(row)
		hits += row[best[j]]
	}
	exact := 0
	rng = rand.New(rand.NewPCG(seed, uint64(L)))
	for range n {
		if slices.Equal(answer(rng), best) {
			exact++
		}
	}
	return Baseline{Token: float64(hits) / float64(n*slots), Exact: float64(exact) / float64(n)}
}

// argmax is the index of the largest value, the first one of a tie.
func argmax[T int | float64](xs []T) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}

// singleSlot is the baseline of a one-token answer whose value has the distribution p: the
// majority class's probability, for both metrics.
func singleSlot(p []float64) Baseline {
	m := p[argmax(p)]
	return Baseline{Token: m, Exact: m}
}

// uniformBaseline is the baseline of n slots uniform over k values where the majority answer (a
// tie everywhere: the smallest token in every slot) is right exactly with probability exact.
func uniformBaseline(k int, exact float64) Baseline {
	return Baseline{Token: 1 / float64(k), Exact: exact}
}

// pow is k^-n.
func pow(k, n int) float64 { return math.Pow(float64(k), -float64(n)) }
