package data

import (
	"slices"
	"strings"
	"testing"
)

func TestMakeBatchLayout(t *testing.T) {
	for _, name := range generatedNames() {
		task := mustNew(t, name, Options{})
		ip, inside := task.(inPlace)
		for _, L := range validOf(task, 1, 2, 7, 33) {
			ex, err := TestSet(task, L, 5, 11)
			if err != nil {
				t.Fatal(err)
			}
			b, err := MakeBatch(task, ex)
			if err != nil {
				t.Fatal(err)
			}
			if b.B != 5 || b.L != L || b.T != SeqLen(task, L) {
				t.Fatalf("%s L=%d: B,T,L = %d,%d,%d; want 5,%d,%d", name, L, b.B, b.T, b.L, SeqLen(task, L), L)
			}
			if want := L + 1 + task.OutputLen(L) - 1; b.T != want {
				t.Fatalf("T = %d, want len(stream)-1 = %d", b.T, want)
			}
			if len(b.Inputs) != b.B*b.T || len(b.Targets) != b.B*b.T || len(b.Weights) != b.B*b.T {
				t.Fatalf("slice lengths %d/%d/%d, want %d", len(b.Inputs), len(b.Targets), len(b.Weights), b.B*b.T)
			}
			sum, want := 0.0, float64(b.B*task.OutputLen(L))
			for _, w := range b.Weights {
				sum += w
			}
			for _, e := range ex {
				if inside {
					want += float64(len(ip.scoredAt(e.Input)))
				}
			}
			if sum != want {
				t.Errorf("%s L=%d: weights sum %v, want %v", name, L, sum, want)
			}
			for i, e := range ex {
				s := e.Stream()
				row := i * b.T
				in, tg, w := b.Inputs[row:row+b.T], b.Targets[row:row+b.T], b.Weights[row:row+b.T]
				if !slices.Equal(in, s[:len(s)-1]) || !slices.Equal(tg, s[1:]) {
					t.Fatalf("row %d: inputs %v targets %v, stream %v", i, in, tg, s)
				}
				for j := 0; j+1 < b.T; j++ {
					if tg[j] != in[j+1] {
						t.Fatalf("row %d: target[%d]=%d != input[%d]=%d", i, j, tg[j], j+1, in[j+1])
					}
				}
				if b.T > L && in[L] != SEP { // (a task scored inside its input has no answer: T = L)
					t.Errorf("row %d: input at position L=%d is %d, want SEP", i, L, in[L])
				}
				var inInput []int // the positions inside the input the task scores
				if inside {
					inInput = ip.scoredAt(e.Input)
				}
				for j := range b.T {
					want := 0.0
					if j >= L || slices.Contains(inInput, j) {
						want = 1
					}
					if w[j] != want {
						t.Errorf("row %d: weight[%d] = %v, want %v", i, j, w[j], want)
					}
					if w[j] == 1 && j >= L && !slices.Equal(tg[L:], e.Output) {
						t.Fatalf("row %d: weighted targets %v != output %v", i, tg[L:], e.Output)
					}
				}
			}
		}
	}
}

func TestMakeBatchErrors(t *testing.T) {
	task := mustNew(t, "copy", Options{})
	short := Example{Input: []int{2, 3}, Output: []int{2, 3}}
	long := Example{Input: []int{2, 3, 4}, Output: []int{2, 3, 4}}
	tests := []struct {
		desc    string
		ex      []Example
		wantErr []string
	}{
		{"mixed lengths", []Example{short, short, long}, []string{"mixed", "length 2", "length 3"}},
		{"empty", nil, []string{"no examples"}},
		{"zero length", []Example{{}}, []string{"input length 0"}},
		{"bad output", []Example{{Input: []int{2, 3}, Output: []int{2}}}, []string{"output length 1"}},
	}
	for _, tc := range tests {
		_, err := MakeBatch(task, tc.ex)
		if err == nil {
			t.Errorf("%s: MakeBatch succeeded, want error", tc.desc)
			continue
		}
		for _, sub := range tc.wantErr {
			if !strings.Contains(err.Error(), sub) {
				t.Errorf("%s: error %q does not contain %q", tc.desc, err, sub)
			}
		}
	}
}

