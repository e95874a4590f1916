package data

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/posformer/posformer/internal/fielderr"
)

// Reserved tokens and the first task symbol.
const (
	PAD         = 0 // padding token (never produced by tasks; reserved)
	SEP         = 1 // separator between input and output
	FirstSymbol = 2 // task symbols are FirstSymbol .. FirstSymbol+Symbols-1
)

// Alphabet size bounds for [Options.Symbols].
const (
	DefaultSymbols = 8
	MinSymbols     = 2
	MaxSymbols     = 1000
)

// Example is one instance of a task: Input has Length symbols; Output is the answer.
type Example struct {
	Input  []int
	Output []int
}

// Stream returns the token stream Input ++ [SEP] ++ Output as a new slice.
func (e Example) Stream() []int {
	s := make([]int, 0, len(e.Input)+1+len(e.Output))
	s = append(s, e.Input...)
	s = append(s, SEP)
	return append(s, e.Output...)
}

// Task generates examples. Implementations must be deterministic given the rng.
type Task interface {
	Name() string
	// Vocab is the total vocabulary size, reserved tokens included: FirstSymbol
	// + Symbols for the tasks with an alphabet size, a constant for the tasks
	// with a fixed alphabet. Every token a task produces is in [FirstSymbol, Vocab).
	Vocab() int
	// OutputLen is the number of output tokens for an input of length L, a
	// function of L only (copy, reverse, sort: L; duplicate: 2L; binary_addition:
	// L+1; parity, even_pairs, cycle_navigation, modular_arithmetic: 1).
	OutputLen(L int) int
	// Generate draws one example with an input of exactly L tokens (L >= 1) from
	// rng; it panics if L < 1.
	Generate(rng *rand.Rand, L int) Example
}

// Classed is the optional hook of a task whose output tokens take fewer values than its
// vocabulary holds: OutputClasses is the number of values one output token can take (parity: 2,
// modular_arithmetic: 5, stack_manipulation: 3, its end token included). The chance rule guesses
// among them (see [OutputClasses]).
type Classed interface {
	OutputClasses() int
}

var _ Classed = parityTask{}

// OutputClasses returns the number of values an output token of t takes: the task's
// [Classed] hook, one more with task.end_token (END), the same in the slots format; false for
// a task without the hook (the tasks with an alphabet size answer with their symbols).
func OutputClasses(t Task) (int, bool) {
	switch w := t.(type) {
	case endTask:
		k, ok := OutputClasses(w.Task)
		return k + 1, ok
	case slotTask:
		return OutputClasses(w.Task)
	case Classed:
		return w.OutputClasses(), true
	}
	return 0, false
}

// Options configure a task. Symbols is the alphabet size: DefaultSymbols (8)
// when 0, otherwise it must be in [MinSymbols, MaxSymbols]. Tasks with a fixed
// alphabet (parity, binary_addition, stack_manipulation and the others that
// declare [Classed]) take no alphabet size: for them Symbols must be 0 or
// DefaultSymbols, and other values are an error naming task.symbols.
//
// Format is the task format, FormatNext ("next", the default when empty) or FormatSlots
// ("slots"); EndToken ends every answer with an end-of-answer token (next-token format only).
// Both keep the task's name and its own token ids: the new tokens (END, SLOT) are appended to
// the vocabulary.
type Options struct {
	Symbols  int
	Format   string
	EndToken bool
	// Corpus and CorpusSHA256 are the lm task's corpus (a .tar.gz path, "" for the built-in one)
	// and the SHA-256 of its uncompressed tar stream ("" for the built-in one's); see LoadLM.
	Corpus       string
	CorpusSHA256 string
	// Depth is the passkey task's needle depth (nil: drawn per example); IgnoreProb the
	// flip_flop task's probability of an ignore instruction (nil: its default). See their files.
	Depth, IgnoreProb *float64
	// Queries is the mqar task's number of queries (nil: every key once). See mqar.go.
	Queries *int
}

// symbols returns the effective alphabet size or an error naming task.symbols.
func (o Options) symbols() (int, error) {
	switch {
	case o.Symbols == 0:
		return DefaultSymbols, nil
	case o.Symbols < MinSymbols || o.Symbols > MaxSymbols:
		return 0, fielderr.New("task.symbols", "must be in [%d, %d] (or 0 for the default %d), got %d",
			MinSymbols, MaxSymbols, DefaultSymbols, o.Symbols)
	}
	return o.Symbols, nil
}

var registry = struct {
	sync.RWMutex
	ctors map[string]func(Options) (Task, error)
}{ctors: map[string]func(Options) (Task, error){}}

