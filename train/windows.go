package train

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/pmath"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/model"
)

// lmScore is what scoring a split's windows measured: the summed negative log-likelihood of the
// scored predictions (nats), how many there were and how many were the argmax.
type lmScore struct {
	Nats    float64
	N       int
	Correct int
}

// BitsPerByte is the mean negative log₂-likelihood per predicted byte.
func (s lmScore) BitsPerByte() float64 { return s.Nats / float64(s.N) / math.Ln2 }

// Perplexity is the per-byte perplexity, exp of the mean negative log-likelihood.
func (s lmScore) Perplexity() float64 { return pmath.Exp(s.Nats / float64(s.N)) }

// scoreWindows runs m over windows of a split (data.WindowReader), batchSize windows of one length
// at a time in their order, and sums the negative log-likelihood of every scored prediction from
// the logits, in float64, in window order (so the sum is the same bits whatever the batching of
// the cores). progress, when not nil, is told the windows done so far.
func scoreWindows(ctx context.Context, m *model.Model, task data.WindowReader, split int, ws []data.Window, batchSize int, progress func(done int)) (lmScore, error) {
	var sc lmScore
	graphs := model.NewCache(m, model.BuildOptions{}, config.GraphCacheBytes)
	defer graphs.Close()
	for lo := 0; lo < len(ws); {
		if err := ctx.Err(); err != nil {
			return lmScore{}, err
		}
		hi := lo + 1 // a batch: up to batchSize windows of the same length
		for hi < len(ws) && hi-lo < batchSize && ws[hi].Len == ws[lo].Len {
			hi++
		}
		b, err := task.WindowBatch(split, ws[lo:hi])
		if err != nil {
			return lmScore{}, err
		}
		g, err := graphs.Get(b.B, b.T)
		if err == nil {
			_, err = g.Run(model.Input{Tokens: b.Inputs, Targets: b.Targets, Weights: b.Weights})
		}
		if err != nil {
			return lmScore{}, fmt.Errorf("lm evaluation at length %d: %w", b.T, err)
		}
		logits := nn.Float64s(g.Logits()) // [B·T, V]
		V := len(logits) / (b.B * b.T)
		for r, w := range b.Weights {
			if w == 0 {
				continue
			}
			row := logits[r*V : (r+1)*V]
			best, arg := math.Inf(-1), 0
			for j, v := range row {
				if v > best {
					best, arg = v, j
				}
			}
			sum := 0.0
			for _, v := range row {
				sum += pmath.Exp(v - best)
			}
			sc.Nats += best + pmath.Log(sum) - row[b.Targets[r]]
			sc.N++
			if arg == b.Targets[r] {
				sc.Correct++
			}
		}
		if progress != nil {
			progress(hi)
		}
		lo = hi
	}
	if sc.N == 0 {
		return lmScore{}, fmt.Errorf("lm evaluation: no predictions scored")
	}
	return sc, nil
}

// windowed is the kind of a data.WindowReader task (lm): scored by the likelihood of every
// prediction of its splits' windows.
type windowed struct{ task data.WindowReader }

