package stats

import "testing"

func excludes0(b Bounds) bool { return b.Excludes(0) }

// TestSeedsNeeded: deterministic, non-increasing as the observed difference grows, max+1 where the
// values do not point anywhere, and close to the closed form for a constant difference.
func TestSeedsNeeded(t *testing.T) {
	base := []float64{-0.1, 0.05, 0.1, -0.05, 0} // mean 0: never decides
	const max = 30
	if got := SeedsNeeded(base, -1, 1, 0.05, excludes0, max); got != max+1 {
		t.Errorf("mean-0 values: %d, want %d (never decides)", got, max+1)
	}
	prev := max + 1
	for _, shift := range []float64{0.1, 0.2, 0.3, 0.5, 0.7, 0.85} {
		xs := make([]float64, len(base))
		for i, x := range base {
			xs[i] = x + shift
		}
		got := SeedsNeeded(xs, -1, 1, 0.05, excludes0, max)
		if again := SeedsNeeded(xs, -1, 1, 0.05, excludes0, max); again != got {
			t.Fatalf("shift %v: %d then %d: not deterministic", shift, got, again)
		}
		if got > prev {
			t.Errorf("shift %v: %d seeds, more than %d at the smaller shift", shift, got, prev)
		}
		prev = got
	}
	if prev >= 15 {
		t.Errorf("shift 0.85: %d seeds, want well under 15", prev)
	}
	// All values 1 on [−1, 1] (y = 1): ½ is excluded first after 7 values (TestBettingCSClosedForm).
	if got := SeedsNeeded([]float64{1, 1}, -1, 1, 0.05, excludes0, max); got != 7 {
		t.Errorf("constant difference 1: %d seeds, want 7", got)
	}
	if got := SeedsNeeded([]float64{1, 1}, -1, 1, 0.05, excludes0, 6); got != 7 {
		t.Errorf("constant difference 1 with max 6: %d, want 7 (max+1: not within max)", got)
	}
	if got := SeedsNeeded(nil, -1, 1, 0.05, excludes0, max); got != max+1 {
		t.Errorf("no values: %d, want %d", got, max+1)
	}
}
