package data

import "math/rand/v2"

// WindowReader is the hook of a task read as windows of a stream rather than as examples
// (Traits.Windows): it is evaluated and validated on its splits' windows, by the likelihood of
// every prediction, in the metrics of its kind.
type WindowReader interface {
	Task
	Windows(split, L, stride int) []Window
	WindowBatch(split int, ws []Window) (Batch, error)
}

var _ WindowReader = (*LM)(nil)

// TestSetStream draws a length's test set in order, a part at a time: its Next calls give, in
// turn, the examples of TestSet(t, L, n, seed), so a test set need not be held whole.
type TestSetStream struct {
	task Task
	L    int
	rng  *rand.Rand
}

// NewTestSetStream starts the test set of input length L (L >= 1) fixed by seed.
func NewTestSetStream(t Task, L int, seed uint64) *TestSetStream {
	return &TestSetStream{task: t, L: L, rng: newRNG(testSalt, seed, uint64(L))}
}

// Next draws the next k examples.
func (s *TestSetStream) Next(k int) []Example {
	ex := make([]Example, k)
	for i := range ex {
		ex[i] = s.task.Generate(s.rng, s.L)
	}
	return ex
}
