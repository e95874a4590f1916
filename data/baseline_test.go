package data

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// baselineDraws and baselineTol: the brute-force checks count 30,000 draws, so a slot's
// frequency has a standard error of at most 0.5/√30000 ≈ 0.003; 0.015 is five of them.
const (
	baselineDraws = 30000
	baselineTol   = 0.015
)

// classes is k, the values an output token of task takes for the uniform guess: its
// OutputClasses, else its alphabet size (symbols, 0 for the default).
func classes(task Task, symbols int) int {
	if k, ok := OutputClasses(task); ok {
		return k
	}
	if symbols == 0 {
		return DefaultSymbols
	}
	return symbols
}

// baselineOptions are the options each task is checked with: a small and the default alphabet
// for the tasks that have one, the fixed alphabet for the others.
func baselineOptions(name string) []Options {
	if slices.Equal(specs[name].symbols, fixedSymbols) {
		return []Options{{}}
	}
	return []Options{{Symbols: 2}, {}}
}

// TestBaselineAgainstCount: for every task with the Baselined hook, what BaselineOf gives (a
// formula, or binary_multiplication's own count with another seed and sample size) matches a
// brute-force count of the best constant answer over draws of the task's own examples, at short
// lengths (where padding, the END of stack_manipulation and small-L special cases weigh most)
// and longer ones, with and without task.end_token; the slots format has the same baseline.
func TestBaselineAgainstCount(t *testing.T) {
	hooked := 0
	for _, name := range generatedNames() {
		if _, ok := mustNew(t, name, Options{}).(Baselined); !ok {
			continue
		}
		hooked++
		for _, opt := range baselineOptions(name) {
			for _, end := range []bool{false, true} {
				opt.EndToken = end
				task := mustNew(t, name, opt)
				slots := mustNew(t, name, Options{Symbols: opt.Symbols, Format: FormatSlots})
				for _, L := range []int{1, 2, 3, 4, 5, 7, 9, 16, 33} {
					got, ok := BaselineOf(task, L)
					if !ok {
						t.Fatalf("%s %+v: BaselineOf finds no hook", name, opt)
					}
					if s, _ := BaselineOf(slots, L); !end && s != got {
						t.Errorf("%s %+v L=%d: baseline %+v in the slots format, %+v in the next-token format", name, opt, L, s, got)
					}
					want := countBaseline(task, L, baselineDraws, 99)
					if math.Abs(got.Token-want.Token) > baselineTol || math.Abs(got.Exact-want.Exact) > baselineTol {
						t.Errorf("%s %+v L=%d: baseline token %.4f exact %.4g, counted over %d draws %.4f %.4g",
							name, opt, L, got.Token, got.Exact, baselineDraws, want.Token, want.Exact)
					}
				}
			}
		}
	}
	if hooked != 19 {
		t.Errorf("%d tasks have the Baselined hook, want 19 (all but copy, reverse, odds_first, parity: their answers are uniform)", hooked)
	}
}

// TestBaselineUniformTasks: a task without the hook really answers uniformly, so that the uniform
// guess is its baseline: counted over draws, the best constant answer scores 1/k per token and
// k^−n exact (n answer tokens), at every short length and alphabet size. A new task with padded
// or skewed answers and no hook fails here.
func TestBaselineUniformTasks(t *testing.T) {
	for _, name := range generatedNames() {
		for _, opt := range baselineOptions(name) {
			task := mustNew(t, name, opt)
			if _, ok := BaselineOf(task, 1); ok {
				continue
			}
			k := float64(classes(task, opt.Symbols))
			for L := 1; L <= 8; L++ {
				got := countBaseline(task, L, baselineDraws, 5)
				exact := math.Pow(k, -float64(task.OutputLen(L)))
				if math.Abs(got.Token-1/k) > baselineTol || math.Abs(got.Exact-exact) > baselineTol {
					t.Errorf("%s %+v L=%d: counted baseline token %.4f exact %.4g, not the uniform guess's %.4f %.4g: give it the Baselined hook",
						name, opt, L, got.Token, got.Exact, 1/k, exact)
				}
			}
		}
	}
}

