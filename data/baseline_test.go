package data

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/tasks.md's table of baselines from the registry")

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

// baselineOptions are the options each task is checked with: its smallest alphabet and the
// default one for the tasks that have an alphabet size, the fixed alphabet for the others.
func baselineOptions(name string) []Options {
	if hasFixedAlphabet(name) {
		return []Options{{}}
	}
	return []Options{smallestAlphabet(name, MinSymbols), {}}
}

// TestBaselineAgainstCount: for every task with the Baselined hook, what BaselineOf gives (a
// formula, or binary_multiplication's own count with another seed and sample size) matches a
// brute-force count of the best constant answer over draws of the task's own examples, at short
// lengths (where padding, the END of stack_manipulation and small-L special cases weigh most)
// and longer ones it builds, with and without task.end_token; the slots format has the same
// baseline. A task whose number of scored tokens varies at one length (flip_flop: its reads) has
// no per-slot count; its own test counts it.
func TestBaselineAgainstCount(t *testing.T) {
	for _, name := range generatedNames() {
		if _, ok := mustNew(t, name, Options{}).(Baselined); !ok {
			continue
		}
		for _, opt := range baselineOptions(name) {
			for _, end := range []bool{false, true} {
				opt.EndToken = end
				task, err := New(name, opt)
				if err != nil {
					continue // a task with no answer after SEP refuses task.end_token (TestEndToken)
				}
				slots, serr := New(name, Options{Symbols: opt.Symbols, Format: FormatSlots})
				for _, L := range validOf(task, 1, 2, 3, 4, 5, 7, 9, 16, 33) {
					got, ok := BaselineOf(task, L)
					if !ok {
						t.Fatalf("%s %+v: BaselineOf finds no hook", name, opt)
					}
					if serr == nil {
						if s, _ := BaselineOf(slots, L); !end && s != got {
							t.Errorf("%s %+v L=%d: baseline %+v in the slots format, %+v in the next-token format", name, opt, L, s, got)
						}
					}
					want, fixed := countBaseline(t, task, L, baselineDraws, 99)
					if !fixed {
						t.Logf("%s L=%d: the number of scored tokens varies; not counted here", name, L)
						break
					}
					if math.Abs(got.Token-want.Token) > baselineTol || math.Abs(got.Exact-want.Exact) > baselineTol {
						t.Errorf("%s %+v L=%d: baseline token %.4f exact %.4g, counted over %d draws %.4f %.4g",
							name, opt, L, got.Token, got.Exact, baselineDraws, want.Token, want.Exact)
					}
				}
			}
		}
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
			for _, L := range testLengths(task, 1, 8) {
				got, fixed := countBaseline(t, task, L, baselineDraws, 5)
				if !fixed {
					t.Errorf("%s L=%d: the number of scored tokens varies, so the uniform guess is no baseline: give it the Baselined hook", name, L)
					break
				}
				exact := math.Pow(k, -float64(len(scored(t, task, task.Generate(rand.New(rand.NewPCG(1, 1)), L)))))
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
			if _, ok := BaselineOf(task, testLengths(task, 1, 1)[0]); !ok {
				continue
			}
			k := float64(classes(task, opt.Symbols))
			for _, L := range validOf(task, lengths...) {
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

// baselineLength is the length a task's row of the table is at: baselineDocLength, or the length
// nearest to it that the task builds (the longer one of a tie).
func baselineLength(task Task) int {
	for d := 0; d <= 4096; d++ {
		for _, L := range []int{baselineDocLength + d, baselineDocLength - d} {
			if L >= 1 && CheckLength(task, L) == nil {
				return L
			}
		}
	}
	panic(fmt.Sprintf("%s builds no length near %d", task.Name(), baselineDocLength))
}

// baselineTable is docs/tasks.md's table of baselines: every task that generates examples, with
// the default options, at baselineLength.
func baselineTable(t *testing.T) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| task | k | uniform guess: token, exact | L | baseline: token | exact | from |\n")
	b.WriteString("| --- | ---: | --- | ---: | ---: | ---: | --- |\n")
	for _, name := range generatedNames() {
		task := mustNew(t, name, Options{})
		L := baselineLength(task)
		k := classes(task, 0)
		n := len(scored(t, task, task.Generate(rand.New(rand.NewPCG(1, 1)), L)))
		guess := fmt.Sprintf("1/%d, (1/%d)^%d", k, k, n)
		if _, fixed := countBaseline(t, task, L, 64, 1); !fixed {
			guess = fmt.Sprintf("1/%d, (1/%d)^n", k, k) // n: this example's scored tokens
		}
		base, ok := BaselineOf(task, L)
		from := "the uniform guess"
		if !ok {
			base = Baseline{Token: 1 / float64(k), Exact: math.Pow(float64(k), -float64(n))}
		} else if name == "binary_multiplication" {
			from = fmt.Sprintf("counted, %d draws", mulDraws(L))
		} else {
			from = "the task's Baseline"
		}
		fmt.Fprintf(&b, "| `%s` | %d | %s | %d | %.3f | %.3g | %s |\n", name, k, guess, L, base.Token, base.Exact, from)
	}
	return b.String()
}

// TestBaselineTable: docs/tasks.md shows every task's baseline as BaselineOf gives it (the test
// logs the table: go test ./data -run TestBaselineTable -v); with -update it writes the table
// into docs/tasks.md, in place of the one there (a new task's row appears so).
func TestBaselineTable(t *testing.T) {
	want := baselineTable(t)
	t.Log("\n" + want)
	const path = "../docs/tasks.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(doc), want) {
		return
	}
	if !*update {
		t.Fatalf("docs/tasks.md does not hold the table of baselines; go test ./data -run TestBaselineTable -update writes it. It is:\n%s", want)
	}
	const header = "| task | k | uniform guess: token, exact |"
	s := string(doc)
	i := strings.Index(s, header)
	if i < 0 {
		t.Fatalf("%s has no table starting %q to rewrite", path, header)
	}
	j := i
	for j < len(s) && strings.HasPrefix(s[j:], "|") {
		j += strings.IndexByte(s[j:], '\n') + 1
	}
	if err := os.WriteFile(path, []byte(s[:i]+want+s[j:]), 0o644); err != nil {
		t.Fatal(err)
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

// unwrapped is a task without its format (endTask, slotTask).
func unwrapped(t Task) Task {
	for {
		switch w := t.(type) {
		case endTask:
			t = w.Task
		case slotTask:
			t = w.Task
		default:
			return t
		}
	}
}

// countBaseline is the brute-force baseline the hooks are checked against: t's baseline at
// length L estimated from n examples that Generate draws with a fixed seed, from what each is
// scored on (scored): the majority token of every slot (a tie to the smaller token) and the mean
// of their frequencies; the frequency of the most frequent answer (answers told apart by a 64-bit
// hash). fixed is false, and the estimate meaningless, when the number of scored tokens varies
// from example to example (flip_flop's reads).
func countBaseline(tb testing.TB, t Task, L, n int, seed uint64) (b Baseline, fixed bool) {
	rng := rand.New(rand.NewPCG(seed, uint64(L)))
	answer := func() []int { return t.Generate(rng, L).Output }
	if _, inside := unwrapped(t).(inPlace); inside {
		answer = func() []int { return scored(tb, t, t.Generate(rng, L)) }
	}
	first := answer()
	slots, vocab := len(first), t.Vocab()
	counts := make([]int, slots*vocab) // [slots, vocab]
	answers := map[uint64]int{}
	h := fnv.New64a()
	buf := make([]byte, 0, 2*slots)
	for i := range n {
		a := first
		if i > 0 {
			a = answer()
		}
		if len(a) != slots {
			return Baseline{}, false
		}
		buf = buf[:0]
		for j, tok := range a {
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
	return Baseline{Token: float64(hits) / float64(n*slots), Exact: float64(mode) / float64(n)}, true
}
