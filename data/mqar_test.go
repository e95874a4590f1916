package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func init() {
	specs["mqar"] = taskSpec{check: checkMQAR, outLen: zero, vocab: symbolVocab, symbols: []int{0, 4, 5, 64, 1000}}
}

// checkMQAR is mqar's reference, written from Zoology's multiquery_ar independently of mqar.go:
// with V symbols (id z is token 2 + z) keys are z = 1 .. ⌊V/2⌋ − 1 and values z = ⌊V/2⌋ .. V − 1;
// an input of L tokens is P = ⌊L/4⌋ pairs key value, keys distinct and values distinct, then P
// queries, each a key of the pairs asked once and followed by its value, then L mod 4 blanks
// (z = 0). Nothing follows SEP.
func checkMQAR(e Example, V int) error {
	L := len(e.Input)
	P := L / 4
	z := func(tok int) int { return tok - 2 }
	isKey := func(id int) bool { return id >= 1 && id <= V/2-1 }
	isValue := func(id int) bool { return id >= V/2 && id <= V-1 }
	if len(e.Output) != 0 {
		return fmt.Errorf("an answer after SEP: %v", e.Output)
	}
	value := map[int]int{} // key id → value id
	seenValue := map[int]bool{}
	for i := range P {
		k, v := z(e.Input[2*i]), z(e.Input[2*i+1])
		if !isKey(k) || !isValue(v) {
			return fmt.Errorf("pair %d is ids %d %d, want a key in 1..%d and a value in %d..%d", i, k, v, V/2-1, V/2, V-1)
		}
		if _, dup := value[k]; dup || seenValue[v] {
			return fmt.Errorf("pair %d repeats key %d or value %d", i, k, v)
		}
		value[k], seenValue[v] = v, true
	}
	asked := map[int]bool{}
	for j := range P {
		q, a := z(e.Input[2*P+2*j]), z(e.Input[2*P+2*j+1])
		v, ok := value[q]
		if !ok || asked[q] {
			return fmt.Errorf("query %d asks id %d: not a key of the pairs, or asked twice", j, q)
		}
		if a != v {
			return fmt.Errorf("query %d asks key %d, answered %d, its value is %d", j, q, a, v)
		}
		asked[q] = true
	}
	for i := 4 * P; i < L; i++ {
		if z(e.Input[i]) != 0 {
			return fmt.Errorf("token %d after the queries is id %d, want the blank", i, z(e.Input[i]))
		}
	}
	return nil
}

// TestMQARQueries: with task.queries Q every example at every length it builds has P = ⌊L/2⌋ − Q
// pairs of distinct keys and values, then Q queries of distinct keys each answered with its value
// (the pairs read back independently), then at most one blank; the model is scored at exactly
// the queries, on their values.
func TestMQARQueries(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, q := range []int{1, 2, 5} {
		task := mustNew(t, "mqar", Options{Symbols: 64, Queries: &q})
		for _, L := range testLengths(task, 1, 70) {
			P := L/2 - q
			for range 50 {
				e := task.Generate(rng, L)
				value := map[int]int{}
				for i := range P {
					k, v := e.Input[2*i], e.Input[2*i+1]
					if _, dup := value[k]; dup || k < 3 || k > 33 || v < 34 || v > 65 {
						t.Fatalf("Q=%d L=%d: pair %d is %d %d in %v", q, L, i, k, v, e.Input)
					}
					value[k] = v
				}
				if vs := slices.Sorted(func(yield func(int) bool) {
					for _, v := range value {
						yield(v)
					}
				}); len(slices.Compact(vs)) != P {
					t.Fatalf("Q=%d L=%d: values repeat in %v", q, L, e.Input)
				}
				var want []int
				asked := map[int]bool{}
				for j := range q {
					k, a := e.Input[2*P+2*j], e.Input[2*P+2*j+1]
					if v, ok := value[k]; !ok || asked[k] || a != v {
						t.Fatalf("Q=%d L=%d: query %d is %d %d in %v", q, L, j, k, a, e.Input)
					}
					asked[k] = true
					want = append(want, a)
				}
				if rest := e.Input[2*P+2*q:]; len(rest) != L%2 || len(rest) == 1 && rest[0] != FirstSymbol {
					t.Fatalf("Q=%d L=%d: after the queries %v", q, L, rest)
				}
				if got := scored(t, task, e); !slices.Equal(got, want) {
					t.Fatalf("Q=%d L=%d: scored on %v, want the answers %v", q, L, got, want)
				}
			}
		}
	}
}

