package data

import (
	"slices"
	"testing"
)

// wantMissing is the reference for missing_duplicate: the bit at the placeholder's twin position
// in the other half (0 = 2, 1 = 3, placeholder 4, padding 5). L = 1 answers 1.
func wantMissing(in []int) []int {
	if len(in) == 1 {
		return []int{3}
	}
	h := len(in) / 2
	i := slices.Index(in, 4)
	if i < 0 || i >= 2*h {
		return nil
	}
	twin := i + h
	if i >= h {
		twin = i - h
	}
	return []int{in[twin]}
}

func TestMissingDuplicateExamples(t *testing.T) {
	tokens := func(s string) []int {
		var in []int
		for _, c := range s {
			in = append(in, 2+int(c-'0'))
		}
		return in
	}
	// Their docstring's examples: 01100210 → 1, 1011213 → 0 (their 2 is the placeholder, 3 the
	// padding: our 4 and 5).
	for _, tc := range []struct {
		in   string
		want int
	}{{"01100210", 3}, {"1011213", 2}, {"21", 3}, {"023", 2}} {
		if got := wantMissing(tokens(tc.in)); !slices.Equal(got, []int{tc.want}) {
			t.Errorf("reference(%s) = %v, want %d", tc.in, got, tc.want)
		}
	}
}

// TestMissingDuplicate: the input is a doubled string with one placeholder, uniform over the
// 2⌊L/2⌋ positions, padded at odd L; both answers occur.
func TestMissingDuplicate(t *testing.T) {
	task := mustNew(t, "missing_duplicate", Options{})
	if e := task.Generate(nil, 1); !slices.Equal(e.Stream(), []int{3, SEP, 3}) {
		t.Errorf("L=1: %v, want their special case 1 → 1", e.Stream())
	}
	answers := map[int]int{}
	for L := 2; L <= 40; L++ {
		h := L / 2
		where := map[int]int{}
		for _, e := range drawExamples(task, L, 2000, 13) {
			i := slices.Index(e.Input, 4)
			where[i]++
			filled := slices.Clone(e.Input)
			filled[i] = e.Output[0]
			if !slices.Equal(filled[:h], filled[h:2*h]) || (L%2 == 1) != (e.Input[L-1] == 5) {
				t.Fatalf("L=%d: %v with the answer %d is not a doubled string (padded if odd)", L, e.Input, e.Output[0])
			}
			answers[e.Output[0]]++
		}
		for i := range 2 * h {
			if where[i] < 2000/(2*h)/2 {
				t.Errorf("L=%d: the placeholder at %d %d times in 2000", L, i, where[i])
			}
		}
	}
	if answers[2] < 30000 || answers[3] < 30000 {
		t.Errorf("answers %v over 78,000, want about half each", answers)
	}
}
