package claims

import (
	"math"
	"strings"
	"testing"
)

// TestFamilyHeadlineOverJudgedPairs: a family's headline is the mean over the pairs that could
// be judged; an untested pair (one side not learned in range) says nothing about the claim, so
// its gain is shown beside, in the mean over all pairs, and never moves the verdict.
func TestFamilyHeadlineOverJudgedPairs(t *testing.T) {
	c := &Claim{Text: "randomized helps"}
	pair := func(verdict string, gain float64) Comparison { return Comparison{Verdict: verdict, gain: gain} }
	cases := []struct {
		name          string
		rows          []Comparison
		ours, verdict string
	}{
		{"an untested pair's loss does not sink the judged ones",
			[]Comparison{pair(Reproduced, 0.10), pair(Inconclusive, 0.02), pair(Untested+" (x not learned in range: 0.2)", -0.50)},
			"+6.0 points (mean over the 2 judged pairs of A − B in the paper's statistic; -12.7 points over all 3 pairs); the pairs: 1 reproduced, 0 contradicted, 1 inconclusive, 1 untested",
			Reproduced + " in the 2 of 3 pairs that could be judged (1 untested)"},
		{"an untested pair's gain does not lift the judged ones",
			[]Comparison{pair(Inconclusive, -0.04), pair(Reproduced, 0.01), pair(Untested+" (x not learned in range: 0.2)", 0.90)},
			"-1.5 points (mean over the 2 judged pairs of A − B in the paper's statistic; +29.0 points over all 3 pairs); the pairs: 1 reproduced, 0 contradicted, 1 inconclusive, 1 untested",
			Inconclusive},
		{"a diverged pair has no gain: neither mean counts it",
			[]Comparison{pair(Reproduced, 0.10), pair(Untested+" (x diverged: seed 2 at step 130)", math.NaN()), pair(Untested+" (y not learned in range: 0.2)", -0.30)},
			"+10.0 points (mean over the 1 judged pair of A − B in the paper's statistic; -10.0 points over the 2 pairs that did not diverge); the pairs: 1 reproduced, 0 contradicted, 0 inconclusive, 2 untested",
			Reproduced + " in the 1 of 3 pairs that could be judged (2 untested)"},
		{"every pair judged: one mean",
			[]Comparison{pair(Reproduced, 0.10), pair(Reproduced, 0.20)},
			"+15.0 points (mean over 2 pairs of A − B in the paper's statistic); the pairs: 2 reproduced, 0 contradicted, 0 inconclusive, 0 untested",
			Reproduced},
		{"no pair judged: the mean over all, untested",
			[]Comparison{pair(Untested+" (a)", 0.10), pair(Untested+" (b)", 0.30)},
			"+20.0 points (mean over 2 pairs of A − B in the paper's statistic); the pairs: 0 reproduced, 0 contradicted, 0 inconclusive, 2 untested",
			Untested + " (no pair could be judged)"},
	}
	for _, tc := range cases {
		h := (&familyKind{}).headline(c, "token_accuracy", tc.rows)
		if h.Ours != tc.ours {
			t.Errorf("%s: ours\n got %q\nwant %q", tc.name, h.Ours, tc.ours)
		}
		if !strings.HasPrefix(h.Verdict, tc.verdict) || len(h.Verdict) != len(tc.verdict) {
			t.Errorf("%s: verdict %q, want %q", tc.name, h.Verdict, tc.verdict)
		}
	}
}
