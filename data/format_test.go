package data

import (
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/fielderr"
)

// TestEndToken: with Options.EndToken every task keeps its examples (the same draws from the
// same seed) and appends END, a new id equal to the inner vocabulary; OutputLen and Vocab grow by
// one, the name stays.
func TestEndToken(t *testing.T) {
	for _, name := range generatedNames() {
		plain := mustNew(t, name, Options{})
		end, err := New(name, Options{EndToken: true})
		if err != nil { // a task with no answer after SEP (flip_flop, mqar): refused naming a field
			if fielderr.PathOf(err) == "" || plain.OutputLen(1) != 0 {
				t.Errorf("%s refuses task.end_token: %v", name, err)
			}
			continue
		}
		tok, ok := EndToken(end)
		if !ok || tok != plain.Vocab() || end.Vocab() != plain.Vocab()+1 || end.Name() != name {
			t.Fatalf("%s: END %d (%v), vocab %d; want END %d, vocab %d", name, tok, ok, end.Vocab(), plain.Vocab(), plain.Vocab()+1)
		}
		if _, ok := EndToken(plain); ok {
			t.Errorf("%s: a task without end_token reports an END token", name)
		}
		for _, L := range validOf(plain, 1, 5, 23) {
			if end.OutputLen(L) != plain.OutputLen(L)+1 {
				t.Errorf("%s: OutputLen(%d) = %d, want %d", name, L, end.OutputLen(L), plain.OutputLen(L)+1)
			}
			pe, _ := TestSet(plain, L, 8, 3)
			ee, _ := TestSet(end, L, 8, 3)
			for i := range pe {
				want := slices.Concat(pe[i].Output, []int{tok})
				if !slices.Equal(ee[i].Input, pe[i].Input) || !slices.Equal(ee[i].Output, want) {
					t.Fatalf("%s L=%d: %v, want input %v output %v", name, L, ee[i], pe[i].Input, want)
				}
			}
			if b, err := MakeBatch(end, ee); err != nil || b.T != SeqLen(plain, L)+1 {
				t.Fatalf("%s L=%d: MakeBatch: T %d, %v", name, L, b.T, err)
			}
		}
	}
}

// TestSlotsBatch checks the slots layout against a hand-written batch: reverse of [2 3 4] is
// the inputs 2 3 4 SLOT SLOT SLOT, the targets PAD PAD PAD 4 3 2, weights on the slots only.
func TestSlotsBatch(t *testing.T) {
	task := mustNew(t, "reverse", Options{Format: FormatSlots})
	slot, ok := SlotToken(task)
	if !ok || slot != FirstSymbol+DefaultSymbols || task.Vocab() != slot+1 || task.OutputLen(3) != 3 {
		t.Fatalf("SLOT %d (%v), vocab %d", slot, ok, task.Vocab())
	}
	b, err := MakeBatch(task, []Example{{Input: []int{2, 3, 4}, Output: []int{4, 3, 2}}, {Input: []int{5, 5, 6}, Output: []int{6, 5, 5}}})
	if err != nil {
		t.Fatal(err)
	}
	s := slot
	wantIn := []int{2, 3, 4, s, s, s, 5, 5, 6, s, s, s}
	wantTg := []int{PAD, PAD, PAD, 4, 3, 2, PAD, PAD, PAD, 6, 5, 5}
	wantW := []float64{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1}
	if b.T != 6 || b.L != 3 || !slices.Equal(b.Inputs, wantIn) || !slices.Equal(b.Targets, wantTg) || !slices.Equal(b.Weights, wantW) {
		t.Errorf("slots batch:\n in %v want %v\n tg %v want %v\n w %v want %v (T %d)", b.Inputs, wantIn, b.Targets, wantTg, b.Weights, wantW, b.T)
	}
	// One-token answers (parity) get one slot; no target ever leaks into the inputs.
	par := mustNew(t, "parity", Options{Format: FormatSlots})
	ex, _ := TestSet(par, 9, 16, 1)
	pb, _ := MakeBatch(par, ex)
	pslot, _ := SlotToken(par)
	for e := range pb.B {
		if pb.T != 10 || pb.Inputs[e*10+9] != pslot || pb.Targets[e*10+9] != ex[e].Output[0] {
			t.Fatalf("parity slots row %d: %v -> %v", e, pb.Inputs[e*10:e*10+10], pb.Targets[e*10:e*10+10])
		}
	}
}

func TestFormatErrors(t *testing.T) {
	for _, tc := range []struct {
		opt  Options
		want []string
	}{
		{Options{Format: "encoder"}, []string{"task.format", `"encoder"`, "slots", "next"}},
		{Options{Format: FormatSlots, EndToken: true}, []string{"task.end_token", "task.format: slots"}},
	} {
		_, err := New("copy", tc.opt)
		if err == nil {
			t.Errorf("New(copy, %+v) succeeded", tc.opt)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("New(copy, %+v): %q lacks %q", tc.opt, err, w)
			}
		}
	}
	for _, f := range []string{"", FormatNext, FormatSlots} {
		mustNew(t, "copy", Options{Format: f})
	}
}
