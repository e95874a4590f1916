package data

import (
	"slices"
	"strings"
	"testing"
)

// Tokens of stack_manipulation, spelled out: 0 = 2, 1 = 3, POP = 4, PUSH 0 = 5, PUSH 1 = 6,
// the end of the stack = 7.

// wantStack is the reference for stack_manipulation: the leading bits are the stack (bottom to
// top), kept as a string whose end is the top; every later token is an action.
func wantStack(in []int) []int {
	k := 0
	for k < len(in) && in[k] <= 3 {
		k++
	}
	var s strings.Builder
	for _, tok := range in[:k] {
		s.WriteByte(byte('0' + tok - 2))
	}
	stack := s.String()
	for _, tok := range in[k:] {
		switch tok {
		case 4:
			if stack != "" {
				stack = stack[:len(stack)-1]
			}
		case 5:
			stack += "0"
		case 6:
			stack += "1"
		}
	}
	out := make([]int, len(in)+1)
	for i := range out {
		out[i] = 2 // padding: bit 0
	}
	for i := range len(stack) {
		out[i] = 2 + int(stack[len(stack)-1-i]-'0')
	}
	out[len(stack)] = 7
	return out
}

// stackTokens reads "0110 P1 PP" (bits, then P for POP, P0/P1 for PUSH): the docstring's notation.
func stackTokens(s string) []int {
	var in []int
	for _, f := range strings.Fields(s) {
		switch f {
		case "P":
			in = append(in, 4)
		case "P0":
			in = append(in, 5)
		case "P1":
			in = append(in, 6)
		default:
			for _, c := range f {
				in = append(in, 2+int(c-'0'))
			}
		}
	}
	return in
}

func TestStackManipulationExamples(t *testing.T) {
	task := mustNew(t, "stack_manipulation", Options{})
	for _, tc := range []struct {
		in   string
		want []int
	}{
		// Their docstring's two examples (1 1 0 2 0 0 0 0 and 2 0 0 0 0 0 0; theirs 2 = our 7).
		{"0110 P1 P P", []int{3, 3, 2, 7, 2, 2, 2, 2}},
		{"110 P P P", []int{7, 2, 2, 2, 2, 2, 2}},
		{"1", []int{3, 7}},
		{"0 P P P0", []int{2, 7, 2, 2, 2}},
		{"01 P1 P0", []int{2, 3, 3, 2, 7}},
	} {
		in := stackTokens(tc.in)
		if got := wantStack(in); !slices.Equal(got, tc.want) {
			t.Errorf("reference(%s) = %v, want %v", tc.in, got, tc.want)
		}
		if got := task.OutputLen(len(in)); got != len(tc.want) {
			t.Errorf("OutputLen(%d) = %d, want %d", len(in), got, len(tc.want))
		}
	}
	// Their docstring's first example drawn: L = 7 has the stack 0110 among its inputs.
	for _, e := range drawExamples(task, 7, 20000, 3) {
		if slices.Equal(e.Input, stackTokens("0110 P1 P P")) {
			if !slices.Equal(e.Output, []int{3, 3, 2, 7, 2, 2, 2, 2}) {
				t.Errorf("0110 P1 P P gives %v", e.Output)
			}
			return
		}
	}
	t.Error("0110 P1 P P never drawn in 20,000 examples of length 7")
}

// TestStackManipulationDistribution: the stack's size k is uniform over [1, L−1] and the actions
// take all three values.
func TestStackManipulationDistribution(t *testing.T) {
	task := mustNew(t, "stack_manipulation", Options{})
	for L := 2; L <= 12; L++ {
		sizes := map[int]int{}
		for _, e := range drawExamples(task, L, 3000, 4) {
			k := slices.IndexFunc(e.Input, func(tok int) bool { return tok >= 4 })
			if k < 1 || slices.ContainsFunc(e.Input[k:], func(tok int) bool { return tok < 4 }) {
				t.Fatalf("L=%d: %v is not bits then actions", L, e.Input)
			}
			sizes[k]++
		}
		for k := 1; k < L; k++ {
			if n := sizes[k]; n < 3000/(L-1)*2/3 {
				t.Errorf("L=%d: stack size %d drawn %d times in 3000, want about %d", L, k, n, 3000/(L-1))
			}
		}
	}
}