// TestMQARLengthIsPairs: a longer input holds more pairs, never more filler alone: the number of
// pairs is ⌊L/4⌋ (every key queried), so "beyond the training lengths" means more pairs than in
// training, and the lengths 4P .. 4P + 3 hold the same P pairs, the tokens after the queries being
// blanks that a causal model reads only after every scored position.
func TestMQARLengthIsPairs(t *testing.T) {
	task := mustNew(t, "mqar", Options{Symbols: 1000})
	prev := 0
	for L := 4; L <= 1000; L++ {
		e := task.Generate(rand.New(rand.NewPCG(1, uint64(L))), L)
		pos := task.(mqarTask).scoredAt(e.Input)
		P := len(pos)
		if P != L/4 || P < prev || pos[len(pos)-1] != 4*P-2 {
			t.Fatalf("L=%d: %d queries (last scored at %d), after %d at L−1; want ⌊L/4⌋ = %d", L, P, pos[len(pos)-1], prev, L/4)
		}
		prev = P
	}
}

// TestMQARDeterministic: a test set is a function of the seed, and the training stream of its
// seed and batch index.
func TestMQARDeterministic(t *testing.T) {
	task := mustNew(t, "mqar", Options{Symbols: 64})
	a, _ := TestSet(task, 32, 40, 1)
	b, _ := TestSet(task, 32, 40, 1)
	c, _ := TestSet(task, 32, 40, 2)
	if !slices.EqualFunc(a, b, sameExample) || slices.EqualFunc(a, c, sameExample) {
		t.Error("test sets are not a function of the seed")
	}
	s := Train{Task: task, MinLen: 8, MaxLen: 40, BatchSize: 8, Seed: 3}
	x, _ := s.Batch(7)
	y, _ := s.Batch(7)
	if !batchEqual(x, y) {
		t.Error("the training stream is not a function of the seed and index")
	}
}

// TestMQARDraws: keys, values and the order of the queries are uniform: over many inputs every
// key and every value is drawn about equally often, and each pair is queried first about 1/P of
// the time.
func TestMQARDraws(t *testing.T) {
	task := mustNew(t, "mqar", Options{Symbols: 12}) // keys 3..7, values 8..13
	rng := rand.New(rand.NewPCG(4, 4))
	keys, values, first := map[int]int{}, map[int]int{}, make([]int, 4)
	const n = 30000
	for range n {
		e := task.Generate(rng, 16) // 4 pairs
		for i := range 4 {
			keys[e.Input[2*i]]++
			values[e.Input[2*i+1]]++
			if e.Input[8] == e.Input[2*i] {
				first[i]++
			}
		}
	}
	for k := 3; k <= 7; k++ {
		if f := float64(keys[k]) / n; math.Abs(f-4.0/5) > 0.02 {
			t.Errorf("key %d in %.3f of the inputs, want 4/5", k, f)
		}
	}
	for v := 8; v <= 13; v++ {
		if f := float64(values[v]) / n; math.Abs(f-4.0/6) > 0.02 {
			t.Errorf("value %d in %.3f of the inputs, want 4/6", v, f)
		}
	}
	if len(keys) != 5 || len(values) != 6 {
		t.Errorf("drew keys %v, values %v", keys, values)
	}
	for i, c := range first {
		if f := float64(c) / n; math.Abs(f-0.25) > 0.02 {
			t.Errorf("pair %d queried first in %.3f of the inputs, want 1/4", i, f)
		}
	}
}

