package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func init() {
	specs["passkey"] = taskSpec{check: checkPasskey, outLen: one, vocab: fixedVocab(258), symbols: fixedSymbols}
}

// passkeyPrompt parses a passkey prompt: the filler before the needle, its two keys, the filler
// after it.
var passkeyPrompt = regexp.MustCompile(`^There is an important info hidden inside a lot of irrelevant text\. Find it and memorize them\. I will quiz you about the important information there\.\n([^\n]*)\nThe pass key is (\d+)\. Remember it\. (\d+) is the pass key\.\n([^\n]*)\nWhat is the pass key\? The pass key is$`)

// checkPasskey is passkey's reference: the input is the template (bytes as tokens 2 + b) with a
// key of one digit 1..9 in its needle, and the answer is that key.
func checkPasskey(e Example, _ int) error {
	b := make([]byte, len(e.Input))
	for i, tok := range e.Input {
		b[i] = byte(tok - FirstSymbol)
	}
	m := passkeyPrompt.FindStringSubmatch(string(b))
	if m == nil || m[2] != m[3] || len(m[2]) != 1 || m[2] == "0" {
		return fmt.Errorf("the prompt does not parse into the template with a key 1..9: %q", b)
	}
	if len(e.Output) != 1 || e.Output[0] != FirstSymbol+int(m[2][0]) {
		return fmt.Errorf("answer %v, the needle's key %s", e.Output, m[2])
	}
	return nil
}

func tokensToString(t *testing.T, toks []int) string {
	t.Helper()
	b := make([]byte, len(toks))
	for i, tok := range toks {
		if tok < FirstSymbol || tok >= FirstSymbol+256 {
			t.Fatalf("token %d is not a byte", tok)
		}
		b[i] = byte(tok - FirstSymbol)
	}
	return string(b)
}

// TestPasskeyTemplate: the prompt is the landmark-attention template byte for byte, written out
// here independently of passkey.go: the five lines joined by newlines, each run of filler the
// first bytes of the filler repeated with single spaces.
func TestPasskeyTemplate(t *testing.T) {
	const fill = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."
	inf := strings.Repeat(fill+" ", 100)
	for _, c := range []struct{ L, k, prefix int }{{239, 1, 0}, {300, 5, 57}, {500, 9, 0}, {500, 2, 257}, {1000, 4, 400}} {
		n := c.L - 239
		want := "There is an important info hidden inside a lot of irrelevant text. Find it and memorize them. I will quiz you about the important information there.\n" +
			inf[:c.prefix] + "\n" +
			"The pass key is " + strconv.Itoa(c.k) + ". Remember it. " + strconv.Itoa(c.k) + " is the pass key.\n" +
			inf[:n-c.prefix] + "\n" +
			"What is the pass key? The pass key is"
		if got := PasskeyPrompt(c.L, c.k, c.prefix); got != want {
			t.Errorf("L=%d k=%d prefix=%d:\ngot  %q\nwant %q", c.L, c.k, c.prefix, got, want)
		}
	}
	if passkeyFixed != 239 {
		t.Errorf("the prompt without filler has %d bytes, want 239", passkeyFixed)
	}
}

// TestPasskeyExamples: at many lengths and depths an example is L bytes that parse back into the
// template; the answer is the needle's key, one digit 1..9; the needle stands where the depth says
// (⌊depth·n⌋ bytes of filler before it, n the filler's bytes); the depth drawn per example covers
// the whole range.
func TestPasskeyExamples(t *testing.T) {
	re := passkeyPrompt
	rng := rand.New(rand.NewPCG(3, 4))
	for _, depth := range []*float64{nil, ptr(0), ptr(0.25), ptr(0.5), ptr(0.75), ptr(1)} {
		task := mustNew(t, "passkey", Options{Depth: depth})
		var prefixes []float64
		for _, L := range []int{239, 240, 256, 331, 512, 1024, 2048} {
			for range 30 {
				e := task.Generate(rng, L)
				if len(e.Input) != L || len(e.Output) != task.OutputLen(L) || task.OutputLen(L) != 1 {
					t.Fatalf("L=%d: input %d, output %d tokens", L, len(e.Input), len(e.Output))
				}
				m := re.FindStringSubmatch(tokensToString(t, e.Input))
				if m == nil {
					t.Fatalf("L=%d: the prompt does not parse: %q", L, tokensToString(t, e.Input))
				}
				ans := tokensToString(t, e.Output)
				if m[2] != ans || m[3] != ans || len(ans) != 1 || ans[0] == '0' {
					t.Fatalf("L=%d: needle keys %s and %s, answer %q", L, m[2], m[3], ans)
				}
				n := L - 239
				if len(m[1])+len(m[4]) != n {
					t.Fatalf("L=%d: %d+%d bytes of filler, want %d", L, len(m[1]), len(m[4]), n)
				}
				if depth != nil && len(m[1]) != int(*depth*float64(n)) {
					t.Errorf("L=%d depth %v: %d bytes of filler before the needle, want %d", L, *depth, len(m[1]), int(*depth*float64(n)))
				}
				if n > 0 {
					prefixes = append(prefixes, float64(len(m[1]))/float64(n))
				}
			}
		}
		if depth == nil && (slices.Min(prefixes) > 0.05 || slices.Max(prefixes) < 0.95) {
			t.Errorf("drawn depths span only [%.2f, %.2f]", slices.Min(prefixes), slices.Max(prefixes))
		}
	}
}

