package data

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
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
type taskSpec struct {
	want func(in []int) []int // the expected output for an input
	// wantSym, when set, replaces want for the tasks whose output holds a token that depends on
	// the alphabet size (the NEXT marker of copy_twice, reverse_twice, reverse_copy).
	wantSym func(in []int, symbols int) []int
	outLen  func(L int) int
	vocab   func(symbols int) int // symbols is the effective alphabet size (DefaultSymbols for 0)
	symbols []int                 // Options.Symbols to test; fixed-alphabet tasks: 0 and DefaultSymbols
}

func sameLen(L int) int { return L }
func one(int) int       { return 1 }

// fixedVocab is the vocabulary of a fixed-alphabet task, whatever Symbols says.
func fixedVocab(v int) func(int) int { return func(int) int { return v } }

func symbolVocab(symbols int) int { return FirstSymbol + symbols }

var fixedSymbols = []int{0, DefaultSymbols}

// specs covers every registered task (TestTasksCorrect fails on a missing one).
// The references for the newer tasks are in their own _test.go files.
var specs = map[string]taskSpec{
	"copy":    {slices.Clone[[]int], nil, sameLen, symbolVocab, []int{0, 2, 1000}},
	"reverse": {wantReverse, nil, sameLen, symbolVocab, []int{0, 3, 1000}},
	"sort":    {wantSorted, nil, sameLen, symbolVocab, []int{0, 2, 1000}},

	"bucket_sort": {wantSorted, nil, sameLen, symbolVocab, []int{0, 2, 5, 1000}},
	"duplicate":   {wantDuplicate, nil, func(L int) int { return 2 * L }, symbolVocab, []int{0, 2, 1000}},

	"copy_repeat":    {slices.Clone[[]int], nil, sameLen, symbolVocab, []int{0, 2, 1000}},
	"copy_repeat_2x": {wantDuplicate, nil, func(L int) int { return 2 * L }, symbolVocab, []int{0, 2, 1000}},
	"copy_twice":     {nil, wantTwice(false, false), twicePlusOne, nextVocab, []int{0, 2, 100, 1000}},
	"reverse_twice":  {nil, wantTwice(true, true), twicePlusOne, nextVocab, []int{0, 2, 100, 1000}},
	"reverse_copy":   {nil, wantTwice(true, false), twicePlusOne, nextVocab, []int{0, 2, 100, 1000}},

	"parity":             {wantParity, nil, one, fixedVocab(4), fixedSymbols},
	"even_pairs":         {wantEvenPairs, nil, one, fixedVocab(6), fixedSymbols},
	"cycle_navigation":   {wantCycle, nil, one, fixedVocab(10), fixedSymbols},
	"modular_arithmetic": {wantModArith, nil, one, fixedVocab(10), fixedSymbols},
	"binary_addition":    {wantBinarySum, nil, func(L int) int { return L + 1 }, fixedVocab(5), fixedSymbols},

	"stack_manipulation":          {wantStack, nil, func(L int) int { return L + 1 }, fixedVocab(8), fixedSymbols},
	"modular_arithmetic_brackets": {wantModBrackets, nil, one, fixedVocab(12), fixedSymbols},
	"solve_equation":              {wantEquation, nil, one, fixedVocab(13), fixedSymbols},
	"missing_duplicate":           {wantMissing, nil, one, fixedVocab(6), fixedSymbols},
	"odds_first":                  {wantOddsFirst, nil, sameLen, symbolVocab, []int{0, 2, 1000}},
	"binary_multiplication":       {wantBinaryProduct, nil, sameLen, fixedVocab(5), fixedSymbols},
	"compute_sqrt":                {wantSqrt, nil, func(L int) int { return (L + 1) / 2 }, fixedVocab(4), fixedSymbols},
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

// TestTasksCorrect draws many examples of every task at every length 1..64 and
// checks them against the task's reference, with the invariants every task
// shares: input length L, OutputLen(L) output tokens, tokens in
// [FirstSymbol, Vocab), Vocab and Name.
func TestTasksCorrect(t *testing.T) {
	for _, name := range generatedNames() {
		if _, ok := specs[name]; !ok {
			t.Errorf("task %q has no correctness check", name)
		}
	}
	for name, spec := range specs {
		for _, symbols := range spec.symbols {
			task := mustNew(t, name, Options{Symbols: symbols})
			wantSymbols := symbols
			if wantSymbols == 0 {
				wantSymbols = DefaultSymbols
			}
			if got, want := task.Vocab(), spec.vocab(wantSymbols); got != want {
				t.Errorf("%s/%d: Vocab() = %d, want %d", name, symbols, got, want)
			}
			if task.Name() != name {
				t.Errorf("Name() = %q, want %q", task.Name(), name)
			}
			rng := rand.New(rand.NewPCG(1, uint64(symbols)))
			for L := 1; L <= 64; L++ {
				if got, want := task.OutputLen(L), spec.outLen(L); got != want {
					t.Errorf("%s: OutputLen(%d) = %d, want %d", name, L, got, want)
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

// TestFixedAlphabetOptions: tasks with a fixed alphabet accept an unset
// Options.Symbols (0, or DefaultSymbols as the training config fills it in)
// and reject any other value with an error naming task.symbols and the task.
func TestFixedAlphabetOptions(t *testing.T) {
	n := 0
	for name, spec := range specs {
		if !slices.Equal(spec.symbols, fixedSymbols) {
			continue
		}
		n++
		for _, symbols := range []int{0, DefaultSymbols} {
			mustNew(t, name, Options{Symbols: symbols})
		}
		for _, symbols := range []int{1, 2, 3, 5, 10, 1000, 1001, -1} {
			task, err := New(name, Options{Symbols: symbols})
			if err == nil {
				t.Errorf("New(%q, Symbols: %d) = %v, want an error", name, symbols, task)
				continue
			}
			for _, sub := range []string{"task.symbols", name, "fixed alphabet", fmt.Sprint(symbols)} {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("New(%q, Symbols: %d): error %q does not contain %q", name, symbols, err, sub)
				}
			}
		}
	}
	if n != 12 {
		t.Errorf("%d fixed-alphabet tasks, want 12", n)
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
		a := task.Generate(rand.New(rand.NewPCG(3, 4)), 20)
		b := task.Generate(rand.New(rand.NewPCG(3, 4)), 20)
		if !slices.Equal(a.Stream(), b.Stream()) {
			t.Errorf("%s: same rng gave %v and %v", name, a.Stream(), b.Stream())
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

const allNames = "addition, binary_addition, binary_multiplication, bucket_sort, compute_sqrt, copy, copy_repeat, copy_repeat_2x, copy_twice, cycle_navigation, duplicate, even_pairs, flip_flop, lm, missing_duplicate, modular_arithmetic, modular_arithmetic_brackets, odds_first, parity, passkey, reverse, reverse_copy, reverse_twice, solve_equation, sort, stack_manipulation"

func TestNames(t *testing.T) {
	got := Names()
	if !slices.IsSorted(got) {
		t.Errorf("Names() not sorted: %v", got)
	}
	if strings.Join(got, ", ") != allNames {
		t.Errorf("Names() = %v, want %s", got, allNames)
	}
	for _, want := range []string{"copy", "reverse", "sort"} {
		if !slices.Contains(got, want) {
			t.Errorf("Names() = %v, missing %q", got, want)
		}
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

func TestGenerateBadLengthPanics(t *testing.T) {
	for _, name := range generatedNames() {
		task := mustNew(t, name, Options{})
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Generate(rng, 0) did not panic", name)
				}
			}()
			task.Generate(rand.New(rand.NewPCG(0, 0)), 0)
		}()
	}
}

// TestOutputClasses: a task that declares OutputClasses answers with exactly that many distinct
// tokens over many draws (so the chance rule's 1/k is the task's); the others answer within their
// alphabet. END adds a class, the slots format none.
func TestOutputClasses(t *testing.T) {
	declared := 0
	for _, name := range generatedNames() {
		fixed := slices.Equal(specs[name].symbols, fixedSymbols)
		opt := Options{Symbols: 3}
		if fixed {
			opt.Symbols = 0
		}
		task := mustNew(t, name, opt)
		seen := map[int]bool{}
		for L := 1; L <= 24; L++ {
			for _, e := range drawExamples(task, L, 200, 17) {
				for _, tok := range e.Output {
					seen[tok] = true
				}
			}
		}
		k, ok := OutputClasses(task)
		if !ok {
			if fixed {
				t.Errorf("%s has a fixed alphabet but declares no OutputClasses", name)
			}
			continue
		}
		declared++
		if len(seen) != k {
			t.Errorf("%s: OutputClasses %d, the answers hold %d distinct tokens: %v", name, k, len(seen), seen)
		}
		end := mustNew(t, name, Options{EndToken: true})
		slots := mustNew(t, name, Options{Format: FormatSlots})
		if ke, _ := OutputClasses(end); ke != k+1 {
			t.Errorf("%s with END: %d classes, want %d", name, ke, k+1)
		}
		if ks, _ := OutputClasses(slots); ks != k {
			t.Errorf("%s in slots: %d classes, want %d", name, ks, k)
		}
	}
	if declared != 12 {
		t.Errorf("%d tasks declare OutputClasses, want the 12 with a fixed alphabet", declared)
	}
}

// generatedNames lists the tasks that generate examples: every registered task but the ones
// that read a corpus (lm, tested in lm_test.go).
//
// The tasks with a rule on their lengths (passkey, flip_flop: the LengthChecked hook) are left
// out: these tests build every task at lengths 1..64 and score its answer after SEP; their own
// test files check the same invariants at the lengths they build.
func generatedNames() []string {
	var out []string
	for _, name := range Names() {
		t, err := New(name, Options{})
		if _, ruled := t.(LengthChecked); !ReadsCorpus(name) && err == nil && !ruled {
			out = append(out, name)
		}
	}
	return out
}
