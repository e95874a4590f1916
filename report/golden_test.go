package report

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/grid"
)

var update = flag.Bool("update", false, "rewrite testdata/grid (the fixture) and the golden files of testdata/golden")

// goldenFixture is the grid of testdata/grid: three schemes, two seeds, known scores.
const goldenFixture = `name: golden
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 10, batch_size: 4}
eval: {lengths: "1..8", examples: 10}
sweep:
  position.kind: [alibi, rope, learned]
  seed: [1, 2]
`

// goldenScores: every scheme learns copy in range (rope 0.9 at length 4); past 4, alibi
// 0.5/0.6 by seed, rope 0.2 falling to 0, learned 0.
func goldenScores(c config.Config, L int) float64 {
	switch k := c.Position.Kind; {
	case L <= 4 && k == "rope" && L == 4:
		return 0.9
	case L <= 4:
		return 1
	case k == "alibi":
		return 0.4 + 0.1*float64(c.Seed)
	case k == "rope":
		return max(0, 0.2-0.05*float64(L-5))
	}
	return 0
}

// TestReportGolden writes the report of the fixture grid in testdata/grid (a finished grid as
// runs leave it, nothing trained) and compares report.md, summary.csv and by_length.csv with
// testdata/golden (go test ./report -run TestReportGolden -update rewrites the fixture and the
// goldens).
func TestReportGolden(t *testing.T) {
	fixture := filepath.Join("testdata", "grid")
	if *update {
		if err := os.RemoveAll(fixture); err != nil {
			t.Fatal(err)
		}
		tmp := t.TempDir()
		g := fixtureGrid(t, tmp, goldenFixture, goldenScores)
		if err := os.CopyFS(fixture, os.DirFS(g.Dir)); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "golden")
	if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
		t.Fatalf("%v (go test ./report -run TestReportGolden -update writes the fixture)", err)
	}
	g, err := grid.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Cells) != 6 || len(g.Missing) != 0 {
		t.Fatalf("fixture: %d cells, missing %v", len(g.Cells), g.Missing)
	}
	rep, err := Write(g)
	if err != nil {
		t.Fatal(err)
	}
	compareGolden(t, rep.Dir, dir, "golden", "TestReportGolden")
}

// compareGolden checks a report directory's report.md, summary.csv and by_length.csv, with the
// grid's path written as GRID, against testdata/<sub>/ (-update rewrites them).
func compareGolden(t *testing.T, reportDir, gridDir, sub, test string) {
	t.Helper()
	for _, name := range []string{"report.md", "summary.csv", "by_length.csv"} {
		got, err := os.ReadFile(filepath.Join(reportDir, name))
		if err != nil {
			t.Fatal(err)
		}
		got = []byte(strings.ReplaceAll(string(got), gridDir, "GRID"))
		golden := filepath.Join("testdata", sub, name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test ./report -run %s -update writes it)", err, test)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from %s (-update rewrites it after a deliberate change):\n%s", name, golden, got)
		}
	}
}
