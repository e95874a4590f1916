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
	specs["flip_flop"] = taskSpec{check: checkFlipFlop, outLen: zero, vocab: fixedVocab(7), symbols: fixedSymbols}
}

// checkFlipFlop is flip_flop's reference: instruction-bit pairs (w i r = 2 3 4, bits 5 6), a
// write first and a read last, every read's bit the last written one; no answer after SEP.
func checkFlipFlop(e Example, _ int) error {
	in := e.Input
	if len(e.Output) != 0 || len(in)%2 != 0 || in[0] != 2 || in[len(in)-2] != 4 {
		return fmt.Errorf("not a write ... read string of pairs with no answer")
	}
	last := -1
	for j := 0; j < len(in); j += 2 {
		switch op, bit := in[j], in[j+1]; {
		case bit != 5 && bit != 6 || op < 2 || op > 4:
			return fmt.Errorf("pair %d is %d %d", j/2, op, bit)
		case op == 2:
			last = bit
		case op == 4 && bit != last:
			return fmt.Errorf("the read at %d gives %d, the last write %d", j, bit, last)
		}
	}
	return nil
}

// TestFlipFlopStrings: at many lengths and ignore probabilities, a string is L tokens of
// instruction-bit pairs, a write first and a read last, every read's bit the last written one
// (replayed here), and the instructions drawn in the proportions the probability gives.
func TestFlipFlopStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range []float64{0, 0.1, 0.8, 0.98} {
		task := mustNew(t, "flip_flop", Options{IgnoreProb: &p})
		count := map[int]int{}
		for _, L := range []int{4, 6, 64, 256} {
			for range 200 {
				e := task.Generate(rng, L)
				if len(e.Input) != L || len(e.Output) != 0 {
					t.Fatalf("L=%d: input %d, output %d", L, len(e.Input), len(e.Output))
				}
				if e.Input[0] != ffWrite || e.Input[L-2] != ffRead {
					t.Fatalf("L=%d: %v does not start with a write and end with a read", L, e.Input)
				}
				last := -1
				for j := 0; j < L; j += 2 {
					op, bit := e.Input[j], e.Input[j+1]
					if bit != ffZero && bit != ffOne {
						t.Fatalf("bit token %d", bit)
					}
					switch op {
					case ffWrite:
						last = bit
					case ffRead:
						if bit != last {
							t.Fatalf("L=%d: a read gives %d, the last write %d: %v", L, bit, last, e.Input)
						}
					case ffIgnore:
					default:
						t.Fatalf("instruction token %d", op)
					}
					if j > 0 && j < L-2 {
						count[op]++
					}
				}
			}
		}
		all := float64(count[ffWrite] + count[ffIgnore] + count[ffRead])
		if got := float64(count[ffIgnore]) / all; math.Abs(got-p) > 0.01 {
			t.Errorf("p=%v: ignores %.3f of the middle instructions", p, got)
		}
		if w, r := float64(count[ffWrite])/all, float64(count[ffRead])/all; math.Abs(w-r) > 0.01 {
			t.Errorf("p=%v: writes %.3f, reads %.3f: want equal", p, w, r)
		}
	}
}

// TestFlipFlopBatch: the batch is the string predicted token by token, weighted at the reads
// only: the weighted targets are exactly the read bits.
func TestFlipFlopBatch(t *testing.T) {
	task := mustNew(t, "flip_flop", Options{})
	rng := rand.New(rand.NewPCG(1, 2))
	ex := []Example{task.Generate(rng, 32), task.Generate(rng, 32)}
	b, err := MakeBatch(task, ex)
	if err != nil || b.T != 32 {
		t.Fatalf("%v, T %d", err, b.T)
	}
	for i, e := range ex {
		for j := range 32 {
			k := i*32 + j
			if b.Inputs[k] != e.Input[j] || j < 31 && b.Targets[k] != e.Input[j+1] {
				t.Fatalf("example %d position %d: input %d target %d", i, j, b.Inputs[k], b.Targets[k])
			}
			read := j%2 == 0 && e.Input[j] == ffRead
			if (b.Weights[k] == 1) != read || b.Weights[k] != 0 && b.Weights[k] != 1 {
				t.Errorf("example %d position %d (%d): weight %v", i, j, e.Input[j], b.Weights[k])
			}
		}
	}
}

// TestFlipFlopBaseline: guessing a constant bit scores 1/2 at the reads, counted; the exact
// baseline is E[2^-reads], counted again with another seed.
func TestFlipFlopBaseline(t *testing.T) {
	for _, p := range []float64{0.1, 0.8, 0.98} {
		task := mustNew(t, "flip_flop", Options{IgnoreProb: &p})
		rng := rand.New(rand.NewPCG(9, 9))
		ones, reads, exact := 0, 0, 0.0
		const n = 20000
		for range n {
			e := task.Generate(rng, 16)
			rs := task.(flipFlopTask).scoredAt(e.Input)
			for _, j := range rs {
				if e.Input[j+1] == ffOne {
					ones++
				}
			}
			reads += len(rs)
			exact += math.Pow(0.5, float64(len(rs)))
		}
		b, _ := BaselineOf(task, 16)
		if frac := float64(ones) / float64(reads); math.Abs(frac-0.5) > 0.02 || b.Token != 0.5 {
			t.Errorf("p=%v: read bits are 1 in %.3f; baseline token %v", p, frac, b.Token)
		}
		if math.Abs(b.Exact-exact/n) > 0.01 {
			t.Errorf("p=%v: exact baseline %.4f, counted %.4f", p, b.Exact, exact/n)
		}
	}
}

// TestFlipFlopDeterministic: test sets are a function of the seed.
func TestFlipFlopDeterministic(t *testing.T) {
	task := mustNew(t, "flip_flop", Options{})
	a, _ := TestSet(task, 64, 50, 1)
	b, _ := TestSet(task, 64, 50, 1)
	c, _ := TestSet(task, 64, 50, 2)
	if !slices.EqualFunc(a, b, sameExample) || slices.EqualFunc(a, c, sameExample) {
		t.Error("test sets are not a function of the seed")
	}
}

// TestFlipFlopRefused: bad options and lengths are refused naming the field.
func TestFlipFlopRefused(t *testing.T) {
	one := 1.0
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{IgnoreProb: &one}, "task.ignore_prob: the probability of an ignore instruction must be in [0, 1) (the default: 0.8), got 1"},
		{Options{Format: FormatSlots}, "task.format"},
		{Options{EndToken: true}, "task.format"},
		{Options{Symbols: 3}, "task.symbols"},
	} {
		if _, err := New("flip_flop", c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
	if _, err := New("passkey", Options{IgnoreProb: &one}); err == nil || !strings.Contains(err.Error(), "task.ignore_prob: only the flip_flop task") {
		t.Errorf("task.ignore_prob on passkey: %v", err)
	}
	task := mustNew(t, "flip_flop", Options{})
	for L, ok := range map[int]bool{1: false, 2: false, 3: false, 4: true, 5: false, 64: true} {
		if (CheckLength(task, L) == nil) != ok {
			t.Errorf("length %d: %v", L, CheckLength(task, L))
		}
	}
}