func TestTrainDeterministic(t *testing.T) {
	for _, name := range generatedNames() {
		task := mustNew(t, name, Options{})
		lo, hi := trainRange(task, 9)
		s := Train{Task: task, MinLen: lo, MaxLen: hi, BatchSize: 4, Seed: 42}
		prev := Batch{}
		for i := range 50 {
			a, err := s.Batch(i)
			if err != nil {
				t.Fatal(err)
			}
			b, err := s.Batch(i)
			if err != nil {
				t.Fatal(err)
			}
			if !batchEqual(a, b) {
				t.Fatalf("%s: Batch(%d) not reproducible", name, i)
			}
			if i > 0 && batchEqual(a, prev) {
				t.Errorf("%s: Batch(%d) equals Batch(%d)", name, i, i-1)
			}
			prev = a
		}
		// Out-of-order access (resuming at step i) gives the same data.
		late, _ := s.Batch(1000)
		early, _ := s.Batch(3)
		late2, _ := s.Batch(1000)
		early2, _ := s.Batch(3)
		if !batchEqual(late, late2) || !batchEqual(early, early2) {
			t.Errorf("%s: batch depends on call order", name)
		}
		// A different seed gives a different stream.
		other := s
		other.Seed = 43
		a, _ := s.Batch(0)
		b, _ := other.Batch(0)
		if batchEqual(a, b) {
			t.Errorf("%s: seeds 42 and 43 gave the same batch 0", name)
		}
	}
}

func batchEqual(a, b Batch) bool {
	return a.B == b.B && a.T == b.T && a.L == b.L &&
		slices.Equal(a.Inputs, b.Inputs) && slices.Equal(a.Targets, b.Targets) && slices.Equal(a.Weights, b.Weights)
}

func TestTrainLengthCoverage(t *testing.T) {
	tests := []struct{ min, max int }{{1, 1}, {1, 8}, {5, 9}, {16, 40}}
	for _, tc := range tests {
		s := Train{Task: mustNew(t, "sort", Options{}), MinLen: tc.min, MaxLen: tc.max, BatchSize: 2, Seed: 7}
		count := map[int]int{}
		const n = 3000
		for i := range n {
			b, err := s.Batch(i)
			if err != nil {
				t.Fatal(err)
			}
			if b.L < tc.min || b.L > tc.max {
				t.Fatalf("[%d,%d]: batch %d has L=%d", tc.min, tc.max, i, b.L)
			}
			if b.B != 2 || b.T != SeqLen(s.Task, b.L) {
				t.Fatalf("batch %d: B=%d T=%d", i, b.B, b.T)
			}
			count[b.L]++
		}
		k := tc.max - tc.min + 1
		for L := tc.min; L <= tc.max; L++ {
			// Uniform: expect n/k each; allow a generous band.
			if c := count[L]; c < n/k/2 || c > 2*n/k {
				t.Errorf("[%d,%d]: length %d drawn %d times in %d batches (expected ~%d)", tc.min, tc.max, L, c, n, n/k)
			}
		}
	}
}

func TestTrainErrors(t *testing.T) {
	task := mustNew(t, "copy", Options{})
	ok := Train{Task: task, MinLen: 2, MaxLen: 5, BatchSize: 3}
	tests := []struct {
		desc    string
		mod     func(*Train)
		i       int
		wantErr string
	}{
		{"min 0", func(s *Train) { s.MinLen = 0 }, 0, "task.min_len"},
		{"min negative", func(s *Train) { s.MinLen = -1 }, 0, "task.min_len"},
		{"max < min", func(s *Train) { s.MaxLen = 1 }, 0, "task.max_len"},
		{"batch 0", func(s *Train) { s.BatchSize = 0 }, 0, "train.batch_size"},
		{"batch negative", func(s *Train) { s.BatchSize = -4 }, 0, "train.batch_size"},
		{"nil task", func(s *Train) { s.Task = nil }, 0, "task"},
		{"negative index", func(*Train) {}, -1, "index"},
	}
	for _, tc := range tests {
		s := ok
		tc.mod(&s)
		_, err := s.Batch(tc.i)
		if err == nil {
			t.Errorf("%s: Batch succeeded, want error", tc.desc)
			continue
		}
		if !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: error %q does not contain %q", tc.desc, err, tc.wantErr)
		}
	}
	if _, err := ok.Batch(0); err != nil {
		t.Errorf("valid config: %v", err)
	}
}

