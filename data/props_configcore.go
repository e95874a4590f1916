package data

// Traits are what a kind of task declares about how it is configured, evaluated and stored;
// the config, its checks, the memory prediction and the run directory act on them instead of
// asking for a task by name.
type Traits struct {
	// Corpus: the task reads a corpus (task.corpus, task.corpus_sha256) rather than generating
	// its examples; with no task.corpus it reads the built-in one, pinned by BuiltinCorpusSHA256.
	Corpus bool
	// Windows: the task is evaluated over windows of a text stream, a sliding window scoring the
	// last eval.stride predictions of each (default task.max_len), in batches of
	// eval.batch_size·task.max_len tokens (WindowsPerBatch).
	Windows bool
	// ExactMatch: the task's answers are scored by exact match, which early stopping, select:
	// and randomized positions (drawn per example) need.
	ExactMatch bool
	// ScoresFile is the file of per-length scores a run writes beside results.json, "" for none.
	ScoresFile string
	// EvalLengths is the default eval.lengths for training lengths up to maxLen, none beyond
	// limit.
	EvalLengths func(maxLen, limit int) []int
}

var kindTraits = map[string]Traits{
	KindSequence: {ExactMatch: true, EvalLengths: upToFourfold},
	KindText:     {Corpus: true, Windows: true, ScoresFile: "lm.csv", EvalLengths: powersOfTwo},
}

// TraitsOf is the traits of a registered task's kind (KindOf).
func TraitsOf(task string) Traits { return KindTraits(KindOf(task)) }

// KindTraits is the traits of a kind of task (KindSequence, KindText).
func KindTraits(kind string) Traits { return kindTraits[kind] }

// ScoresFiles are the per-length scores files of every kind of task (Traits.ScoresFile).
func ScoresFiles() []string {
	var out []string
	for _, t := range kindTraits {
		if t.ScoresFile != "" {
			out = append(out, t.ScoresFile)
		}
	}
	return out
}

// upToFourfold is every length from 1 to four times the longest training length.
func upToFourfold(maxLen, limit int) []int {
	var out []int
	for L := 1; L <= 4*maxLen; L++ {
		out = append(out, L)
	}
	return out
}

// powersOfTwo is the powers of two from 8 to 16·T (T the training windows' length), and T.
func powersOfTwo(T, limit int) []int {
	var out []int
	for L := 8; L <= 16*T && L <= limit; L *= 2 {
		if L > T && (len(out) == 0 || out[len(out)-1] < T) {
			out = append(out, T)
		}
		if L != T {
			out = append(out, L)
		}
	}
	if len(out) == 0 || out[len(out)-1] < T {
		out = append(out, T)
	}
	return out
}

// WindowsPerBatch is how many windows of L tokens an evaluation batch of a Windows task holds:
// as many as make batch windows of the training length maxLen (at least one), so that short
// contexts are not scored a few tokens at a time.
func WindowsPerBatch(batch, maxLen, L int) int { return max(1, batch*maxLen/max(L, 1)) }

// Held is the optional hook of a task that holds data through a run: HeldBytes is its memory
// (a corpus's tokens, 8 bytes each).
type Held interface{ HeldBytes() int64 }

// Windowed is the optional hook of a task whose examples are windows of a stream it reads:
// the longest training window the stream allows, where the stream came from (for messages),
// and how many evaluation windows of L tokens its test split gives at a stride.
type Windowed interface {
	LongestWindow() int
	Source() string
	TestWindows(L, stride int) int
}

var (
	_ Held     = (*LM)(nil)
	_ Windowed = (*LM)(nil)
)

func (t *LM) HeldBytes() int64 { return t.CorpusBytes() }
func (t *LM) Source() string   { return t.Corpus }

func (t *LM) TestWindows(L, stride int) int { return len(t.Windows(SplitTest, L, stride)) }
