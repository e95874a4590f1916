package setup

import (
	"fmt"
	"runtime"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/memlimit"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/position"
)

// MaxMemoryBytes bounds a run's predicted peak memory (PredictMemory): a config beyond it is
// refused before anything is allocated, naming the field to lower.
var MaxMemoryBytes int64 = 8 << 30

// RuntimeBytes is the memory of the process before any model: the binary, the Go runtime and
// the progress output.
const RuntimeBytes = 32 << 20

// checkpointBytesPerParam is what a checkpoint costs per parameter while it is written or read,
// besides the weights and Adam's moments: a float64 copy of the weights and the gob encoding of
// weights and moments (at most 9 bytes per float64), up to twice that while its buffer grows
// (train.SaveCheckpoint); or the file's bytes and their decoded float64s (train.LoadCheckpoint).
const checkpointBytesPerParam = 8 + 2*3*9

// exampleBytes is the memory of n examples (data.Example) of sequences of T tokens: two int
// slices of T−1 tokens in all (8 bytes each) and their headers (48 bytes), with room for Go's
// rounding of allocations (the heap measured for copy and reverse at lengths 1 to 200 is
// 48 + 8·T + at most 12%).
func exampleBytes(n, T int) int64 {
	return int64(n) * (64 + 10*int64(T))
}

// Memory is a run's predicted memory, in bytes, from its config alone.
type Memory struct {
	// State is the weights, Adam's two float64 moments and a checkpoint being written or read.
	State int64
	// TrainGraph is the largest training graph (longest training sequence, train.batch_size);
	// TrainGraphs the training graphs kept at once (every training length's, up to
	// config.GraphCacheBytes).
	TrainGraph, TrainGraphs int64
	// Validation is the evaluation graphs of validation at the longest training length;
	// ValData the validation sets of every training length, held through training.
	Validation, ValData int64
	// Eval is the larger of the evaluation graphs at the longest test length (a full batch and
	// the last, partial one) and the diagnostics' graphs there (inspection, greedy decoding);
	// TestData what evaluation holds of the test set there: a batch, and the first examples and
	// failures the diagnostics keep (it draws and scores the test set a batch at a time).
	Eval, TestData int64
	// Corpus is the data a task holds through the run (data.Held: a corpus's tokens, 8 bytes a
	// token); CorpusLoad what its loading held besides, once: the compressed and the
	// uncompressed archive (at most twice its tokens, as bytes).
	Corpus, CorpusLoad int64
	// Peak is the runtime, the corpus and the larger of its loading and the run: the state and
	// the larger of training (its graphs and validation's) and evaluation.
	Peak int64
}

// dtypeBytes is the bytes of one of the model's values (model.dtype).
func dtypeBytes(mc model.Config) int64 {
	if mc.Dtype == "float64" {
		return 8
	}
	return 4
}

func mb(b int64) string {
	if b >= 1e9 {
		return fmt.Sprintf("%.2f GB", float64(b)/1e9)
	}
	return fmt.Sprintf("%.0f MB", float64(b)/1e6)
}

// EvalPeak is the peak of an evaluation alone (inspect's): the runtime, the state, the
// evaluation's graphs and its test set.
func (m Memory) EvalPeak() int64 { return RuntimeBytes + m.Corpus + m.State + m.Eval + m.TestData }

// String is the prediction as the run prints it.
func (m Memory) String() string {
	corpus := ""
	if m.Corpus > 0 {
		corpus = fmt.Sprintf(", corpus %s", mb(m.Corpus))
	}
	return fmt.Sprintf("predicted peak memory %s (weights and optimiser %s, training graphs %s, validation %s, evaluation %s, test set %s%s)",
		mb(m.Peak), mb(m.State), mb(m.TrainGraphs), mb(m.Validation+m.ValData), mb(m.Eval), mb(m.TestData), corpus)
}

// evalGraphs is the memory of train.Evaluate's graphs for n examples of sequences of T tokens in
// batches of b: a full batch and, when b does not divide n, the last one.
func evalGraphs(mc model.Config, hooks position.Hooks, maxPos, T, n, b int) int64 {
	b = min(b, n)
	s := model.GraphBytes(mc, model.Shape{Batch: b, Len: T, Hooks: hooks, MaxPos: maxPos})
	if r := n % b; r != 0 {
		s += model.GraphBytes(mc, model.Shape{Batch: r, Len: T, Hooks: hooks, MaxPos: maxPos})
	}
	return s
}