func TestTestSet(t *testing.T) {
	for _, name := range generatedNames() {
		task := mustNew(t, name, Options{})
		for _, L := range validOf(task, 1, 5, 20, 64) {
			a, err := TestSet(task, L, 30, 9)
			if err != nil {
				t.Fatal(err)
			}
			b, err := TestSet(task, L, 30, 9)
			if err != nil {
				t.Fatal(err)
			}
			if len(a) != 30 {
				t.Fatalf("got %d examples, want 30", len(a))
			}
			for i := range a {
				if len(a[i].Input) != L {
					t.Fatalf("example %d has length %d, want %d", i, len(a[i].Input), L)
				}
				if !slices.Equal(a[i].Stream(), b[i].Stream()) {
					t.Fatalf("%s L=%d: TestSet not reproducible at example %d", name, L, i)
				}
			}
			// A prefix of a larger set is the smaller set.
			small, _ := TestSet(task, L, 3, 9)
			for i := range small {
				if !slices.Equal(small[i].Stream(), a[i].Stream()) {
					t.Errorf("%s L=%d: TestSet(n=3) is not a prefix of TestSet(n=30)", name, L)
				}
			}
			if L >= 5 {
				other, _ := TestSet(task, L, 30, 10)
				if slices.Equal(other[0].Stream(), a[0].Stream()) && slices.Equal(other[1].Stream(), a[1].Stream()) {
					t.Errorf("%s L=%d: seeds 9 and 10 gave the same test set", name, L)
				}
			}
		}
	}
}

func TestTestSetDisjointFromTrain(t *testing.T) {
	task := mustNew(t, "copy", Options{})
	const L, n, seed = 10, 8, 5
	test, err := TestSet(task, L, n, seed)
	if err != nil {
		t.Fatal(err)
	}
	s := Train{Task: task, MinLen: L, MaxLen: L, BatchSize: n, Seed: seed}
	for i := range 200 {
		b, err := s.Batch(i)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Equal(b.Inputs[:L], test[0].Input) {
			t.Errorf("train batch %d starts with the first test example", i)
		}
	}
	// The seed derivations themselves never coincide across domains.
	seen := map[[2]uint64]string{}
	for seed := range uint64(4) {
		for idx := range uint64(256) {
			for _, d := range []struct {
				name string
				salt uint64
			}{{"train", trainSalt}, {"test", testSalt}} {
				hi, lo := deriveSeed(d.salt, seed, idx)
				if prev, dup := seen[[2]uint64{hi, lo}]; dup {
					t.Fatalf("seed collision: %s (seed %d, index %d) and %s", d.name, seed, idx, prev)
				}
				seen[[2]uint64{hi, lo}] = d.name
			}
		}
	}
}

func TestTestSetErrors(t *testing.T) {
	task := mustNew(t, "copy", Options{})
	if _, err := TestSet(task, 0, 5, 1); err == nil || !strings.Contains(err.Error(), "length") {
		t.Errorf("L=0: err = %v, want a length error", err)
	}
	if _, err := TestSet(task, 3, -1, 1); err == nil {
		t.Error("n=-1: want error")
	}
	if _, err := TestSet(nil, 3, 1, 1); err == nil {
		t.Error("nil task: want error")
	}
	if ex, err := TestSet(task, 3, 0, 1); err != nil || len(ex) != 0 {
		t.Errorf("n=0: got %v, %v; want empty set", ex, err)
	}
}
