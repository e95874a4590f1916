package train

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/interrupt"
	"github.com/posformer/posformer/internal/pmath"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/model"
)

// Decoded is one test example with the model's answer.
type Decoded struct {
	// Index is the example's place in its length's test set (data.TestSet).
	Index  int   `json:"index"`
	Input  []int `json:"input"`
	Target []int `json:"target"`
	// Prediction is the model's answer: in the next-token format the greedy decoding (each token
	// the argmax given the input and the tokens predicted before it, stopping after an end token
	// with task.end_token, so it can be shorter than the target); in the slots format the argmax
	// at every slot (one pass).
	Prediction []int `json:"prediction"`
	// FirstWrong is the index in the answer of the first wrong token, -1 when it matched.
	FirstWrong int `json:"first_wrong"`
}

// Matched tells whether the whole answer is right.
func (d Decoded) Matched() bool { return d.FirstWrong < 0 }

// failure is what evaluate knows of a wrong example: its index, the example, its positions, the
// argmax of its answer rows under teacher forcing and its first wrong token.
type failure struct {
	index      int
	ex         data.Example
	positions  []int
	forced     []int
	firstWrong int
}

// firstWrong is the index in an answer of its first wrong token, -1 when every one is right.
func firstWrong(a metric.Answer) int {
	for i, p := range a.Pred {
		if p != a.Target[i] {
			return i
		}
	}
	return -1
}

// decodeGreedy completes the answers of failed examples greedily. Up to its first wrong token an
// answer is the teacher-forced argmax (the inputs before it are the same), so decoding starts
// after the earliest first wrong token: one forward pass per remaining answer token, all the
// failures in one batch, with each example's evaluation positions. An answer stops after the
// task's end token (task.end_token). In the slots format the answer is the one pass's argmax.
// The failures go batchSize at a time, like the evaluation's batches; pass, when not nil, is
// told of each forward pass.
func decodeGreedy(m *model.Model, task data.Task, fails []failure, batchSize int, pass func()) ([]Decoded, error) {
	out := make([]Decoded, len(fails))
	for i, f := range fails {
		out[i] = Decoded{Index: f.index, Input: f.ex.Input, Target: f.ex.Output, Prediction: slices.Clone(f.forced), FirstWrong: f.firstWrong}
	}
	if _, slots := data.SlotToken(task); len(fails) == 0 || slots {
		return out, nil
	}
	L := len(fails[0].ex.Input)
	T := data.SeqLen(task, L)
	outLen := T - L
	graphs := model.NewCache(m, evalBuildOptions(m), config.GraphCacheBytes)
	defer graphs.Close()
	for lo := 0; lo < len(fails); lo += batchSize {
		hi := min(lo+batchSize, len(fails))
		batch, dec := fails[lo:hi], out[lo:hi]
		in := model.Input{Tokens: make([]int, len(batch)*T), Targets: make([]int, len(batch)*T), Weights: make([]float64, len(batch)*T)}
		if batch[0].positions != nil {
			for _, f := range batch {
				in.Positions = append(in.Positions, f.positions...)
			}
		}
		for k := decodeStart(batch); k < outLen; k++ {
			for i, d := range dec { // row i: input, SEP, the answer so far
				row := in.Tokens[i*T : (i+1)*T]
				copy(row, d.Input)
				row[L] = data.SEP
				copy(row[L+1:], d.Prediction[:outLen-1])
			}
			g, err := graphs.Get(len(batch), T)
			if err == nil {
				_, err = g.Run(in)
			}
			if err != nil {
				return nil, fmt.Errorf("decoding at length %d: %w", L, err)
			}
			pred := g.Argmax()
			for i := range dec {
				if k > dec[i].FirstWrong {
					dec[i].Prediction[k] = pred[i*T+L+k]
				}
			}
			if pass != nil {
				pass()
			}
		}
	}
	if end, ok := data.EndToken(task); ok {
		for i := range out {
			if j := slices.Index(out[i].Prediction, end); j >= 0 {
				out[i].Prediction = out[i].Prediction[:j+1]
			}
		}
	}
	return out, nil
}

