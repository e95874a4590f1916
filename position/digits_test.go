package position_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/position"
	"gorgonia.org/tensor"
)

// Tokens here: digits are 2 .. 11 (Digit0 = 2), anything else (0, 1, 12) is not a digit.
const digit0 = 2

func digitScheme(t *testing.T, spec position.Spec) position.TokenPositioner {
	t.Helper()
	s, err := position.New(spec, position.Dims{DModel: 8, Heads: 2, Dtype: tensor.Float64, Seed: 1, Digit0: digit0})
	if err != nil {
		t.Fatal(err)
	}
	return s.(position.TokenPositioner)
}

// randomTokens draws b sequences of n tokens, digits two times in three so that numbers of
// every length occur.
func randomTokens(rng *rand.Rand, b, n int) []int {
	tok := make([]int, b*n)
	for i := range tok {
		if rng.IntN(3) == 0 {
			tok[i] = []int{0, 1, 12}[rng.IntN(3)]
		} else {
			tok[i] = digit0 + rng.IntN(10)
		}
	}
	return tok
}

// places is the reference: a digit's place is one more than the previous token's place if
// that token is a digit, 1 after a non-digit or at the start; 0 for a non-digit.
func places(tok []int, n int) []int {
	out := make([]int, len(tok))
	for i, x := range tok {
		if x < digit0 || x >= digit0+10 {
			continue
		}
		out[i] = 1
		if i%n > 0 && out[i-1] > 0 {
			out[i] = out[i-1] + 1
		}
	}
	return out
}

// TestAbacusPositions: over many random batches, an evaluation's positions are each digit's
// place within its number (the reference above) and 0 elsewhere; a training batch's are the
// same with one k added to every digit of the batch, k in [0, max_offset], every k drawn.
func TestAbacusPositions(t *testing.T) {
	const maxOffset = 7
	a := digitScheme(t, position.Spec{Kind: "abacus"}.With("max_offset", maxOffset).With("max_positions", 64))
	rng := rand.New(rand.NewPCG(1, 1))
	seen := map[int]bool{}
	for range 300 {
		b, n := 1+rng.IntN(4), 1+rng.IntN(30)
		tok := randomTokens(rng, b, n)
		want := places(tok, n)
		got, err := a.TokenPositions(tok, b, n, nil)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("evaluation positions of %v: %v (%v), want %v", tok, got, err, want)
		}
		got, err = a.TokenPositions(tok, b, n, rng)
		if err != nil {
			t.Fatal(err)
		}
		k := -1
		for i, p := range got {
			switch {
			case want[i] == 0 && p != 0:
				t.Fatalf("a non-digit at %d has position %d in training, want 0", i, p)
			case want[i] > 0 && k < 0:
				k = p - want[i]
			case want[i] > 0 && p-want[i] != k:
				t.Fatalf("two offsets in one batch: %d and %d", k, p-want[i])
			}
		}
		if k > maxOffset || k < -1 {
			t.Fatalf("offset %d outside [0, %d]", k, maxOffset)
		}
		seen[k] = true
	}
	for k := range maxOffset + 1 {
		if !seen[k] {
			t.Errorf("offset %d never drawn in 300 batches", k)
		}
	}
}

// TestCoupledPositions: tokens of one significance share a position: in an evaluation, a digit
// at place p has 1 + p and every other token 1; in training each sequence has its own start s in
// [1, max_position − P] (P its longest number), the same for all its tokens, every start drawn,
// and no position above max_position.
func TestCoupledPositions(t *testing.T) {
	const maxPos = 40
	c := digitScheme(t, position.Spec{Kind: "coupled"}.With("max_position", maxPos))
	rng := rand.New(rand.NewPCG(2, 2))
	seen := map[int]bool{}
	for range 300 {
		b, n := 1+rng.IntN(4), 1+rng.IntN(30)
		tok := randomTokens(rng, b, n)
		want := places(tok, n)
		got, err := c.TokenPositions(tok, b, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != 1+want[i] {
				t.Fatalf("evaluation position %d of %v: %d, want %d", i, tok, got[i], 1+want[i])
			}
		}
		got, err = c.TokenPositions(tok, b, n, rng)
		if err != nil {
			t.Fatal(err)
		}
		for s := range b {
			row, ref := got[s*n:(s+1)*n], want[s*n:(s+1)*n]
			start, longest := row[0]-ref[0], slices.Max(ref)
			for i := range row {
				if row[i]-ref[i] != start {
					t.Fatalf("sequence %d: two starts, %d and %d", s, start, row[i]-ref[i])
				}
			}
			if start < 1 || start > maxPos-longest {
				t.Fatalf("start %d outside [1, %d − %d]", start, maxPos, longest)
			}
			seen[start] = true
		}
	}
	for s := 1; s <= maxPos-30; s++ {
		if !seen[s] {
			t.Errorf("start %d never drawn", s)
		}
	}
}