// Register adds a task constructor under a name. It is meant to be called from
// init and panics on an empty name, a nil constructor or a duplicate name.
func Register(name string, ctor func(Options) (Task, error)) {
	if name == "" {
		panic("data.Register: empty task name")
	}
	if ctor == nil {
		panic(fmt.Sprintf("data.Register: nil constructor for task %q", name))
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.ctors[name]; dup {
		panic(fmt.Sprintf("data.Register: task %q registered twice", name))
	}
	registry.ctors[name] = ctor
}

// New builds a registered task. An unknown name is an error listing the known
// names, e.g. `unknown task "foo" (known: copy, reverse, sort)`.
func New(name string, opt Options) (Task, error) {
	registry.RLock()
	ctor, ok := registry.ctors[name]
	registry.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown task %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	if err := opt.readBy(name); err != nil {
		return nil, err
	}
	t, err := ctor(opt)
	if err != nil {
		return nil, err
	}
	return wrap(t, opt)
}

// Names lists registered task names, sorted.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.ctors))
	for n := range registry.ctors {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// The kinds of task, which decide how a task is evaluated and which metrics apply to it
// (package metric): a sequence task generates examples, an answer per input scored token by
// token; a text task (lm) reads a corpus, scored by the likelihood of every byte.
const (
	KindSequence = "sequence"
	KindText     = "text"
)

// InRange tells whether a test length L of a task trained on lengths minLen..maxLen is in the
// training range: minLen..maxLen, or for a text task every context up to its training windows'
// (a language model predicts from every shorter context as it trains).
func InRange(task string, L, minLen, maxLen int) bool {
	return L <= maxLen && (L >= minLen || KindOf(task) == KindText)
}

// SeqLen is the length of the model's input sequence for input length L:
// len(Stream)-1 = L + 1 + OutputLen(L) - 1 in the next-token format, L + OutputLen(L) input
// tokens and slots in the slots format.
func SeqLen(t Task, L int) int {
	return L + t.OutputLen(L)
}

// Batch is B sequences of equal length T, laid out row-major ([B*T]).
// Next-token format: Inputs[b*T+t] = stream_b[t]; Targets[b*T+t] = stream_b[t+1].
// Slots format: Inputs[b*T+t] = Input_b[t] for t < L and SLOT after; Targets[b*T+L+j] =
// Output_b[j], PAD before L. In both, Weights[b*T+t] = 1 where the target is an output token
// (t >= len(Input), i.e. positions L .. L+OutputLen-1) and, for a task scored inside its input
// (flip_flop), where its next input token is scored; else 0.
type Batch struct {
	B, T    int
	L       int // input length of every example in the batch
	Inputs  []int
	Targets []int
	Weights []float64
}

// MakeBatch packs examples that all have the same input length L into a
// Batch. It is an error if ex is empty, if lengths are mixed (the error names
// both lengths), if L < 1 or if an output does not have t.OutputLen(L) tokens.
func MakeBatch(t Task, ex []Example) (Batch, error) {
	if t == nil {
		return Batch{}, errors.New("MakeBatch: nil task")
	}
	if len(ex) == 0 {
		return Batch{}, errors.New("MakeBatch: no examples")
	}
	L := len(ex[0].Input)
	if L < 1 {
		return Batch{}, fmt.Errorf("MakeBatch: example 0 has input length %d, want >= 1", L)
	}
	outLen := t.OutputLen(L)
	for i, e := range ex {
		if len(e.Input) != L {
			return Batch{}, fmt.Errorf("MakeBatch: mixed input lengths: example 0 has length %d, example %d has length %d",
				L, i, len(e.Input))
		}
		if len(e.Output) != outLen {
			return Batch{}, fmt.Errorf("MakeBatch: example %d has output length %d, task %s wants %d for input length %d",
				i, len(e.Output), t.Name(), outLen, L)
		}
	}
	B, T := len(ex), SeqLen(t, L)
	b := Batch{
		B: B, T: T, L: L,
		Inputs:  make([]int, B*T),
		Targets: make([]int, B*T),
		Weights: make([]float64, B*T),
	}
	slot, slots := SlotToken(t)
	for i, e := range ex {
		row := i * T
		if slots {
			copy(b.Inputs[row:row+L], e.Input)
			for j := range outLen {
				b.Inputs[row+L+j] = slot
				b.Targets[row+L+j] = e.Output[j]
				b.Weights[row+L+j] = 1
			}
			continue
		}
		s := e.Stream()
		copy(b.Inputs[row:row+T], s[:T])
		copy(b.Targets[row:row+T], s[1:])
		for j := L; j < T; j++ {
			b.Weights[row+j] = 1
		}
		if ip, ok := t.(inPlace); ok {
			for _, j := range ip.scoredAt(e.Input) {
				b.Weights[row+j] = 1
			}
		}
	}
	return b, nil
}