// PredictMemory predicts the run's peak memory from the config (defaults filled) before anything
// is allocated: see Memory. The training graphs are those of every training length, capped at
// config.GraphCacheBytes (or the largest one); randomized positions build every graph for
// position.max_random positions.
func PredictMemory(c config.Config, task data.Task) Memory {
	mc := c.ModelFor(task)
	bytes := dtypeBytes(mc)
	hooks := position.KindHooks(c.Position.Kind) // from the scheme's type: no scheme is built
	extra := int64(schemeParams(c, mc))          // a learned table, t5's biases, ...
	maxPos := 0
	if c.Position.Randomized {
		maxPos = c.Position.MaxRandom
	}
	var m Memory
	m.State = model.ParamCount(mc, extra) * (bytes + 16 + checkpointBytesPerParam)
	var sum int64
	for L := c.Task.MinLen; L <= c.Task.MaxLen; L++ {
		g := model.GraphBytes(mc, model.Shape{Batch: c.Train.BatchSize, Len: data.SeqLen(task, L), Grad: true, Hooks: hooks, MaxPos: maxPos, Extra: extra})
		sum += g
		m.TrainGraph = max(m.TrainGraph, g)
	}
	m.TrainGraphs = min(sum, max(config.GraphCacheBytes, m.TrainGraph))
	if c.Train.ValEvery > 0 {
		m.Validation = evalGraphs(mc, hooks, maxPos, data.SeqLen(task, c.Task.MaxLen), c.Train.ValExamples, c.Eval.BatchSize)
		for L := c.Task.MinLen; L <= c.Task.MaxLen; L++ {
			m.ValData += exampleBytes(c.Train.ValExamples, data.SeqLen(task, L))
		}
	}
	if h, ok := task.(data.Held); ok {
		m.Corpus, m.CorpusLoad = h.HeldBytes(), h.HeldBytes()/4
	}
	if w, ok := task.(data.Windowed); ok && len(c.Eval.Lengths) > 0 {
		// A windowed task's evaluation (train/windows.go): the sliding window's graphs at the longest
		// length (at least as many windows as the non-overlapping ones), and a batch's logits
		// copied out in float64 to score them.
		L := c.Eval.Lengths[len(c.Eval.Lengths)-1]
		n := w.TestWindows(L, min(max(c.Eval.Stride, 1), L))
		b := data.WindowsPerBatch(c.Eval.BatchSize, c.Task.MaxLen, L)
		m.Eval = evalGraphs(mc, hooks, maxPos, L, max(n, 1), b) + int64(min(b, max(n, 1))*L*mc.Vocab*8)
	} else if n := len(c.Eval.Lengths); n > 0 {
		T := data.SeqLen(task, c.Eval.Lengths[n-1])
		m.Eval = evalGraphs(mc, hooks, maxPos, T, c.Eval.Examples, c.Eval.BatchSize)
		m.TestData = exampleBytes(min(c.Eval.Examples, c.Eval.BatchSize+config.DiagnosticExamples+config.FailuresPerLength), T)
		// Then the diagnostics (train/diagnostics.go), one after the other, while the evaluation
		// graphs' memory may not have been collected yet: an inspection graph of the first
		// config.DiagnosticExamples examples in batches of CaptureBatch (none where one example's
		// attention weights pass config.CaptureBytes), which keeps every layer's attention weights, with
		// the first example's weights copied out in float64; greedy decoding of failures.
		diag := model.GraphBytes(mc, model.Shape{Batch: min(config.FailuresPerLength, c.Eval.Examples), Len: T, Hooks: hooks, MaxPos: maxPos})
		if k := min(config.DiagnosticExamples, c.Eval.Examples, config.CaptureBatch(mc.Layers, mc.Heads, int(bytes), T, config.CaptureBytes)); k >= 1 {
			first := int64(mc.Layers) * int64(mc.Heads) * int64(T) * int64(T) * 8
			diag = max(diag, model.GraphBytes(mc, model.Shape{Batch: k, Len: T, Capture: true, Hooks: hooks, MaxPos: maxPos})+first)
		}
		m.Eval += diag
	}
	m.Peak = RuntimeBytes + m.Corpus + max(m.CorpusLoad, m.State+max(m.TrainGraphs+m.Validation+m.ValData, m.Eval+m.TestData))
	return m
}

