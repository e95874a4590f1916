package train

import (
	"bytes"
	"encoding/json"
	"fmt"

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

// MarshalJSON writes length, in_range, the sequence tasks' metrics (0 where they do not apply),
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
		if !m.Applies(data.KindSequence) {
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
	var answers []metric.Answer
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
			answers = append(answers, answerOf(b, pred, e))
		}
		if visit != nil {
			if err := visit(evalBatch{Lo: lo, Batch: b, Positions: pos, Pred: pred}); err != nil {
				return LengthResult{}, err
			}
		}
	}
	r := LengthResult{Length: L, Scores: map[string]float64{}, N: len(examples)}
	for _, m := range metric.Scored() {
		if m.Applies(data.KindSequence) {
			r.Scores[m.Name] = m.Score(answers)
		}
	}
	return r, nil
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
