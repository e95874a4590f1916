package data

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/fielderr"
)

func mustNew(t *testing.T, name string, opt Options) Task {
	t.Helper()
	task, err := New(name, opt)
	if err != nil {
		t.Fatalf("New(%q, %+v): %v", name, opt, err)
	}
	return task
}

// taskSpec is an independent reference for a task: its expected output,
// output length and vocabulary, and the Options.Symbols values to test it with.
//
// A task's reference may live in its own _test.go file, which adds it to specs from an init
// (mqar_test.go does); a task without one still passes every invariant TestTasksCorrect checks,
// and its missing reference is a skipped subtest, named in `go test -v`.
type taskSpec struct {
	want func(in []int) []int // the expected output for an input
	// wantSym, when set, replaces want for the tasks whose output holds a token that depends on
	// the alphabet size (the NEXT marker of copy_twice, reverse_twice, reverse_copy).
	wantSym func(in []int, symbols int) []int
	// check, when set, replaces want and wantSym for the tasks whose answers are not a function
	// of the input alone, or stand inside it (flip_flop, passkey, mqar): it says what is wrong
	// with an example, nil when nothing is.
	check   func(e Example, symbols int) error
	outLen  func(L int) int
	vocab   func(symbols int) int // symbols is the effective alphabet size (DefaultSymbols for 0)
	symbols []int                 // Options.Symbols to test; fixed-alphabet tasks: 0 and DefaultSymbols
}

func sameLen(L int) int { return L }
func one(int) int       { return 1 }
func zero(int) int      { return 0 }

// fixedVocab is the vocabulary of a fixed-alphabet task, whatever Symbols says.
func fixedVocab(v int) func(int) int { return func(int) int { return v } }

func symbolVocab(symbols int) int { return FirstSymbol + symbols }

var fixedSymbols = []int{0, DefaultSymbols}

// specs holds the references of the tasks; the newer tasks add theirs from their own _test.go
// files (init functions run after this map is built).
var specs = map[string]taskSpec{
	"copy":    {want: slices.Clone[[]int], outLen: sameLen, vocab: symbolVocab, symbols: []int{0, 2, 1000}},
	"reverse": {want: wantReverse, outLen: sameLen, vocab: symbolVocab, symbols: []int{0, 3, 1000}},
	"sort":    {want: wantSorted, outLen: sameLen, vocab: symbolVocab, symbols: []int{0, 2, 1000}},

	"bucket_sort": {want: wantSorted, outLen: sameLen, vocab: symbolVocab, symbols: []int{0, 2, 5, 1000}},
	"duplicate":   {want: wantDuplicate, outLen: func(L int) int { return 2 * L }, vocab: symbolVocab, symbols: []int{0, 2, 1000}},

	"copy_repeat":    {want: slices.Clone[[]int], outLen: sameLen, vocab: symbolVocab, symbols: []int{0, 2, 1000}},
	"copy_repeat_2x": {want: wantDuplicate, outLen: func(L int) int { return 2 * L }, vocab: symbolVocab, symbols: []int{0, 2, 1000}},
	"copy_twice":     {wantSym: wantTwice(false, false), outLen: twicePlusOne, vocab: nextVocab, symbols: []int{0, 2, 100, 1000}},
	"reverse_twice":  {wantSym: wantTwice(true, true), outLen: twicePlusOne, vocab: nextVocab, symbols: []int{0, 2, 100, 1000}},
	"reverse_copy":   {wantSym: wantTwice(true, false), outLen: twicePlusOne, vocab: nextVocab, symbols: []int{0, 2, 100, 1000}},

	"parity":             {want: wantParity, outLen: one, vocab: fixedVocab(4), symbols: fixedSymbols},
	"even_pairs":         {want: wantEvenPairs, outLen: one, vocab: fixedVocab(6), symbols: fixedSymbols},
	"cycle_navigation":   {want: wantCycle, outLen: one, vocab: fixedVocab(10), symbols: fixedSymbols},
	"modular_arithmetic": {want: wantModArith, outLen: one, vocab: fixedVocab(10), symbols: fixedSymbols},
	"binary_addition":    {want: wantBinarySum, outLen: func(L int) int { return L + 1 }, vocab: fixedVocab(5), symbols: fixedSymbols},

	"stack_manipulation":          {want: wantStack, outLen: func(L int) int { return L + 1 }, vocab: fixedVocab(8), symbols: fixedSymbols},
	"modular_arithmetic_brackets": {want: wantModBrackets, outLen: one, vocab: fixedVocab(12), symbols: fixedSymbols},
	"solve_equation":              {want: wantEquation, outLen: one, vocab: fixedVocab(13), symbols: fixedSymbols},
	"missing_duplicate":           {want: wantMissing, outLen: one, vocab: fixedVocab(6), symbols: fixedSymbols},
	"odds_first":                  {want: wantOddsFirst, outLen: sameLen, vocab: symbolVocab, symbols: []int{0, 2, 1000}},
	"binary_multiplication":       {want: wantBinaryProduct, outLen: sameLen, vocab: fixedVocab(5), symbols: fixedSymbols},
	"compute_sqrt":                {want: wantSqrt, outLen: func(L int) int { return (L + 1) / 2 }, vocab: fixedVocab(4), symbols: fixedSymbols},
}

