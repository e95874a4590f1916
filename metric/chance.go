package metric

import (
	"math"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/stats"
)

// Chance is what guessing scores at input length L on the task named task with options o (a
// config's config.TaskOptions): the task's baseline where its answers are padded or skewed
// (data.BaselineOf: the best constant answer, its END slot included), else per token 1/k, k the
// values an output token takes (the task's data.OutputClasses, else o.Symbols); exact match
// (1/k)^n for an answer of n tokens. A task whose headline metric has no chance level (Bounded:
// a language model's bits per byte) has no answer to guess: NaN for both.
func Chance(task string, o data.Options, L int) (exact, token float64) {
	if !Headline(task, o.Format).Bounded() {
		return math.NaN(), math.NaN()
	}
	if t, err := data.New(task, o); err == nil {
		if b, ok := data.BaselineOf(t, L); ok {
			return b.Exact, b.Token
		}
	}
	k, n := o.Symbols, L
	if t, err := data.New(task, data.Options{Symbols: o.Symbols}); err == nil {
		if classes, ok := data.OutputClasses(t); ok {
			k = classes
		}
		n = t.OutputLen(L)
	}
	if k < 1 {
		return math.NaN(), math.NaN()
	}
	token = 1 / float64(k)
	return math.Pow(token, float64(n)), token
}

// RunFloor is one run's sampling variance at a length: its score there is a fraction of n
// examples' answers in the metric (AnswersPer), stats.BinomialVar of it; 0 without examples.
func RunFloor(name, task string, L, n int, score float64) float64 {
	if n < 1 {
		return 0
	}
	return stats.BinomialVar(score, n*AnswersPer(name, task, L))
}
