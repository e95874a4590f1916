package train

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/position"
)

// LengthResult is the score at one input length: every metric of the task's kind (package
// metric) by name, and the number of examples (for text, of predictions) scored.
type LengthResult struct {
	Length  int
	InRange bool
	Scores  map[string]float64
	N       int
}

// Score is the length's score in a metric (0 when the run has none).
func (l LengthResult) Score(name string) float64 { return l.Scores[name] }

// MarshalJSON writes length, in_range, the metrics scored from answers (0 where they do not apply),
// n, then any other metric the length has, each followed by its paired value (perplexity after
// bits per byte): the order results.json always had.
func (l LengthResult) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"length":%d,"in_range":%t`, l.Length, l.InRange)
	field := func(name string, v float64) error {
		x, err := json.Marshal(v)
		fmt.Fprintf(&b, `,%q:%s`, name, x)
		return err
	}
	var rest []metric.Metric
	for _, m := range metric.All() {
		if m.Score == nil { // not scored from answers (bits per byte): written after n, when the length has it
			rest = append(rest, m)
		} else if err := field(m.Name, l.Scores[m.Name]); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(&b, `,"n":%d`, l.N)
	for _, m := range rest {
		for _, name := range []string{m.Name, m.Paired} {
			if v, ok := l.Scores[name]; ok && name != "" && v != 0 {
				if err := field(name, v); err != nil {
					return nil, err
				}
			}
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes: every number besides length and n is a score.
func (l *LengthResult) UnmarshalJSON(b []byte) error {
	var head struct {
		Length  int  `json:"length"`
		InRange bool `json:"in_range"`
		N       int  `json:"n"`
	}
	var all map[string]any
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	*l = LengthResult{Length: head.Length, InRange: head.InRange, N: head.N, Scores: map[string]float64{}}
	for k, v := range all {
		if x, ok := v.(float64); ok && k != "length" && k != "n" {
			l.Scores[k] = x
		}
	}
	return nil
}

// samplerOf returns the randomized-positions option of the model's scheme, if it has one.
func samplerOf(m *model.Model) (position.Randomization, bool) {
	if s, ok := m.Scheme.(position.Sampler); ok {
		return s.Randomization()
	}
	return position.Randomization{}, false
}

// evalBuildOptions are the graph options of an evaluation (randomized positions need MaxPos).
func evalBuildOptions(m *model.Model) model.BuildOptions {
	opt := model.BuildOptions{}
	if rnd, ok := samplerOf(m); ok {
		opt.MaxPos = rnd.MaxRandom
	}
	return opt
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
	p, err := evaluate(context.Background(), m, task, inOrder(examples), len(examples), batchSize, seed, 0, 0, nil)
	return p.lr, err
}

// inOrder draws examples in order, as data.TestStream's Next draws a test set.
func inOrder(examples []data.Example) func(k int) []data.Example {
	return func(k int) []data.Example {
		next := examples[:k]
		examples = examples[k:]
		return next
	}
}

// pass is what evaluate measured of one length: its result, its first examples with their
// positions (nil: 0..T-1) and its first failures.
type pass struct {
	lr        LengthResult
	kept      []data.Example
	positions [][]int
	fails     []failure
}

// evaluate is Evaluate over n examples that next draws batchSize at a time, so that what it
// holds does not grow with n: each metric's counts (metric.Score) are summed batch by batch. It
// keeps the first keep examples with their positions and the first maxFails failures; done,
// when not nil, is told the examples evaluated so far. A cancelled ctx stops it between batches.
func evaluate(ctx context.Context, m *model.Model, task data.Task, next func(k int) []data.Example, n, batchSize int, seed uint64, keep, maxFails int, done func(int)) (pass, error) {
	if n == 0 {
		return pass{}, fmt.Errorf("evaluate: no examples")
	}
	rnd, randomized := samplerOf(m)
	ms := metric.Where(func(x metric.Metric) bool { return x.Score != nil && x.Applies(data.KindOf(task.Name())) })
	right, of := make([]int, len(ms)), make([]int, len(ms))
	graphs := model.NewCache(m, evalBuildOptions(m), config.GraphCacheBytes)
	defer graphs.Close()
	var p pass
	L := 0
	for lo := 0; lo < n; lo += batchSize {
		if err := ctx.Err(); err != nil {
			return pass{}, err
		}
		chunk := next(min(batchSize, n-lo))
		L = len(chunk[0].Input)
		b, err := data.MakeBatch(task, chunk)
		if err != nil {
			return pass{}, err
		}
		var pos []int // nil: 0..T-1
		if randomized && rnd.AtEval {
			pos = rnd.Batch(position.PositionRNG(seed, position.EvalStream, uint64(L)<<32|uint64(lo/batchSize)), b.B, b.T)
		}
		g, err := graphs.Get(b.B, b.T)
		if err == nil {
			_, err = g.Run(model.Input{Tokens: b.Inputs, Targets: b.Targets, Weights: b.Weights, Positions: pos})
		}
		if err != nil {
			return pass{}, fmt.Errorf("evaluate at length %d: %w", L, err)
		}
		pred := g.Argmax()
		for e := 0; e < b.B; e++ {
			a := answerOf(b, pred, e)
			for i, x := range ms {
				r, o := x.Score(a)
				right[i], of[i] = right[i]+r, of[i]+o
			}
			var rowPos []int // [T]: example e's positions
			if pos != nil {
				rowPos = pos[e*b.T : (e+1)*b.T]
			}
			if lo+e < keep {
				p.kept = append(p.kept, chunk[e])
				if pos != nil {
					p.positions = append(p.positions, rowPos)
				}
			}
			if fw := firstWrong(a); fw >= 0 && len(p.fails) < maxFails {
				p.fails = append(p.fails, failure{index: lo + e, ex: chunk[e], firstWrong: fw, positions: rowPos,
					forced: slices.Clone(pred[e*b.T+b.L : (e+1)*b.T])})
			}
		}
		if done != nil {
			done(lo + b.B)
		}
	}
	p.lr = LengthResult{Length: L, Scores: map[string]float64{}, N: n}
	for i, x := range ms {
		p.lr.Scores[x.Name] = float64(right[i]) / float64(max(of[i], 1))
	}
	return p, nil
}

// answerOf is example e of a batch as the model answered it: the argmax and the target at every
// scored output position.
func answerOf(b data.Batch, pred []int, e int) metric.Answer {
	var a metric.Answer
	for t := 0; t < b.T; t++ {
		if i := e*b.T + t; b.Weights[i] != 0 {
			a.Pred, a.Target = append(a.Pred, pred[i]), append(a.Target, b.Targets[i])
		}
	}
	return a
}
