package train

import (
	"fmt"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/position"
)

// LengthResult is the score at one input length.
type LengthResult struct {
	Length        int     `json:"length"`
	InRange       bool    `json:"in_range"`
	ExactMatch    float64 `json:"exact_match"`
	TokenAccuracy float64 `json:"token_accuracy"`
	N             int     `json:"n"`
	// The lm task's scores (train/lm.go; absent for the other tasks), over its test split at
	// context length Length: bits per byte and per-byte perplexity with non-overlapping windows
	// (every byte but the first predicted once, its context its place in its window), and with a
	// sliding window scoring only the last eval.stride predictions of each window.
	BitsPerByte        float64 `json:"bits_per_byte,omitempty"`
	Perplexity         float64 `json:"perplexity,omitempty"`
	SlidingBitsPerByte float64 `json:"sliding_bits_per_byte,omitempty"`
	SlidingPerplexity  float64 `json:"sliding_perplexity,omitempty"`
}

// samplerOf returns the randomized-positions option of the model's scheme, if it has one.
func samplerOf(m *model.Model) (position.Randomization, bool) {
	if s, ok := m.Scheme.(position.Sampler); ok {
		return s.Randomization()
	}
	return position.Randomization{}, false
}

// Evaluate scores a model on n examples of input length L: exact match is the fraction of
// examples whose every output token is the argmax of the logits under teacher forcing (which is
// the same as greedy decoding reproducing the whole answer: the first wrong token is an argmax
// error at its own position); token accuracy is the fraction of output tokens that are.
//
// seed matters only with position.randomized and eval_positions: random: every graph then takes
// positions below max_random, each batch's drawn from position.PositionRNG(seed, EvalStream, ·),
// a pure function of the seed, the length and the batch (so a test score does not depend on
// what ran before it).
func Evaluate(m *model.Model, examples []data.Example, task data.Task, batchSize int, seed uint64) (LengthResult, error) {
	return evaluate(m, examples, task, batchSize, seed, nil)
}

// evalBatch is what evaluate saw of one batch: the examples from index Lo, the batch, its
// positions (nil: 0..T-1) and the argmax of every row's logits under teacher forcing.
type evalBatch struct {
	Lo        int
	Batch     data.Batch
	Positions []int
	Pred      []int
}

// evaluate is Evaluate, handing every batch to visit (when not nil) after scoring it.
func evaluate(m *model.Model, examples []data.Example, task data.Task, batchSize int, seed uint64, visit func(evalBatch) error) (LengthResult, error) {
	if len(examples) == 0 {
		return LengthResult{}, fmt.Errorf("evaluate: no examples")
	}
	L := len(examples[0].Input)
	rnd, randomized := samplerOf(m)
	opt := model.BuildOptions{}
	if randomized {
		opt.MaxPos = rnd.MaxRandom
	}
	var exact, tokOK, tokAll int
	graphs := map[int]*model.Graph{}
	defer func() {
		for _, g := range graphs {
			g.Close()
		}
	}()
	for lo := 0; lo < len(examples); lo += batchSize {
		chunk := examples[lo:min(lo+batchSize, len(examples))]
		b, err := data.MakeBatch(task, chunk)
		if err != nil {
			return LengthResult{}, err
		}
		g, ok := graphs[len(chunk)]
		if !ok {
			if g, err = m.Build(len(chunk), b.T, opt); err != nil {
				return LengthResult{}, fmt.Errorf("evaluate at length %d: %w", L, err)
			}
			graphs[len(chunk)] = g
		}
		var pos []int // nil: 0..T-1
		if randomized && rnd.AtEval {
			pos = rnd.Batch(position.PositionRNG(seed, position.EvalStream, uint64(L)<<32|uint64(lo/batchSize)), b.B, b.T)
		}
		if _, err := g.Run(model.Input{Tokens: b.Inputs, Targets: b.Targets, Weights: b.Weights, Positions: pos}); err != nil {
			return LengthResult{}, fmt.Errorf("evaluate at length %d: %w", L, err)
		}
		pred := g.Argmax()
		for e := 0; e < b.B; e++ {
			ok, scored, firstWrong := scoreExample(b, pred, e)
			tokOK += ok
			tokAll += scored
			if firstWrong < 0 {
				exact++
			}
		}
		if visit != nil {
			if err := visit(evalBatch{Lo: lo, Batch: b, Positions: pos, Pred: pred}); err != nil {
				return LengthResult{}, err
			}
		}
	}
	n := len(examples)
	return LengthResult{Length: L, ExactMatch: float64(exact) / float64(n), TokenAccuracy: float64(tokOK) / float64(max(tokAll, 1)), N: n}, nil
}

// scoreExample scores example e of a batch from the argmax of every row under teacher forcing:
// the number of output tokens right, the number scored, and the index in the output of the first
// wrong one (-1 when every one is right: an exact match).
func scoreExample(b data.Batch, pred []int, e int) (ok, scored, firstWrong int) {
	firstWrong = -1
	for t := 0; t < b.T; t++ {
		i := e*b.T + t
		if b.Weights[i] == 0 {
			continue
		}
		if pred[i] == b.Targets[i] {
			ok++
		} else if firstWrong < 0 {
			firstWrong = scored
		}
		scored++
	}
	return ok, scored, firstWrong
}