func wantReverse(in []int) []int {
	r := slices.Clone(in)
	slices.Reverse(r)
	return r
}

func wantSorted(in []int) []int {
	// Counting sort: independent of slices.Sort used by the tasks.
	count := map[int]int{}
	lo, hi := in[0], in[0]
	for _, tok := range in {
		count[tok]++
		lo, hi = min(lo, tok), max(hi, tok)
	}
	var out []int
	for tok := lo; tok <= hi; tok++ {
		for range count[tok] {
			out = append(out, tok)
		}
	}
	return out
}

// TestTasksCorrect draws many examples of every task that generates them, at every length 1..64
// it builds (or its shortest lengths, for a task that builds none of those), and checks them
// against the task's reference where it has one (specs), with the invariants every task shares:
// input length L, OutputLen(L) output tokens, tokens in [FirstSymbol, Vocab), Name, and the
// scored positions in range.
func TestTasksCorrect(t *testing.T) {
	for _, name := range generatedNames() {
		spec, ok := specs[name]
		if !ok {
			t.Run(name+"/reference", func(t *testing.T) {
				t.Skipf("task %s has no reference: add one to specs from its _test.go (docs/tasks.md, \"Adding a task\")", name)
			})
			spec = taskSpec{symbols: []int{0}}
		}
		for _, symbols := range spec.symbols {
			task := mustNew(t, name, Options{Symbols: symbols})
			wantSymbols := symbols
			if wantSymbols == 0 {
				wantSymbols = DefaultSymbols
			}
			if spec.vocab != nil {
				if got, want := task.Vocab(), spec.vocab(wantSymbols); got != want {
					t.Errorf("%s/%d: Vocab() = %d, want %d", name, symbols, got, want)
				}
			}
			if task.Name() != name {
				t.Errorf("Name() = %q, want %q", task.Name(), name)
			}
			rng := rand.New(rand.NewPCG(1, uint64(symbols)))
			for _, L := range testLengths(task, 1, 64) {
				if spec.outLen != nil {
					if got, want := task.OutputLen(L), spec.outLen(L); got != want {
						t.Errorf("%s: OutputLen(%d) = %d, want %d", name, L, got, want)
					}
				}
				for range 20 {
					e := task.Generate(rng, L)
					if len(e.Input) != L || len(e.Output) != task.OutputLen(L) {
						t.Fatalf("%s: L=%d: got input %d, output %d tokens", name, L, len(e.Input), len(e.Output))
					}
					for _, tok := range e.Stream() {
						if tok == PAD || tok >= task.Vocab() || tok < 0 {
							t.Fatalf("%s: token %d out of range in %v", name, tok, e.Stream())
						}
					}
					for _, tok := range slices.Concat(e.Input, e.Output) {
						if tok < FirstSymbol {
							t.Fatalf("%s: reserved token %d inside input/output: %+v", name, tok, e)
						}
					}
					if len(scored(t, task, e)) == 0 {
						t.Fatalf("%s: L=%d: nothing of %v is scored", name, L, e.Stream())
					}
					switch {
					case !ok:
					case spec.check != nil:
						if err := spec.check(e, wantSymbols); err != nil {
							t.Fatalf("%s/%d: L=%d: %v: %v", name, symbols, L, e.Stream(), err)
						}
					default:
						want := func(in []int) []int {
							if spec.wantSym != nil {
								return spec.wantSym(in, wantSymbols)
							}
							return spec.want(in)
						}(e.Input)
						if !slices.Equal(e.Output, want) {
							t.Fatalf("%s: wrong output for input %v: %v, want %v", name, e.Input, e.Output, want)
						}
					}
				}
			}
		}
	}
}

