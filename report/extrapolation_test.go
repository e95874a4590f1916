package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/metric"
)

// extrapFixture: parity (decoder format, one answer token: chance 0.5 for exact match) and copy,
// trained on 1..8, tested on 1..16, three seeds; 100,000 examples a length, so that the runs'
// sampling error (the floor of the intervals) is negligible beside the seeds' spread.
const extrapFixture = `name: extrap
task: {min_len: 1, max_len: 8}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 10, batch_size: 4}
eval: {lengths: "1..16", examples: 100000}
sweep:
  task.name: [parity, copy]
  position.kind: [rope]
  seed: [1, 2, 3]
`

// extrapScores: parity at chance everywhere (0.49, 0.50, 0.51 by seed, so mean exact match ≥ 0.5
// at every length, which the old rule read as "extrapolates to 16"); copy learned in range and
// falling past 8 by 0.2 per length around 0.9 at 9 (±0.01 by seed): means 0.9, 0.7, 0.5, 0.3,
// 0.1 at 9..13, then 0. Clearly above chance (lower end of the 95% interval, half-width
// 4.303·0.01/√3 = 0.025, above 0.05) up to 13; the old rule (mean ≥ 0.5) said 11.
func extrapScores(c config.Config, L int) float64 {
	d := 0.01 * float64(int(c.Seed)-2)
	switch {
	case c.Task.Name == "parity":
		return 0.5 + d
	case L <= 8:
		return 1
	}
	return max(0, 0.9-0.2*float64(L-9)+d)
}

// TestExtrapolatesToChanceRule: the run report's "extrapolates to" is the chance rule of
// the claims engine, computed by one function (stats.ExtrapolatesTo): parity at chance gets none
// ("–" in the table, 0 in summary.csv), copy gets 13, and the claims code (SeedCell, in the
// same metric) gives the same answer for every group.
func TestExtrapolatesToChanceRule(t *testing.T) {
	g := fixtureGrid(t, t.TempDir(), extrapFixture, extrapScores)
	rep, err := Write(g)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"parity": 0, "copy": 13}
	if len(rep.Summaries) != 2 {
		t.Fatalf("summaries: %+v", rep.Summaries)
	}
	for _, s := range rep.Summaries {
		if s.ExtrapLength != want[s.Task] {
			t.Errorf("%s: report extrapolates to %d, want %d", s.Task, s.ExtrapLength, want[s.Task])
		}
	}
	// The table's last two columns (the fixture leaves the runs' in-range and beyond means unset).
	ends := map[string]string{"| parity | rope |": "| – | – |", "| copy | rope |": "| 13 | 1.62 |"}
	for _, line := range strings.Split(SummaryTable(rep.Summaries), "\n") {
		for start, end := range ends {
			if strings.HasPrefix(line, start) {
				if !strings.HasSuffix(line, end) {
					t.Errorf("summary row %q does not end with %q", line, end)
				}
				delete(ends, start)
			}
		}
	}
	if len(ends) > 0 {
		t.Errorf("summary table lacks rows %v", ends)
	}
}

// TestExtrapolatesToSlotsSameAnswer: in the slots format the headline is token accuracy, and the
// report's "extrapolates to" is the claims code's in that metric (chance 1/2 per token for
// reverse with 2 symbols): the plain cell at chance past 4 stops at 4, the randomized cell
// (0.7/0.8 by seed, two seeds: a 95% interval too wide to clear chance + 0.05) too, while exact
// match (0 past 4) is not what decides.
func TestExtrapolatesToSlotsSameAnswer(t *testing.T) {
	g := slotsGrid(t, t.TempDir())
	sums, _, err := Aggregate(g.Cells, g.Results())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sums {
		if s.Metric != metric.TokenAccuracy {
			t.Fatalf("%s: metric %s", s.Group, s.Metric)
		}
		if s.ExtrapLength != 4 {
			t.Errorf("%s: report extrapolates to %d, want 4 (the claims engine's cross-check: claims/engine_test.go)", s.Group, s.ExtrapLength)
		}
	}
}

// TestSummaryCSVMissingIsEmpty: a group with no in-range length (every tested length past
// max_len) has no in-range mean: summary.csv leaves those fields empty, as other tools read a
// missing value, and never writes NaN (nor does by_length.csv).
func TestSummaryCSVMissingIsEmpty(t *testing.T) {
	src := strings.Replace(extrapFixture, `lengths: "1..16"`, `lengths: "9..12"`, 1)
	g := fixtureGrid(t, t.TempDir(), src, extrapScores)
	// as train writes a run with no in-range length: its in-range summaries null (NaN when read)
	runs, _ := filepath.Glob(filepath.Join(g.Dir, "*", "results.json"))
	for _, p := range runs {
		var res map[string]any
		b, _ := os.ReadFile(p)
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		res["in_range_exact_match"], res["in_range_token_accuracy"] = nil, nil
		b, _ = json.Marshal(res)
		os.WriteFile(p, b, 0o644)
	}
	g, err := grid.Load(g.Dir)
	if err != nil || len(runs) != 6 {
		t.Fatalf("%v (%d runs)", err, len(runs))
	}
	if _, err := Write(g); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"summary.csv", "by_length.csv"} {
		b, err := os.ReadFile(filepath.Join(g.Dir, "report", name))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(bytes.ToLower(b), []byte("nan")) {
			t.Errorf("%s writes NaN:\n%s", name, b)
		}
	}
	b, _ := os.ReadFile(filepath.Join(g.Dir, "report", "summary.csv"))
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("summary.csv: %v, %d rows:\n%s", err, len(rows), b)
	}
	col := slices.Index(rows[0], "in_range_mean")
	beyond := slices.Index(rows[0], "beyond_mean")
	for _, r := range rows[1:] {
		if r[col] != "" || r[beyond] == "" {
			t.Errorf("%s: in_range_mean %q (want empty), beyond_mean %q (want a number)", r[0], r[col], r[beyond])
		}
	}
}