// TestMQARBaseline: the best constant answer scores one in the values a query, counted; the most
// likely whole answer is a sequence of distinct values, 1/(v(v−1)···(v−Q+1)), counted at small
// sizes, and checked against the formula over many sizes.
func TestMQARBaseline(t *testing.T) {
	for _, c := range []struct{ symbols, L int }{{4, 4}, {6, 8}, {8, 12}, {9, 9}} {
		task := mustNew(t, "mqar", Options{Symbols: c.symbols})
		b, ok := BaselineOf(task, c.L)
		want, _ := countBaseline(t, task, c.L, 40000, 3)
		if !ok || math.Abs(b.Token-want.Token) > 0.01 || math.Abs(b.Exact-want.Exact) > 0.01 {
			t.Errorf("symbols %d L=%d: baseline %+v, counted %+v", c.symbols, c.L, b, want)
		}
	}
	for _, symbols := range []int{4, 5, 8, 64, 1000} {
		task := mustNew(t, "mqar", Options{Symbols: symbols})
		v := symbols - symbols/2
		for _, L := range testLengths(task, 4, 300) {
			b, _ := BaselineOf(task, L)
			exact := 1.0
			for i := range L / 4 {
				exact *= 1 / float64(v-i)
			}
			if b.Token != 1/float64(v) || math.Abs(b.Exact-exact) > 1e-12*exact {
				t.Fatalf("symbols %d L=%d: %+v, want token 1/%d exact %g", symbols, L, b, v, exact)
			}
		}
	}
	if b, _ := BaselineOf(mustNew(t, "mqar", Options{}), 3); !math.IsNaN(b.Exact) {
		t.Errorf("a length mqar cannot build has exact baseline %v, want NaN", b.Exact)
	}
}

// TestMQARRefused: bad options and lengths are refused naming the field and the fix.
func TestMQARRefused(t *testing.T) {
	zeroQ, twoQ := 0, 2
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Symbols: 3}, "task.symbols: the mqar task splits its symbols as Zoology does (a blank, keys 1..symbols/2−1, values symbols/2..symbols−1) and needs at least 4 for one key, got 3"},
		{Options{Symbols: 1}, "task.symbols: must be in [2, 1000]"},
		{Options{Format: FormatSlots}, "task.format: the mqar task is scored where each query's answer stands in the input"},
		{Options{EndToken: true}, "task.end_token: the mqar task has no answer after SEP"},
		{Options{Queries: &zeroQ}, "task.queries: must be at least 1 (or removed: every key is queried once), got 0"},
		{Options{Format: "encoder"}, "task.format: unknown format"},
	} {
		if _, err := New("mqar", c.opt); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want one line holding %q", c.opt, err, c.want)
		}
	}
	if _, err := New("copy", Options{Queries: &twoQ}); err == nil || err.Error() != "task.queries: only the mqar task has queries (the task is copy); remove it" {
		t.Errorf("task.queries on copy: %v", err)
	}
	every, two := mustNew(t, "mqar", Options{}), mustNew(t, "mqar", Options{Symbols: 64, Queries: &twoQ})
	for _, c := range []struct {
		task Task
		L    int
		want string // "" for a length it builds
	}{
		{every, 3, "4 tokens a pair, so a length must be at least 4, got 3"},
		{every, 4, ""}, {every, 15, ""},
		{every, 16, "length 16 holds 4 key–value pairs, but task.symbols 8 gives 3 keys (symbols/2 − 1, as Zoology splits them); raise task.symbols to at least 10, or use shorter lengths"},
		{mustNew(t, "mqar", Options{Symbols: 1000}), 1996, ""},
		{mustNew(t, "mqar", Options{Symbols: 1000}), 2000, "length 2000 holds 500 key–value pairs, more than the 499 keys of the largest alphabet (task.symbols 1000); test shorter lengths"},
		{two, 7, "with task.queries 2 an mqar input needs as many pairs as queries"},
		{two, 8, ""}, {two, 9, ""}, {two, 66, ""},
		{two, 68, "length 68 holds 32 key–value pairs, but task.symbols 64 gives 31 keys"},
	} {
		err := CheckLength(c.task, c.L)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("L=%d: %v, want %q", c.L, err, c.want)
		}
	}
}
