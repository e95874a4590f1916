package metric

import (
	"sync"

	"github.com/posformer/posformer/data"
)

// The built-in metrics' names.
const (
	ExactMatch         = "exact_match"
	TokenAccuracy      = "token_accuracy"
	BitsPerByte        = "bits_per_byte"
	SlidingBitsPerByte = "sliding_bits_per_byte"
)

func init() {
	Register(Metric{Name: ExactMatch, Kinds: []string{data.KindSequence}, Label: "exact", Short: "exact",
		Chance:    func(g Guess) float64 { return g.Exact },
		Headlines: func(kind, format string) bool { return kind == data.KindSequence && format != data.FormatSlots },
		Score: func(a Answer) (int, int) { // the fraction of answers whose every token is right
			if right(a) == len(a.Target) {
				return 1, 1
			}
			return 0, 1
		}})
	// token accuracy headlines the slots format (Delétang et al. 2023 and Ruoss et al. 2023
	// score per-token accuracy on the output slots)
	Register(Metric{Name: TokenAccuracy, Kinds: []string{data.KindSequence}, Short: "token",
		Chance:    func(g Guess) float64 { return g.Token },
		Headlines: func(kind, format string) bool { return kind == data.KindSequence && format == data.FormatSlots },
		Score:     func(a Answer) (int, int) { return right(a), len(a.Target) }}) // the fraction of output tokens right
	// A language model's: bits per byte with non-overlapping windows, and with a sliding window
	// scoring only the last eval.stride predictions of each (train/windows.go measures both).
	Register(Metric{Name: BitsPerByte, Lower: true, Kinds: []string{data.KindText}, Paired: "perplexity", Sliding: SlidingBitsPerByte,
		Headlines: func(kind, _ string) bool { return kind == data.KindText }})
	Register(Metric{Name: SlidingBitsPerByte, Lower: true, Kinds: []string{data.KindText}, Paired: "sliding_perplexity"})
}

// right counts the answer's tokens that are right.
func right(a Answer) int {
	n := 0
	for i, p := range a.Pred {
		if p == a.Target[i] {
			n++
		}
	}
	return n
}

// AnswersPer is how many answers a test example of a task at input length L gives the metric's
// fraction: exact match one (the example is right or not), token accuracy one per output token
// (the task's output length at its default options; 1 for a task not known); 1 for any other.
// A score over n examples is then a fraction of n·AnswersPer answers, whose binomial variance is
// the least sampling variance it can have when the answers are independent (the floor of the
// intervals over seeds: internal/stats.BinomialVar).
func AnswersPer(name, task string, L int) int {
	if name != TokenAccuracy {
		return 1
	}
	t, ok := tasks.Load(task)
	if !ok {
		nt, err := data.New(task, data.Options{})
		if err != nil {
			nt = nil
		}
		t, _ = tasks.LoadOrStore(task, nt)
	}
	if t == nil || t.(data.Task) == nil {
		return 1
	}
	return max(t.(data.Task).OutputLen(L), 1)
}

// tasks are the tasks AnswersPer asks of, built once (nil: not known).
var tasks sync.Map