// TestBaselineProperties: over many lengths, a baseline is a pair of probabilities with exact
// match at most token accuracy (the whole answer is right only where each slot is), and never
// below the uniform guess 1/k per token (the majority class of a slot has at least its share);
// it is 1/k exactly where every slot is uniform (duplicate, copy_repeat).
func TestBaselineProperties(t *testing.T) {
	lengths := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 17, 24, 31, 40, 64, 101, 250}
	for _, name := range generatedNames() {
		for _, opt := range baselineOptions(name) {
			task := mustNew(t, name, opt)
			if _, ok := BaselineOf(task, 1); !ok {
				continue
			}
			k := float64(classes(task, opt.Symbols))
			for _, L := range lengths {
				if name == "binary_multiplication" && L > 64 {
					continue // counted: a second each
				}
				b, _ := BaselineOf(task, L)
				if !(b.Exact >= 0 && b.Exact <= b.Token+1e-12 && b.Token <= 1+1e-12 && b.Token >= 1/k-1e-12) {
					t.Errorf("%s %+v L=%d: baseline token %v exact %v, want 1/k = %v ≤ token ≤ 1 and 0 ≤ exact ≤ token",
						name, opt, L, b.Token, b.Exact, 1/k)
				}
				if uniform := name == "duplicate" || name == "copy_repeat" || name == "copy_repeat_2x"; uniform && b.Token != 1/k {
					t.Errorf("%s %+v L=%d: token baseline %v, want 1/k = %v", name, opt, L, b.Token, 1/k)
				}
			}
		}
	}
}

// baselineDocLength is the input length of docs/tasks.md's table of baselines.
const baselineDocLength = 40

// baselineTable is docs/tasks.md's table of baselines: every task that generates examples, with
// the default options, at baselineDocLength.
func baselineTable(t *testing.T) string {
	var b strings.Builder
	L := baselineDocLength
	fmt.Fprintf(&b, "| task | k | uniform guess: token, exact | baseline, L = %d: token | exact | from |\n", L)
	b.WriteString("| --- | ---: | --- | ---: | ---: | --- |\n")
	for _, name := range generatedNames() {
		task := mustNew(t, name, Options{})
		k := classes(task, 0)
		guess := fmt.Sprintf("1/%d, (1/%d)^%d", k, k, task.OutputLen(L))
		base, ok := BaselineOf(task, L)
		from := "the uniform guess"
		if !ok {
			base = Baseline{Token: 1 / float64(k), Exact: math.Pow(float64(k), -float64(task.OutputLen(L)))}
		} else if name == "binary_multiplication" {
			from = fmt.Sprintf("counted, %d draws", mulDraws(L))
		} else {
			from = "formula"
		}
		fmt.Fprintf(&b, "| `%s` | %d | %s | %.3f | %.3g | %s |\n", name, k, guess, base.Token, base.Exact, from)
	}
	return b.String()
}

// TestBaselineTable: docs/tasks.md shows every task's baseline as BaselineOf gives it (the test
// logs the table: go test ./data -run TestBaselineTable -v).
func TestBaselineTable(t *testing.T) {
	want := baselineTable(t)
	t.Log("\n" + want)
	doc, err := os.ReadFile(filepath.Join("..", "docs", "tasks.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/tasks.md does not hold the table of baselines; it is:\n%s", want)
	}
}

// BenchmarkBaseline: what a baseline costs on its first call at a length (claims -export and a
// report then reuse it): the counted one (binary_multiplication) and the costliest formulas.
func BenchmarkBaseline(b *testing.B) {
	for _, name := range []string{"binary_multiplication", "binary_addition", "modular_arithmetic_brackets", "stack_manipulation"} {
		for _, L := range []int{40, 500, 1000} {
			task := mustNew(&testing.T{}, name, Options{}).(Baselined)
			b.Run(fmt.Sprintf("%s/L=%d", name, L), func(b *testing.B) {
				for b.Loop() {
					task.Baseline(L)
				}
			})
		}
	}
}

// countBaseline is the brute-force baseline the hooks are checked against: t's baseline at
// length L estimated from n examples that Generate draws with a fixed seed: the majority token of
// every slot (a tie to the smaller token) and the mean of their frequencies; the frequency of the
// most frequent answer (answers told apart by a 64-bit hash).
func countBaseline(t Task, L, n int, seed uint64) Baseline {
	answer := func(rng *rand.Rand) []int { return t.Generate(rng, L).Output }
	slots, vocab := t.OutputLen(L), t.Vocab()
	counts := make([]int, slots*vocab) // [slots, vocab]
	answers := map[uint64]int{}
	rng := rand.New(rand.NewPCG(seed, uint64(L)))
	h := fnv.New64a()
	buf := make([]byte, 0, 2*slots)
	for range n {
		buf = buf[:0]
		for j, tok := range answer(rng) {
			counts[j*vocab+tok]++
			buf = binary.AppendUvarint(buf, uint64(tok))
		}
		h.Reset()
		h.Write(buf)
		answers[h.Sum64()]++
	}
	hits, mode := 0, 0
	for j := range slots {
		row := counts[j*vocab : (j+1)*vocab]
		hits += row[argmax(row)]
	}
	for _, c := range answers {
		mode = max(mode, c)
	}
	return Baseline{Token: float64(hits) / float64(n*slots), Exact: float64(mode) / float64(n)}
}