// decodeStart is the answer token a batch of failures is decoded from: the one after the
// earliest first wrong token.
func decodeStart(fails []failure) int {
	start := math.MaxInt
	for _, f := range fails {
		start = min(start, f.firstWrong+1)
	}
	return start
}

// Probed is what Probe measured of test examples of one length.
type Probed struct {
	// Exact is the fraction of the examples matched, scored as evaluation scores them.
	Exact float64
	// Examples are the examples in order with the model's answers (the wrong ones decoded
	// greedily, see Decoded).
	Examples []Decoded
	Stats    *AttentionStats
	// Positions are the first example's positions (nil: 0..T-1; set with randomized positions at
	// evaluation).
	Positions []int
}

// Probe runs examples (all of one length) through m exactly as evaluation does (the same batches,
// and positions drawn from seed), decodes the wrong answers greedily and measures every head's
// attention on each: what `train inspect` shows of a run at one length. say, when not nil, is
// told each stage and its forward passes; progress, when not nil, receives progress lines with
// an ETA through each stage (at long lengths each takes minutes). An interruption names the
// stage it stopped in.
func Probe(ctx context.Context, m *model.Model, task data.Task, examples []data.Example, batchSize int, seed uint64, say func(format string, a ...any), progress io.Writer) (*Probed, error) {
	if say == nil {
		say = func(string, ...any) {}
	}
	n, L := len(examples), len(examples[0].Input)
	var pr *Progress
	stage := func(what string, total int) func(error) error {
		name := fmt.Sprintf("inspect's %s at length %d", what, L)
		done := interrupt.Stage(ctx, name)
		pr = NewProgress(progress, false, total, "inspect: "+what)
		return func(err error) error { done(); return inStage(ctx, err, name) }
	}
	end := stage("evaluation", n)
	p, err := evaluate(ctx, m, task, inOrder(examples), n, batchSize, seed, n, n, func(done int) { pr.Update(done, "examples") })
	if err = end(err); err != nil {
		return nil, err
	}
	say("exact match %.3f; decoding the %d wrong answers greedily", p.lr.Score(metric.ExactMatch), len(p.fails))
	passes := 0
	end = stage("decoding", decodePasses(task, p.fails, batchSize))
	decoded, err := decodeGreedy(m, task, p.fails, batchSize, func() { passes++; pr.Update(passes, "forward passes") })
	if err = end(err); err != nil {
		return nil, err
	}
	out := &Probed{Exact: p.lr.Score(metric.ExactMatch)}
	for i, ex := range examples {
		if len(decoded) > 0 && decoded[0].Index == i {
			out.Examples = append(out.Examples, decoded[0])
			decoded = decoded[1:]
			continue
		}
		out.Examples = append(out.Examples, Decoded{Index: i, Input: ex.Input, Target: ex.Output, Prediction: ex.Output, FirstWrong: -1})
	}
	say("measuring the attention of the %d examples", n)
	end = stage("attention", n)
	out.Stats, err = attentionStats(ctx, m, task, examples, p.positions, func(done int) { pr.Update(done, "examples") })
	if err = end(err); err != nil {
		return nil, err
	}
	if p.positions != nil {
		out.Positions = p.positions[0]
	}
	return out, nil
}

// decodePasses is the number of forward passes decodeGreedy makes for fails: per batch, one for
// each answer token from the batch's decodeStart.
func decodePasses(task data.Task, fails []failure, batchSize int) int {
	if _, slots := data.SlotToken(task); slots || len(fails) == 0 {
		return 0
	}
	passes, outLen := 0, task.OutputLen(len(fails[0].ex.Input))
	for lo := 0; lo < len(fails); lo += batchSize {
		passes += max(outLen-decodeStart(fails[lo:min(lo+batchSize, len(fails))]), 0)
	}
	return passes
}

