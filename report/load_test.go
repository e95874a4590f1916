package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/grid"
)

// TestLoadRunWithoutMetrics: a finished run (results.json) whose metrics.jsonl is gone is still
// a finished run: it is loaded with its results and reported (without a loss curve), not counted
// as missing.
func TestLoadRunWithoutMetrics(t *testing.T) {
	dir := fixture(t)
	if err := os.Remove(filepath.Join(dir, "metrics.jsonl")); err != nil {
		t.Fatal(err)
	}
	g, err := grid.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Missing) != 0 || len(g.Runs) != 1 || g.Runs[0] == nil || g.Runs[0].Result == nil {
		t.Fatalf("missing %v, runs %v: a finished run without its log was dropped", g.Missing, g.Runs)
	}
	if len(g.Runs[0].Metrics) != 0 {
		t.Errorf("%d metrics from a removed log", len(g.Runs[0].Metrics))
	}
	rep, err := Write(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Summaries) == 0 {
		t.Fatal("no summary row for the run")
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report", "report.md"))
	if strings.Contains(string(md), "loss_copy") {
		t.Error("a loss plot without a training log")
	}
}
