package data

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
)

// Salts separating the RNG domains of the training stream and the test sets.
const (
	trainSalt uint64 = 0x747261696e5f5f31 // "train__1"
	testSalt  uint64 = 0x746573745f5f5f32 // "test___2"
)

const golden uint64 = 0x9e3779b97f4a7c15 // splitmix64 increment (wraps mod 2^64)

// mix64 is the splitmix64 finalizer (a bijection on uint64).
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// deriveSeed mixes (salt, seed, index) with splitmix64 into the two words of a
// PCG seed.
func deriveSeed(salt, seed, index uint64) (hi, lo uint64) {
	h := mix64(salt + golden)
	h = mix64((h ^ seed) + golden)
	h = mix64((h ^ index) + golden)
	hi = mix64(h + golden)
	lo = mix64(h + golden + golden)
	return hi, lo
}

func newRNG(salt, seed, index uint64) *rand.Rand {
	hi, lo := deriveSeed(salt, seed, index)
	return rand.New(rand.NewPCG(hi, lo))
}

// Train is the deterministic training stream: batch number i (0-based) is a
// pure function of (Seed, i). Its input length L is drawn uniformly from
// [MinLen, MaxLen], then BatchSize examples of that length (batches are
// bucketed by length, no padding).
type Train struct {
	Task           Task
	MinLen, MaxLen int
	BatchSize      int
	Seed           uint64
}

// Validate checks the stream configuration; errors name the offending field
// ("task.min_len", "task.max_len", "train.batch_size").
func (s Train) Validate() error {
	switch {
	case s.Task == nil:
		return errors.New("task: no task configured")
	case s.MinLen < 1:
		return fielderr.New("task.min_len", "must be >= 1, got %d", s.MinLen)
	case s.MaxLen < s.MinLen:
		return fielderr.New("task.max_len", "must be >= task.min_len (%d), got %d", s.MinLen, s.MaxLen)
	case s.BatchSize < 1:
		return fielderr.New("train.batch_size", "must be >= 1, got %d", s.BatchSize)
	}
	return nil
}

// Batch returns batch number i (i >= 0). Calls may come in any order; the
// same (configuration, i) always gives the same batch.
func (s Train) Batch(i int) (Batch, error) {
	if err := s.Validate(); err != nil {
		return Batch{}, err
	}
	if i < 0 {
		return Batch{}, fmt.Errorf("train batch index must be >= 0, got %d", i)
	}
	rng := newRNG(trainSalt, s.Seed, uint64(i))
	L := s.MinLen + rng.IntN(s.MaxLen-s.MinLen+1)
	if lm, ok := s.Task.(*LM); ok {
		return lm.batch(rng, L, s.BatchSize), nil
	}
	ex := make([]Example, s.BatchSize)
	for b := range ex {
		ex[b] = s.Task.Generate(rng, L)
	}
	return MakeBatch(s.Task, ex)
}

// TestSet returns n examples of input length L, fixed by (seed, L) and drawn
// from an RNG domain disjoint from [Train]'s (a different salt), so test data
// is never drawn from the training stream. Same arguments give identical
// examples.
func TestSet(t Task, L, n int, seed uint64) ([]Example, error) {
	switch {
	case t == nil:
		return nil, errors.New("TestSet: nil task")
	case L < 1:
		return nil, fmt.Errorf("TestSet: input length must be >= 1, got %d", L)
	case n < 0:
		return nil, fmt.Errorf("TestSet: number of examples must be >= 0, got %d", n)
	}
	rng := newRNG(testSalt, seed, uint64(L))
	ex := make([]Example, n)
	for i := range ex {
		ex[i] = t.Generate(rng, L)
	}
	return ex, nil
}