// AttentionStats are the attention-weighted mean absolute distance from a query to the keys,
// Σⱼ Pᵢⱼ·|i − j| (in tokens), and the entropy −Σⱼ Pᵢⱼ·ln Pᵢⱼ (nats), each averaged over the
// examples: index [layer][head][query].
type AttentionStats struct {
	Examples          int
	Distance, Entropy [][][]float64
	// First is the first example's weights: [layer][head·T·T].
	First [][]float64
}

// captureBytes bounds the attention weights an inspection graph keeps (layers × batch × heads
// × T², in the model's dtype and once more as the float64 copy Graph.Attention returns): it
// takes up to 16 examples at a time, fewer on long sequences.
var captureBytes = config.CaptureBytes // a variable only so that tests can lower it

// captureBatch is the number of examples an inspection graph of T tokens takes at once; 0 when
// even one example's weights exceed captureBytes.
func captureBatch(m *model.Model, T int) int {
	return config.CaptureBatch(m.Cfg.Layers, m.Cfg.Heads, int(m.Dtype.Size()), T, captureBytes)
}

// attentionStats runs examples (all of one length; positions per example, or nil) through
// inspection graphs and averages each query's attended distance and entropy; done, when not
// nil, is told the examples measured so far.
func attentionStats(ctx context.Context, m *model.Model, task data.Task, examples []data.Example, positions [][]int, done func(int)) (*AttentionStats, error) {
	L := len(examples[0].Input)
	T := data.SeqLen(task, L)
	layers, H := m.Cfg.Layers, m.Cfg.Heads
	st := &AttentionStats{Examples: len(examples)}
	grid := func() [][][]float64 {
		g := make([][][]float64, layers)
		for l := range g {
			g[l] = make([][]float64, H)
			for h := range g[l] {
				g[l][h] = make([]float64, T)
			}
		}
		return g
	}
	st.Distance, st.Entropy = grid(), grid()
	opt := evalBuildOptions(m)
	opt.Capture = true
	cb := captureBatch(m, T)
	if cb < 1 {
		return nil, fmt.Errorf("inspecting length %d: one example's attention weights (%d layers × %d heads × %d² tokens) exceed %d MB; inspect a shorter length", L, layers, H, T, captureBytes>>20)
	}
	graphs := model.NewCache(m, opt, config.GraphCacheBytes)
	defer graphs.Close()
	for lo := 0; lo < len(examples); lo += cb {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		chunk := examples[lo:min(lo+cb, len(examples))]
		b, err := data.MakeBatch(task, chunk)
		if err != nil {
			return nil, err
		}
		in := model.Input{Tokens: b.Inputs, Targets: b.Targets, Weights: b.Weights}
		if positions != nil {
			for i := range chunk {
				in.Positions = append(in.Positions, positions[lo+i]...)
			}
		}
		g, err := graphs.Get(len(chunk), T)
		if err == nil {
			_, err = g.Run(in)
		}
		if err != nil {
			return nil, fmt.Errorf("inspecting length %d: %w", L, err)
		}
		for l := 0; l < layers; l++ {
			p, err := g.Attention(l)
			if err != nil {
				return nil, err
			}
			if lo == 0 {
				st.First = append(st.First, append([]float64(nil), p[:H*T*T]...))
			}
			for e := range chunk {
				for h := 0; h < H; h++ {
					for i := 0; i < T; i++ {
						row := p[((e*H+h)*T+i)*T:][:T]
						var dist, ent float64
						for j, w := range row {
							if w > 0 {
								dist += float64(w * math.Abs(float64(i-j))) // float64(): not fused on arm64
								ent -= float64(w * pmath.Log(w))            // amd64's bits on arm64 too
							}
						}
						st.Distance[l][h][i] += dist
						st.Entropy[l][h][i] += ent
					}
				}
			}
		}
		if done != nil {
			done(lo + len(chunk))
		}
	}
	n := float64(len(examples))
	for l := range st.Distance {
		for h := range st.Distance[l] {
			for i := range st.Distance[l][h] {
				st.Distance[l][h][i] /= n
				st.Entropy[l][h][i] /= n
			}
		}
	}
	return st, nil
}

