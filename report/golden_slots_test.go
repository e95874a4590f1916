package report

import (
	"strings"
	"testing"

	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/metric"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/train"
)

// slotsFixture is a grid in the slots format (Protocol B's layout): reverse, plain and
// randomized sinusoidal, two seeds.
const slotsFixture = `name: slots
task: {name: reverse, symbols: 2, min_len: 1, max_len: 4, format: slots}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32, bidirectional: true}
train: {steps: 10, batch_size: 4}
eval: {lengths: "1..8", examples: 100000}
sweep:
  position:
    - {kind: sinusoidal}
    - {kind: sinusoidal, randomized: true, max_random: 64}
  seed: [1, 2]
`

// slotsScores: exact match and token accuracy differ, so a table headlining the wrong one shows.
// In range both learn (exact 0.9, token 0.98); past 4, exact match is 0 for both, token
// accuracy 0.5 (chance) plain and 0.6 + 0.1·seed randomized.
func slotsScores(c config.Config, L int) (exact, token float64) {
	switch {
	case L <= 4:
		return 0.9, 0.98
	case c.Position.Randomized:
		return 0, 0.6 + 0.1*float64(c.Seed)
	}
	return 0, 0.5
}

// slotsGrid writes the fixture grid under dir with slotsScores and the summary fields a run
// computes from its lengths.
func slotsGrid(t *testing.T, dir string) *grid.Grid {
	t.Helper()
	g := fixtureGrid(t, dir, slotsFixture, func(c config.Config, L int) float64 { e, _ := slotsScores(c, L); return e })
	return rewriteResults(t, g, func(c config.Config, r *train.Result) {
		for i, l := range r.Lengths {
			e, tok := slotsScores(c, l.Length)
			r.Lengths[i].Scores[metric.ExactMatch], r.Lengths[i].Scores[metric.TokenAccuracy] = e, tok
		}
	})
}

// TestReportGoldenSlots: a grid in the slots format headlines token accuracy, Protocol B's
// metric, in report.md (summary and by-length tables), in summary.csv (the in_range_*/beyond_*
// columns, metric token_accuracy) and in the table the CLI prints, with exact match kept in its
// own columns; compared with testdata/golden_slots (-update rewrites them).
func TestReportGoldenSlots(t *testing.T) {
	g := slotsGrid(t, t.TempDir())
	rep, err := Write(g)
	if err != nil {
		t.Fatal(err)
	}
	sums := rep.Summaries
	if len(sums) != 2 || sums[1].Metric != metric.TokenAccuracy {
		t.Fatalf("summaries: %+v", sums)
	}
	// randomized: beyond token accuracy 0.7 and 0.8 by seed, exact match 0.
	if in, beyond := sums[1].Headline(); in.Mean != 0.98 || beyond.Mean != 0.75 || sums[1].Beyond[metric.ExactMatch].Mean != 0 {
		t.Errorf("randomized headline in %v beyond %v, exact beyond %v: want token 0.98, 0.75 and exact 0", in.Mean, beyond.Mean, sums[1].Beyond[metric.ExactMatch].Mean)
	}
	table := SummaryTable(sums)
	for _, want := range []string{"in-range token accuracy | beyond token accuracy", "| reverse | sinusoidal | randomized=true,max_random=64 | 2 | 1..4 | 0.980 ± 0.000 | 0.750 ± 0.071 | [0.700, 0.800] | 0.900 ± 0.000 | 0.000 ± 0.000 |"} {
		if !strings.Contains(table, want) {
			t.Errorf("summary table lacks %q:\n%s", want, table)
		}
	}
	compareGolden(t, rep.Dir, g.Dir, "golden_slots", "TestReportGoldenSlots")
}