// TestPasskeyDeterministic: a test set is the same bits for the same seed and another for
// another seed; the training stream likewise.
func TestPasskeyDeterministic(t *testing.T) {
	task := mustNew(t, "passkey", Options{Depth: ptr(0.5)})
	a, _ := TestSet(task, 400, 50, 7)
	b, _ := TestSet(task, 400, 50, 7)
	c, _ := TestSet(task, 400, 50, 8)
	if !slices.EqualFunc(a, b, sameExample) || slices.EqualFunc(a, c, sameExample) {
		t.Error("test sets are not a function of the seed")
	}
	s := Train{Task: mustNew(t, "passkey", Options{}), MinLen: 300, MaxLen: 320, BatchSize: 4, Seed: 1}
	x, _ := s.Batch(5)
	y, _ := s.Batch(5)
	z, _ := s.Batch(6)
	if !slices.Equal(x.Inputs, y.Inputs) || slices.Equal(x.Inputs, z.Inputs) && x.T == z.T {
		t.Error("training batches are not a function of the index")
	}
}

// TestPasskeyRetrievalIsExactMatch: the papers score the first number of the greedy answer;
// over every answer of OutputLen tokens made of digits and a few other bytes, its first number
// equals the key exactly when the answer is the key's digits (exact match).
func TestPasskeyRetrievalIsExactMatch(t *testing.T) {
	firstNumber := regexp.MustCompile(`\d+`)
	answers := []string{""} // every string of PasskeyDigits bytes over the alphabet
	for range PasskeyDigits {
		var next []string
		for _, a := range answers {
			for _, c := range "0123456789 .x" {
				next = append(next, a+string(c))
			}
		}
		answers = next
	}
	for k := PasskeyMinKey; k <= PasskeyMaxKey; k++ {
		key, n := strconv.Itoa(k), 0
		for _, ans := range answers {
			if (firstNumber.FindString(ans) == key) != (ans == key) {
				t.Errorf("answer %q: first number %q, key %s", ans, firstNumber.FindString(ans), key)
			}
			if ans == key {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("key %s: %d answers are the key", key, n)
		}
	}
}

// TestPasskeyRefused: bad options and lengths are refused naming the field.
func TestPasskeyRefused(t *testing.T) {
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Depth: ptr(1.5)}, "task.depth: the needle's depth is a fraction"},
		{Options{Depth: ptr(-0.1)}, "task.depth: the needle's depth is a fraction"},
		{Options{Symbols: 3}, "task.symbols"},
	} {
		if _, err := New("passkey", c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
	if _, err := New("copy", Options{Depth: ptr(0.5)}); err == nil || !strings.Contains(err.Error(), "task.depth: only the passkey task") {
		t.Errorf("task.depth on copy: %v", err)
	}
	task := mustNew(t, "passkey", Options{})
	if CheckLength(task, 238) == nil || CheckLength(task, 239) != nil {
		t.Error("the shortest passkey prompt is 239 bytes")
	}
}

func ptr(x float64) *float64 { return &x }

func sameExample(a, b Example) bool {
	return slices.Equal(a.Input, b.Input) && slices.Equal(a.Output, b.Output)
}

// TestPasskeyBaseline: the keys are uniform, so the best constant answer scores 1/9: counted.
func TestPasskeyBaseline(t *testing.T) {
	task := mustNew(t, "passkey", Options{})
	rng := rand.New(rand.NewPCG(11, 12))
	count := map[int]int{}
	const n = 90000
	for range n {
		count[task.Generate(rng, 239).Output[0]]++
	}
	best := 0
	for _, c := range count {
		best = max(best, c)
	}
	b, _ := BaselineOf(task, 239)
	if len(count) != 9 || math.Abs(float64(best)/n-b.Exact) > 0.005 || b.Token != b.Exact || math.Abs(b.Exact-1.0/9) > 1e-15 {
		t.Errorf("%d keys, the commonest drawn %.4f of the time; baseline %+v", len(count), float64(best)/n, b)
	}
}
