package data

import (
	"math"
	"sync"
)

// Baseline is what the best constant answer scores at one input length: the answer that is the
// same whatever the input, chosen for the metric under the task's own input distribution.
type Baseline struct {
	// Token is the expected token accuracy of the answer that writes, in every output slot, the
	// value that slot most often takes (its majority class): the mean over the slots of the
	// majority class's probability.
	Token float64
	// Exact is the expected exact match of the most likely whole answer: its probability. (The
	// slots' majority classes need not make a possible answer: stack_manipulation's may put no
	// END at all.)
	Exact float64
}

// Baselined is the optional hook of a task whose answer is not uniform over its output classes,
// slot by slot and independently (a zero-padded sum, a sorted string, a constant separator, a
// value mod 5 that × skews towards 0): Baseline(L) is what the best constant answer scores at
// input length L (L >= 1), computed exactly where a formula exists, else counted over a fixed-seed
// sample. A task without the hook answers uniformly: guessing scores 1/k per token
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
// once per run, and a baseline costs up to a few tenths of a second (docs/tasks.md). The lock
// guards the map only: a baseline is computed outside it, once per key (the lookups of a key
// being computed wait for that computation, never the lookups of other keys).
var baselines = struct {
	sync.Mutex
	m map[baselineKey]*baselineEntry
}{m: map[baselineKey]*baselineEntry{}}

// baselineEntry is one cached baseline: b is set before done is closed.
type baselineEntry struct {
	done chan struct{}
	b    Baseline
	ok   bool // false: its computation panicked (the entry is dropped; a waiter computes again)
}

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
		return cachedBaseline(w, L), true
	}
	return Baseline{}, false
}

// cachedBaseline is w.Baseline(L), computed once per (w, L) outside the cache's lock.
func cachedBaseline(w Baselined, L int) Baseline {
	k := baselineKey{w, L}
	for {
		baselines.Lock()
		e, found := baselines.m[k]
		if !found {
			e = &baselineEntry{done: make(chan struct{})}
			baselines.m[k] = e
		}
		baselines.Unlock()
		if found {
			if <-e.done; e.ok {
				return e.b
			}
			continue // its computation panicked: try again
		}
		func() {
			defer close(e.done)
			defer func() {
				if !e.ok { // panicking: forget the entry, so that a later lookup computes again
					baselines.Lock()
					delete(baselines.m, k)
					baselines.Unlock()
				}
			}()
			e.b = w.Baseline(L)
			e.ok = true
		}()
		return e.b
	}
}

// countSamples is the sample size of a counted baseline (binary_multiplication's, up to L = 64):
// a slot's majority frequency then has a standard error of at most 0.5/√65536 ≈ 0.002 (the token
// baseline, their mean, no more), and the most likely answer's is counted to within 1/65536 where
// it is near 0.
const countSamples = 1 << 16

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

// uniformBaseline is the baseline of slots uniform over k values whose most likely answer has the
// probability exact.
func uniformBaseline(k int, exact float64) Baseline {
	return Baseline{Token: 1 / float64(k), Exact: exact}
}

// pow is k^-n.
func pow(k, n int) float64 { return math.Pow(float64(k), -float64(n)) }