// TestSymbolsOption: every task either takes task.symbols as its alphabet size (each value it
// accepts changes its vocabulary: none is silently ignored, and the ones it refuses are refused
// naming task.symbols and the value), or has a fixed alphabet and refuses every value but the
// unset ones (0, or DefaultSymbols as the training config fills it in), naming task.symbols and
// the task.
func TestSymbolsOption(t *testing.T) {
	for _, name := range generatedNames() {
		def := mustNew(t, name, Options{}).Vocab()
		if v := mustNew(t, name, Options{Symbols: DefaultSymbols}).Vocab(); v != def {
			t.Errorf("%s: vocabulary %d with task.symbols %d, %d with it unset", name, v, DefaultSymbols, def)
		}
		accepted := 0
		for _, symbols := range []int{1, 2, 3, 5, 10, 1000, 1001, -1} {
			task, err := New(name, Options{Symbols: symbols})
			if err == nil {
				accepted++
				if symbols < MinSymbols || symbols > MaxSymbols || task.Vocab() == def {
					t.Errorf("%s accepts task.symbols %d (vocabulary %d, %d unset)", name, symbols, task.Vocab(), def)
				}
				continue
			}
			if p := fielderr.PathOf(err); p != "task.symbols" {
				t.Errorf("%s, task.symbols %d: error %q names %q, want task.symbols", name, symbols, err, p)
			}
			if !hasFixedAlphabet(name) && !strings.Contains(err.Error(), fmt.Sprint(symbols)) {
				t.Errorf("%s, task.symbols %d: error %q does not say the value", name, symbols, err)
			}
		}
		if accepted == 0 {
			if _, err := New(name, Options{Symbols: 5}); !strings.Contains(err.Error(), name) {
				t.Errorf("%s has a fixed alphabet, but its error %q does not name it", name, err)
			}
		}
	}
}

// hasFixedAlphabet tells whether a task refuses every alphabet size but the unset ones.
func hasFixedAlphabet(name string) bool {
	for _, symbols := range []int{2, 3, 4, 5, 10, 100} {
		if _, err := New(name, Options{Symbols: symbols}); err == nil {
			return false
		}
	}
	return true
}

// smallestAlphabet is the options of a task with its smallest alphabet of at least min symbols
// that it accepts (the unset options for a fixed alphabet).
func smallestAlphabet(name string, min int) Options {
	if hasFixedAlphabet(name) {
		return Options{}
	}
	for s := min; s <= MaxSymbols; s++ {
		if _, err := New(name, Options{Symbols: s}); err == nil {
			return Options{Symbols: s}
		}
	}
	return Options{}
}

// TestFixedAlphabetTasksDeclareClasses: a task with a fixed alphabet declares how many values
// an answer token takes (OutputClasses), which the chance rule needs.
func TestFixedAlphabetTasksDeclareClasses(t *testing.T) {
	for _, name := range generatedNames() {
		if _, ok := OutputClasses(mustNew(t, name, Options{})); hasFixedAlphabet(name) && !ok {
			t.Errorf("%s has a fixed alphabet but declares no OutputClasses", name)
		}
	}
}