// length scores the test split with non-overlapping windows of L tokens (BitsPerByte,
// Perplexity, TokenAccuracy: the next byte's argmax; N predictions) and with a sliding window of
// L tokens scoring its last eval.stride predictions (SlidingBitsPerByte, SlidingPerplexity; at
// L ≤ eval.stride the same windows). ExactMatch is 0: it has no meaning for text. The
// diagnostics hold the length without attention statistics. A batch holds
// data.WindowsPerBatch windows.
func (k windowed) length(ctx context.Context, cfg config.Config, m *model.Model, L int, _ bool, show func(string)) (LengthResult, LengthDiagnostics, error) {
	windows := k.task.Windows(data.SplitTest, L, 0)
	stride := min(cfg.Eval.Stride, L)
	var sliding []data.Window
	if stride < L {
		sliding = k.task.Windows(data.SplitTest, L, stride)
	}
	total := len(windows) + len(sliding)
	progress := func(base int) func(int) {
		return func(done int) { show(fmt.Sprintf("length %d: %d of %d windows", L, base+done, total)) }
	}
	per := data.WindowsPerBatch(cfg.Eval.BatchSize, cfg.Task.MaxLen, L)
	sc, err := scoreWindows(ctx, m, k.task, data.SplitTest, windows, per, progress(0))
	if err != nil {
		return LengthResult{}, LengthDiagnostics{}, err
	}
	r := LengthResult{Length: L, N: sc.N, Scores: map[string]float64{
		metric.TokenAccuracy: float64(sc.Correct) / float64(sc.N), metric.BitsPerByte: sc.BitsPerByte(), "perplexity": sc.Perplexity()}}
	ss := sc
	if sliding != nil {
		if ss, err = scoreWindows(ctx, m, k.task, data.SplitTest, sliding, per, progress(len(windows))); err != nil {
			return LengthResult{}, LengthDiagnostics{}, err
		}
	}
	r.Scores[metric.SlidingBitsPerByte], r.Scores["sliding_perplexity"] = ss.BitsPerByte(), ss.Perplexity()
	return r, LengthDiagnostics{Length: L}, nil
}

func (windowed) status(r LengthResult) string {
	return fmt.Sprintf("length %d: %.4f bits/byte, sliding %.4f", r.Length, r.Score(metric.BitsPerByte), r.Score(metric.SlidingBitsPerByte))
}

func (windowed) diagnosed(config.Config) int { return 0 }

// validator measures the bits per byte of the first train.val_examples non-overlapping windows
// of task.max_len tokens of the validation split (all of them when it has fewer).
func (k windowed) validator(cfg config.Config) (func(*model.Model) (map[string]float64, error), error) {
	ws := k.task.Windows(data.SplitValidation, cfg.Task.MaxLen, 0)
	ws = ws[:min(len(ws), cfg.Train.ValExamples)]
	return func(m *model.Model) (map[string]float64, error) {
		sc, err := scoreWindows(context.Background(), m, k.task, data.SplitValidation, ws, data.WindowsPerBatch(cfg.Eval.BatchSize, cfg.Task.MaxLen, cfg.Task.MaxLen), nil)
		return map[string]float64{metric.BitsPerByte: sc.BitsPerByte()}, err
	}, nil
}

// windowsHeader is the columns of a windowed task's scores file (data.Traits.ScoresFile): every metric the windowed kind measures itself (no
// metric.Score) with its paired value (bits per byte and perplexity with non-overlapping windows
// and with the sliding window), the next byte's accuracy and the number of predictions scored.
func windowsHeader() []string {
	h := []string{"task", "scheme", "variant", "seed", "length", "in_range"}
	for _, m := range ownMetrics() {
		h = append(h, m.Name, m.Paired)
	}
	return append(h, "next_byte_accuracy", "predictions")
}

// ownMetrics are the metrics a kind's evaluator measures itself rather than from answers.
func ownMetrics() []metric.Metric {
	return metric.Where(func(m metric.Metric) bool { return m.Score == nil })
}

// WindowRows renders a windowed task's result as its scores file's rows (without the header);
// nil for the other tasks.
func (r *Result) WindowRows() [][]string {
	var rows [][]string
	own := ownMetrics()
	for _, l := range r.Lengths {
		if l.Score(own[0].Name) == 0 {
			return nil
		}
		row := []string{r.Task, r.Scheme, r.Variant, strconv.FormatUint(r.Seed, 10), strconv.Itoa(l.Length), strconv.FormatBool(l.InRange)}
		for _, m := range own {
			row = append(row, formatFloat(l.Score(m.Name)), formatFloat(l.Score(m.Paired)))
		}
		rows = append(rows, append(row, formatFloat(l.Score(metric.TokenAccuracy)), strconv.Itoa(l.N)))
	}
	return rows
}