// TestDigitPositionsArePrefixes: a token's evaluation position depends only on the tokens up to
// it (so that greedy decoding, which sees a prefix, gets the positions teacher forcing gives).
func TestDigitPositionsArePrefixes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, kind := range []string{"abacus", "coupled"} {
		s := digitScheme(t, position.Spec{Kind: kind})
		for range 200 {
			n := 2 + rng.IntN(30)
			tok := randomTokens(rng, 1, n)
			full, _ := s.TokenPositions(tok, 1, n, nil)
			m := 1 + rng.IntN(n-1)
			prefix, _ := s.TokenPositions(tok[:m], 1, m, nil)
			if !slices.Equal(prefix, full[:m]) {
				t.Fatalf("%s: positions of the prefix %v are %v, of the whole %v", kind, tok[:m], prefix, full[:m])
			}
		}
	}
}

// TestDigitSchemeErrors: a task without digits, a table too short for a number and bad options
// are refused with the field to fix.
func TestDigitSchemeErrors(t *testing.T) {
	dims := position.Dims{DModel: 8, Heads: 2, Dtype: tensor.Float64}
	for _, kind := range []string{"abacus", "coupled"} {
		if !position.ReadsTokens(kind) {
			t.Errorf("ReadsTokens(%s) = false", kind)
		}
		if _, err := position.New(position.Spec{Kind: kind}, dims); err == nil || !strings.Contains(err.Error(), "position.kind") || !strings.Contains(err.Error(), "no digit tokens") {
			t.Errorf("%s without digits: %v", kind, err)
		}
	}
	for _, kind := range []string{"rope", "learned", "none"} {
		if position.ReadsTokens(kind) {
			t.Errorf("ReadsTokens(%s) = true", kind)
		}
	}
	number := []int{3, 4, 5, 6, 7, 8} // one number of 6 digits
	a := digitScheme(t, position.Spec{Kind: "abacus"}.With("max_offset", 10).With("max_positions", 16))
	if _, err := a.TokenPositions(number, 1, 6, nil); err != nil {
		t.Errorf("abacus, 6 digits in 16 rows at evaluation: %v", err)
	}
	if _, err := a.TokenPositions(number, 1, 6, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), "position.max_positions") {
		t.Errorf("abacus, 6 digits + offset 10 in 16 rows: %v", err)
	}
	c := digitScheme(t, position.Spec{Kind: "coupled"}.With("max_position", 6))
	if _, err := c.TokenPositions(number, 1, 6, nil); err == nil || !strings.Contains(err.Error(), "position.max_position") {
		t.Errorf("coupled, 6 digits up to position 6: %v", err)
	}
	dims.Digit0 = 2
	for _, tc := range []struct {
		spec position.Spec
		key  string
	}{
		{position.Spec{Kind: "abacus"}.With("max_offset", -1), "position.max_offset"},
		{position.Spec{Kind: "abacus"}.With("max_positions", 1), "position.max_positions"},
		{position.Spec{Kind: "abacus"}.With("init_std", 0.0), "position.init_std"},
		{position.Spec{Kind: "coupled"}.With("max_position", 0), "position.max_position"},
	} {
		if _, err := position.New(tc.spec, dims); err == nil || !strings.HasPrefix(err.Error(), tc.key) {
			t.Errorf("%+v: %v, want an error naming %s", tc.spec.Options, err, tc.key)
		}
	}
}