// drawExamples returns n examples of length L from a fixed rng.
func drawExamples(task Task, L, n int, seed uint64) []Example {
	rng := rand.New(rand.NewPCG(seed, uint64(L)))
	ex := make([]Example, n)
	for i := range ex {
		ex[i] = task.Generate(rng, L)
	}
	return ex
}

func TestSymbolsUsed(t *testing.T) {
	// Small alphabets should use every symbol and nothing else.
	task := mustNew(t, "copy", Options{Symbols: 5})
	rng := rand.New(rand.NewPCG(7, 7))
	seen := map[int]bool{}
	for range 100 {
		for _, tok := range task.Generate(rng, 16).Input {
			seen[tok] = true
		}
	}
	for s := FirstSymbol; s < FirstSymbol+5; s++ {
		if !seen[s] {
			t.Errorf("symbol %d never drawn", s)
		}
	}
	if len(seen) != 5 {
		t.Errorf("drew %d distinct symbols, want 5: %v", len(seen), seen)
	}
}

func TestGenerateDeterministic(t *testing.T) {
	for _, name := range generatedNames() {
		task := mustNew(t, name, Options{})
		for _, L := range testLengths(task, 20, 20) {
			a := task.Generate(rand.New(rand.NewPCG(3, 4)), L)
			b := task.Generate(rand.New(rand.NewPCG(3, 4)), L)
			if !slices.Equal(a.Stream(), b.Stream()) {
				t.Errorf("%s: same rng gave %v and %v", name, a.Stream(), b.Stream())
			}
		}
	}
}

func TestStream(t *testing.T) {
	e := Example{Input: []int{2, 3, 4}, Output: []int{4, 3, 2}}
	want := []int{2, 3, 4, SEP, 4, 3, 2}
	got := e.Stream()
	if !slices.Equal(got, want) {
		t.Fatalf("Stream() = %v, want %v", got, want)
	}
	got[0] = 99
	if e.Input[0] != 2 {
		t.Error("Stream aliases Input")
	}
}