// checkMemory refuses a config whose predicted peak memory is beyond MaxMemoryBytes, naming the
// part that is too large and the fields that size it.
func checkMemory(c config.Config, task data.Task, m Memory) error {
	avail, limit := MaxMemoryBytes, fmt.Sprintf("posformer's limit of %s", mb(MaxMemoryBytes))
	if room, what, ok := ProcessRoom(m.Corpus + m.CorpusLoad); ok && room < avail {
		avail, limit = room, what
	}
	if m.Peak <= avail {
		return nil
	}
	if avail < 2*RuntimeBytes { // no config could fit: the limit is the problem
		return fmt.Errorf("memory: %s, too little for any run (a predicted peak of %s); raise the limit (docs/runs.md: the smallest posformer starts under)", limit, mb(m.Peak))
	}
	cores := fmt.Sprintf(" on %d cores", runtime.GOMAXPROCS(0)) // an evaluation's attention keeps a block of rows × T per core
	switch {
	case m.Corpus+m.CorpusLoad >= m.State+max(m.TrainGraphs+m.Validation+m.ValData, m.Eval+m.TestData):
		return fielderr.New("task.corpus", "the corpus holds about %s as tokens (8 bytes a byte of text; a predicted peak of %s), more than %s; use a smaller corpus",
			mb(m.Corpus), mb(m.Peak), limit)
	case m.TestData >= max(m.Eval, m.TrainGraphs+m.Validation+m.ValData, m.State):
		L := c.Eval.Lengths[len(c.Eval.Lengths)-1]
		return fielderr.New("eval.examples", "the test set of %d examples at length %d (%d tokens each) needs about %s (a predicted peak of %s), more than %s; lower eval.examples",
			c.Eval.Examples, L, data.SeqLen(task, L), mb(m.TestData), mb(m.Peak), limit)
	case m.ValData >= max(m.Eval+m.TestData, m.TrainGraphs+m.Validation, m.State):
		return fielderr.New("train.val_examples", "the validation sets of %d examples at each training length need about %s (a predicted peak of %s), more than %s; lower train.val_examples, or set train.val_every: 0",
			c.Train.ValExamples, mb(m.ValData), mb(m.Peak), limit)
	case m.Eval >= m.TrainGraphs+m.Validation:
		L := c.Eval.Lengths[len(c.Eval.Lengths)-1]
		return fielderr.New("eval.lengths", "testing at length %d (%d tokens) in batches of %d needs about %s%s (a predicted peak of %s), more than %s; test shorter lengths or lower eval.batch_size",
			L, data.SeqLen(task, L), min(c.Eval.BatchSize, c.Eval.Examples), mb(m.Eval), cores, mb(m.Peak), limit)
	case m.Validation > m.TrainGraph:
		return fielderr.New("train.val_examples", "validating at length %d in batches of %d needs about %s (a predicted peak of %s), more than %s; lower eval.batch_size or train.val_examples, or set train.val_every: 0",
			c.Task.MaxLen, min(c.Eval.BatchSize, c.Train.ValExamples), mb(m.Validation), mb(m.Peak), limit)
	case m.TrainGraph >= m.State:
		return fielderr.New("task.max_len", "training on %d tokens in batches of %d needs about %s per step (activations and attention weights kept for the gradient; a predicted peak of %s), more than %s; lower task.max_len or train.batch_size",
			data.SeqLen(task, c.Task.MaxLen), c.Train.BatchSize, mb(m.TrainGraph), mb(m.Peak), limit)
	}
	fields := "model.d_model, model.d_ff or model.layers"
	if c.Model.Vocab > 0 {
		fields = "model.vocab, " + fields
	}
	return fielderr.New("model", "the weights and optimiser state need about %s (a predicted peak of %s), more than %s; lower %s", mb(m.State), mb(m.Peak), limit, fields)
}

// processLimits are the process's limits (tests replace it).
var processLimits = memlimit.Limits

// virtualSlack: memlimit.Slack.
const virtualSlack = memlimit.Slack

// ProcessRoom is the memory the process's own limits (internal/memlimit: the address-space
// limit, less what the process has mapped already, the Go runtime's reservations included, and
// virtualSlack; the cgroup's memory limit) leave for a prediction's peak, the smallest of them,
// with the words naming it; ok is false when there is no limit. mapped is the part of the
// prediction already allocated (a loaded corpus), which the address space holds already.
func ProcessRoom(mapped int64) (room int64, what string, ok bool) {
	for _, l := range processLimits() {
		r, w := l.Bytes, fmt.Sprintf("%s of %s", l.What, mb(l.Bytes))
		if l.Virtual { // the runtime's share of a peak (RuntimeBytes) is mapped already
			used := memlimit.Virtual() + virtualSlack
			r, w = l.Bytes-used+RuntimeBytes+mapped, fmt.Sprintf("the %s that %s leaves beside the %s the Go runtime and the process map already", mb(max(l.Bytes-used, 0)), w, mb(used))
		}
		if !ok || r < room {
			room, what, ok = r, w, true
		}
	}
	return room, what, ok
}

// CheckJobs refuses to train jobs of the grid's runs at once (this shard's cells, or its tuning
// runs of select:, whichever are more) when that many times the largest run's predicted peak
// does not fit in what the process's own limits leave (ProcessRoom), in one line naming -jobs
// and the largest number of jobs that fits. A run that does not fit alone was refused by Check.
func (g *Grid) CheckJobs(jobs int, shard config.Shard) error {
	var peak, held int64
	n := 0
	for _, runs := range [][]*Checked{g.Cells, g.Tuning} {
		k := 0
		for i, r := range runs {
			if shard.Has(i) {
				k, peak, held = k+1, max(peak, r.Memory.Peak), max(held, r.Memory.Corpus)
			}
		}
		n = max(n, min(k, jobs))
	}
	room, what, ok := ProcessRoom(held) // a corpus is loaded once, by the check, for every run
	if !ok || n <= 1 || int64(n)*peak <= room {
		return nil
	}
	fit := fmt.Sprintf("-jobs %d or fewer", room/peak)
	if room/peak <= 1 {
		fit = "-jobs 1"
	}
	return fmt.Errorf("-jobs %d: %d runs at once need about %s (%d × the largest run's predicted peak, %s), more than %s; use %s",
		jobs, n, mb(int64(n)*peak), n, mb(peak), what, fit)
}