// answerMeans averages a [layer][head][query] statistic over the answer's queries (from the input
// length L on: the rows that predict the answer), giving [layer][head].
func answerMeans(s [][][]float64, L int) [][]float64 {
	out := make([][]float64, len(s))
	for l := range s {
		out[l] = make([]float64, len(s[l]))
		for h, q := range s[l] {
			var sum float64
			for _, x := range q[L:] {
				sum += x
			}
			out[l][h] = sum / float64(max(len(q)-L, 1))
		}
	}
	return out
}

// FormatTokens renders a task's token sequence compactly. A task whose symbols are characters
// (data.Glyphs: addition's digits 0..9 and +) writes each symbol as its character; otherwise,
// with at most 26 symbols, each symbol is one letter (the first symbol is a); in both the
// separator is |, the end token $, a blank slot _, padding . and any other token <id>. A task
// whose symbols are bytes (data.IsBytes: passkey, lm) writes each printable ASCII byte as
// itself and every other byte as \xNN, the bytes \ | ` < [ ] included (so that a report's
// markdown table, the brackets of mark and the tokens below stay unambiguous), and the
// separator as <sep>, the end token <end>, a blank slot <slot>, padding <pad>, any other token
// <id>. Any other task: the token ids separated by spaces. mark, when in range, brackets that
// token: ab[c]d.
func FormatTokens(task data.Task, tokens []int, mark int) string {
	end, hasEnd := data.EndToken(task)
	slot, hasSlot := data.SlotToken(task)
	symbols := task.Vocab() - data.FirstSymbol
	if hasEnd || hasSlot {
		symbols--
	}
	glyphs, glyphed := data.Glyphs(task)
	if !glyphed && symbols <= 26 {
		glyphs, glyphed = "abcdefghijklmnopqrstuvwxyz"[:max(symbols, 0)], true
	}
	bytes := data.IsBytes(task)
	var b strings.Builder
	for i, t := range tokens {
		if !glyphed && !bytes && i > 0 {
			b.WriteByte(' ')
		}
		if i == mark {
			b.WriteByte('[')
		}
		switch {
		case bytes:
			b.WriteString(byteToken(t, end, hasEnd, slot, hasSlot))
		case !glyphed:
			b.WriteString(strconv.Itoa(t))
		case t == data.SEP:
			b.WriteByte('|')
		case t == data.PAD:
			b.WriteByte('.')
		case hasEnd && t == end:
			b.WriteByte('$')
		case hasSlot && t == slot:
			b.WriteByte('_')
		case t >= data.FirstSymbol && t < data.FirstSymbol+len(glyphs):
			b.WriteByte(glyphs[t-data.FirstSymbol])
		default:
			fmt.Fprintf(&b, "<%d>", t)
		}
		if i == mark {
			b.WriteByte(']')
		}
	}
	return b.String()
}

// byteToken is one token of a task whose symbols are bytes, as FormatTokens writes it.
func byteToken(t, end int, hasEnd bool, slot int, hasSlot bool) string {
	switch c := t - data.FirstSymbol; {
	case t == data.SEP:
		return "<sep>"
	case t == data.PAD:
		return "<pad>"
	case hasEnd && t == end:
		return "<end>"
	case hasSlot && t == slot:
		return "<slot>"
	case c < 0 || c > 255:
		return fmt.Sprintf("<%d>", t)
	case c < 0x20 || c > 0x7e || strings.IndexByte("\\|`<[]", byte(c)) >= 0:
		return fmt.Sprintf("\\x%02x", c)
	default:
		return string(rune(c))
	}
}