func TestNewErrors(t *testing.T) {
	allNames := strings.Join(Names(), ", ")
	tests := []struct {
		name    string
		opt     Options
		wantErr []string // substrings; nil means no error
	}{
		{"copy", Options{}, nil},
		{"sort", Options{Symbols: 2}, nil},
		{"reverse", Options{Symbols: 1000}, nil},
		{"foo", Options{}, []string{`unknown task "foo"`, "(known: " + allNames + ")"}},
		{"", Options{}, []string{`unknown task ""`, allNames}},
		{"duplicate", Options{Symbols: 1}, []string{"task.symbols", "got 1"}},
		{"bucket_sort", Options{Symbols: 1001}, []string{"task.symbols", "1001"}},
		{"parity", Options{Symbols: 2}, []string{"task.symbols", "parity", "got 2"}},
		{"modular_arithmetic", Options{Symbols: DefaultSymbols}, nil},
		{"copy", Options{Symbols: 1}, []string{"task.symbols", "got 1"}},
		{"reverse", Options{Symbols: -3}, []string{"task.symbols"}},
		{"sort", Options{Symbols: 1001}, []string{"task.symbols", "1001"}},
	}
	for _, tc := range tests {
		task, err := New(tc.name, tc.opt)
		if tc.wantErr == nil {
			if err != nil || task == nil {
				t.Errorf("New(%q, %+v) = %v, %v; want a task", tc.name, tc.opt, task, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("New(%q, %+v) succeeded, want error", tc.name, tc.opt)
			continue
		}
		for _, sub := range tc.wantErr {
			if !strings.Contains(err.Error(), sub) {
				t.Errorf("New(%q, %+v) error %q does not contain %q", tc.name, tc.opt, err, sub)
			}
		}
	}
}

// TestNames: the registry's names are sorted and distinct, each builds (with the options the
// training config fills in), and a name is listed once registered, never before.
func TestNames(t *testing.T) {
	got := Names()
	if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Errorf("Names() not sorted and distinct: %v", got)
	}
	for _, want := range []string{"copy", "reverse", "sort"} {
		if !slices.Contains(got, want) {
			t.Errorf("Names() = %v, missing %q", got, want)
		}
	}
	for _, name := range got {
		if ReadsCorpus(name) {
			continue // lm: reads its built-in corpus (lm_test.go)
		}
		if _, err := New(name, Options{Symbols: DefaultSymbols}); err != nil {
			t.Errorf("%s does not build with the config's defaults: %v", name, err)
		}
	}
	const name = "test_names_registered"
	if slices.Contains(Names(), name) {
		t.Fatalf("%s listed before it is registered", name)
	}
	Register(name, func(Options) (Task, error) { return copyTask{alphabet{2}}, nil })
	defer func() {
		registry.Lock()
		delete(registry.ctors, name)
		registry.Unlock()
	}()
	if now := Names(); !slices.Contains(now, name) || len(now) != len(got)+1 || !slices.IsSorted(now) {
		t.Errorf("after registering %s: %v", name, now)
	}
}

func TestRegisterPanics(t *testing.T) {
	ctor := func(Options) (Task, error) { return nil, nil }
	tests := []struct {
		desc string
		name string
		ctor func(Options) (Task, error)
	}{
		{"duplicate", "copy", ctor},
		{"empty name", "", ctor},
		{"nil ctor", "never-registered", nil},
	}
	for _, tc := range tests {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", tc.desc)
				}
			}()
			Register(tc.name, tc.ctor)
		}()
	}
	if slices.Contains(Names(), "never-registered") {
		t.Error("failed Register left a name behind")
	}
}

// TestGenerateBadLengthPanics: Generate panics on length 0, and on every length 1..64 that the
// task's CheckLength refuses.
func TestGenerateBadLengthPanics(t *testing.T) {
	for _, name := range generatedNames() {
		task := mustNew(t, name, Options{})
		for L := range 65 {
			if L > 0 && CheckLength(task, L) == nil {
				continue
			}
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: Generate(rng, %d) did not panic", name, L)
					}
				}()
				task.Generate(rand.New(rand.NewPCG(0, 0)), L)
			}()
		}
	}
}

// TestOutputClasses: a task that declares OutputClasses answers with exactly that many distinct
// tokens over many draws (so the chance rule's 1/k is the task's), counted at the scored
// positions; END adds a class, the slots format none, and a task that refuses either says which
// field.
func TestOutputClasses(t *testing.T) {
	for _, name := range generatedNames() {
		opt := smallestAlphabet(name, 3)
		task := mustNew(t, name, opt)
		k, ok := OutputClasses(task)
		if !ok {
			continue
		}
		seen := map[int]bool{}
		for _, L := range testLengths(task, 1, 24) {
			for _, e := range drawExamples(task, L, 200, 17) {
				for _, tok := range scored(t, task, e) {
					seen[tok] = true
				}
			}
		}
		if len(seen) != k {
			t.Errorf("%s: OutputClasses %d, the answers hold %d distinct tokens: %v", name, k, len(seen), seen)
		}
		if end, err := New(name, Options{Symbols: opt.Symbols, EndToken: true}); err != nil {
			if fielderr.PathOf(err) == "" {
				t.Errorf("%s refuses task.end_token without naming a field: %v", name, err)
			}
		} else if ke, _ := OutputClasses(end); ke != k+1 {
			t.Errorf("%s with END: %d classes, want %d", name, ke, k+1)
		}
		if slots, err := New(name, Options{Symbols: opt.Symbols, Format: FormatSlots}); err != nil {
			if fielderr.PathOf(err) != "task.format" {
				t.Errorf("%s refuses the slots format without naming task.format: %v", name, err)
			}
		} else if ks, _ := OutputClasses(slots); ks != k {
			t.Errorf("%s in slots: %d classes, want %d", name, ks, k)
		}
	}
}

