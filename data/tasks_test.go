package data

import (
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

func TestTasksCorrect(t *testing.T) {
	check := map[string]func(in, out []int) bool{
		"copy": func(in, out []int) bool { return slices.Equal(in, out) },
		"reverse": func(in, out []int) bool {
			r := slices.Clone(in)
			slices.Reverse(r)
			return slices.Equal(r, out)
		},
		"sort": func(in, out []int) bool {
			if !slices.IsSorted(out) {
				return false
			}
			s := slices.Clone(in)
			slices.Sort(s)
			return slices.Equal(s, out) // sorted and a permutation of the input
		},
	}
	for _, name := range Names() {
		if _, ok := check[name]; !ok {
			t.Errorf("task %q has no correctness check", name)
		}
	}
	tests := []struct {
		task    string
		symbols int
	}{
		{"copy", 0}, {"copy", 2}, {"copy", 1000},
		{"reverse", 0}, {"reverse", 3}, {"reverse", 1000},
		{"sort", 0}, {"sort", 2}, {"sort", 1000},
	}
	for _, tc := range tests {
		task := mustNew(t, tc.task, Options{Symbols: tc.symbols})
		wantSymbols := tc.symbols
		if wantSymbols == 0 {
			wantSymbols = DefaultSymbols
		}
		if got := task.Vocab(); got != FirstSymbol+wantSymbols {
			t.Errorf("%s/%d: Vocab() = %d, want %d", tc.task, tc.symbols, got, FirstSymbol+wantSymbols)
		}
		if task.Name() != tc.task {
			t.Errorf("Name() = %q, want %q", task.Name(), tc.task)
		}
		rng := rand.New(rand.NewPCG(1, uint64(tc.symbols)))
		for L := 1; L <= 64; L++ {
			if got := task.OutputLen(L); got != L {
				t.Errorf("%s: OutputLen(%d) = %d, want %d", tc.task, L, got, L)
			}
			for range 20 {
				e := task.Generate(rng, L)
				if len(e.Input) != L || len(e.Output) != task.OutputLen(L) {
					t.Fatalf("%s: L=%d: got input %d, output %d tokens", tc.task, L, len(e.Input), len(e.Output))
				}
				for _, tok := range e.Stream() {
					if tok == PAD || tok >= task.Vocab() || tok < 0 {
						t.Fatalf("%s: token %d out of range in %v", tc.task, tok, e.Stream())
					}
				}
				if slices.Contains(e.Input, SEP) || slices.Contains(e.Output, SEP) {
					t.Fatalf("%s: SEP inside input/output: %+v", tc.task, e)
				}
				if !check[tc.task](e.Input, e.Output) {
					t.Fatalf("%s: wrong output for input %v: %v", tc.task, e.Input, e.Output)
				}
			}
		}
	}
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
	for _, name := range Names() {
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
		{"foo", Options{}, []string{`unknown task "foo"`, "(known: copy, reverse, sort)"}},
		{"", Options{}, []string{`unknown task ""`, "copy, reverse, sort"}},
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

func TestNames(t *testing.T) {
	got := Names()
	if !slices.IsSorted(got) {
		t.Errorf("Names() not sorted: %v", got)
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
	for _, name := range Names() {
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
