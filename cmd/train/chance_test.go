package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/stats"
)

// TestClaimsChanceBaseline: a tiny grid on stack_manipulation, whose answers are zero-padded,
// exported and judged. Its chance columns are the task's baseline (the best constant answer's
// score, data.BaselineOf), not the uniform guess over its 3 output values; the two cells, which
// after 150 steps score about what the best constant answer scores, are judged inconclusive (chance),
// where the uniform 1/3 would call them clearly above chance and compare them. Four seeds a cell:
// with two, t's single degree of freedom times the runs' sampling error (64 examples a length)
// leaves the interval too wide to show either cell within noise of the baseline.
func TestClaimsChanceBaseline(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	cfg := writeFile(t, filepath.Join(dir, "stack.yaml"), `name: stack
task: {name: stack_manipulation, min_len: 1, max_len: 6}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 150, batch_size: 16, lr: 0.01, val_every: 0}
eval: {lengths: "2..8", examples: 64}
sweep:
  position.kind: [alibi, none]
  seed: [1, 2, 3, 4]
`)
	file := writeFile(t, filepath.Join(dir, "stack-claims.yaml"), `title: stack
tables: [{name: t, csv: stack.csv, grid: stack.yaml, summary: true}]
statistic: {metric: token_accuracy, past_training: 0, learned: 0}
claims:
  - {id: r, kind: ranking, a: {task: stack_manipulation, scheme: alibi}, b: {task: stack_manipulation, scheme: none}}
`)
	if err := runCaught("-config", cfg, "-out", runs, "-jobs", "2"); err != nil {
		t.Fatal(err)
	}
	if err := runCaught("claims", "-export", "-runs", runs, file); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "stack.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	task, _ := data.New("stack_manipulation", data.Options{})
	var scores []float64 // past training, every run
	for _, r := range rows[1:] {
		L, _ := strconv.Atoi(r[col["length"]])
		b, _ := data.BaselineOf(task, L)
		if r[col["chance_token"]] != strconv.FormatFloat(b.Token, 'g', -1, 64) || r[col["chance_exact"]] != strconv.FormatFloat(b.Exact, 'g', -1, 64) {
			t.Errorf("length %d: chance %s, %s; want the baseline %v, %v (the uniform guess: 1/3, 3^-%d)",
				L, r[col["chance_exact"]], r[col["chance_token"]], b.Exact, b.Token, L+1)
		}
		if tok, _ := strconv.ParseFloat(r[col["token_accuracy"]], 64); L > 6 {
			scores = append(scores, tok)
		}
	}
	if len(rows) != 1+8*7 {
		t.Errorf("the table has %d rows, want a header and 8 runs × 7 lengths", len(rows))
	}
	// the point of the baseline: these scores clear the uniform guess by far
	if !stats.AboveChance(scores, nil, 1.0/3) {
		t.Errorf("the runs' token accuracies past training %v are not clearly above 1/3: the test no longer shows the difference", scores)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "stack-claims.md"))
	want := "| stack_manipulation: alibi > none | – |"
	var line string
	for _, l := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(l, want) {
			line = l
			break
		}
	}
	if !strings.HasSuffix(line, "| inconclusive (chance) |") {
		t.Errorf("the claim's row %q is not inconclusive (chance):\n%s", line, md)
	}
}