// generatedNames lists the tasks that generate examples: every registered task but the ones
// that read a corpus (lm, tested in lm_test.go). The tests that take them build each at the
// lengths it builds (testLengths).
func generatedNames() []string {
	var out []string
	for _, name := range Names() {
		if !ReadsCorpus(name) {
			out = append(out, name)
		}
	}
	return out
}

// testLengths is the lengths lo..hi that a task builds (CheckLength), or, when it builds none of
// them, the first hi−lo+1 lengths above hi it builds (passkey: 239, 240, ...), at most 4096.
func testLengths(task Task, lo, hi int) []int {
	var out []int
	for L := lo; L <= hi; L++ {
		if CheckLength(task, L) == nil {
			out = append(out, L)
		}
	}
	for L := hi + 1; len(out) == 0 && L <= 4096; L++ {
		if CheckLength(task, L) == nil {
			for ; L <= 4096 && len(out) < hi-lo+1; L++ {
				if CheckLength(task, L) == nil {
					out = append(out, L)
				}
			}
		}
	}
	return out
}

// validOf is the lengths of Ls that a task builds, or when it builds none of them, its first
// len(Ls) lengths (testLengths).
func validOf(task Task, Ls ...int) []int {
	var out []int
	for _, L := range Ls {
		if CheckLength(task, L) == nil {
			out = append(out, L)
		}
	}
	if len(out) == 0 {
		return testLengths(task, 1, len(Ls))
	}
	return out
}

// trainRange is the first range of n training lengths min..max from 4 up that the task builds
// whole, or its first length from 12 up alone (flip_flop builds only even lengths).
func trainRange(task Task, n int) (lo, hi int) {
	for L := 4; L <= 4096; L++ {
		ok := true
		for l := L; l < L+n && ok; l++ {
			ok = CheckLength(task, l) == nil
		}
		if ok {
			return L, L + n - 1
		}
	}
	first := testLengths(task, 12, 12)[0]
	return first, first
}

// scored is what a model is scored on for an example: the targets of the positions MakeBatch
// weights (the answer after SEP, the slots, or the positions inside the input a task scores).
func scored(t testing.TB, task Task, e Example) []int {
	t.Helper()
	b, err := MakeBatch(task, []Example{e})
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for i, w := range b.Weights {
		if w != 0 {
			out = append(out, b.Targets[i])
		}
	}
	return out
}

// TestReferencesCatchWrongAnswers: a reference that checks examples (specs' check) refuses an
// example whose first scored token is changed to another token of the vocabulary, so that
// TestTasksCorrect would catch a task that answers wrongly.
func TestReferencesCatchWrongAnswers(t *testing.T) {
	for name, spec := range specs {
		if spec.check == nil {
			continue
		}
		task := mustNew(t, name, Options{})
		for _, L := range testLengths(task, 1, 16) {
			e := task.Generate(rand.New(rand.NewPCG(2, uint64(L))), L)
			if err := spec.check(e, DefaultSymbols); err != nil {
				t.Fatalf("%s L=%d: a generated example refused: %v", name, L, err)
			}
			b, _ := MakeBatch(task, []Example{e})
			j := slices.Index(b.Weights, 1) + 1 // the stream position of the first scored token
			stream := e.Stream()
			for tok := FirstSymbol; tok < task.Vocab(); tok++ {
				if tok == stream[j] {
					continue
				}
				bad := Example{Input: slices.Clone(e.Input), Output: slices.Clone(e.Output)}
				if j < L {
					bad.Input[j] = tok
				} else {
					bad.Output[j-L-1] = tok
				}
				if spec.check(bad, DefaultSymbols) == nil {
					t.Errorf("%s L=%d: the reference accepts %v with token %d at %d", name, L, bad.Stream(), tok, j)
				}
			}
		}
	}
}
