package metric_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/posformer/posformer/claims"
	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/report"
	"github.com/posformer/posformer/setup"
	"github.com/posformer/posformer/train"
)

// firstToken is a metric declared here alone: the fraction of answers whose first output token
// is right. Guessing gets it right as often as any one token.
const firstToken = "first_token"

func init() {
	metric.Register(metric.Metric{Name: firstToken, Kinds: []string{data.KindSequence},
		Chance: func(g metric.Guess) float64 { return g.Token },
		Score: func(a metric.Answer) (int, int) {
			if len(a.Target) > 0 && a.Pred[0] == a.Target[0] {
				return 1, 1
			}
			return 0, 1
		}})
}

const proofGrid = `name: proof
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 60, batch_size: 8, lr: 0.003, val_every: 10, early_stop: {patience: 5, metric: first_token}}
eval: {lengths: "1..8", examples: 8}
sweep:
  position.kind: [rope, none]
  seed: [1, 2]
`

// TestNewMetricEverywhere: a metric registered in this file alone is an early-stopping field,
// a column of every run's results.csv, of the report's summary.csv and of the per-seed table,
// and the statistic a claim is judged in; no other file names it.
func TestNewMetricEverywhere(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "proof.yaml")
	if err := os.WriteFile(path, []byte(proofGrid), 0o644); err != nil {
		t.Fatal(err)
	}
	// The early-stopping field: accepted, and a metric nobody registered is refused by a
	// message that lists the new one.
	if _, _, err := config.Read(nil, path, []string{"train.early_stop.metric=nothing"}); err == nil ||
		!strings.Contains(err.Error(), `want exact_match, token_accuracy or first_token, got "nothing"`) {
		t.Fatalf("an unknown early-stopping metric: %v", err)
	}
	cfg, cells, err := config.Read(nil, path, []string{"out=" + filepath.Join(dir, "runs")})
	if err != nil {
		t.Fatal(err)
	}
	checked, err := setup.CheckGrid(cfg, cells)
	if err != nil {
		t.Fatal(err)
	}
	ran, err := grid.Train(context.Background(), checked, grid.Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	g, err := grid.Load(ran.Dir)
	if err != nil || len(g.Missing) > 0 {
		t.Fatalf("%v, missing %v", err, g.Missing)
	}
	distinct := false
	inRange := map[string][]float64{} // per scheme, each seed's in-range mean of first_token
	for i, run := range g.Runs {
		r, runDir := run.Result, filepath.Join(ran.Dir, g.Cells[i].Name)
		// Early stopping compared first_token: the best score is the validation first_token of
		// the best checkpoint, validated again from it.
		if v, err := train.ValidationScore(runDir, firstToken); err != nil || r.BestStep == 0 || v != r.BestScore {
			t.Errorf("%s: best validation score %v at step %d, first_token validated again %v (%v)", r.Name, r.BestScore, r.BestStep, v, err)
		}
		recs := readCSV(t, filepath.Join(runDir, "results.csv"))
		col := slices.Index(recs[0], firstToken)
		if col < 0 || len(recs) != len(r.Lengths)+1 {
			t.Fatalf("%s: results.csv %v has no column %s", r.Name, recs[0], firstToken)
		}
		for j, l := range r.Lengths {
			if x, ok := l.Scores[firstToken]; !ok || recs[j+1][col] != strconv.FormatFloat(x, 'g', -1, 64) {
				t.Errorf("%s length %d: results.csv %s, results.json %v", r.Name, l.Length, recs[j+1][col], x)
			}
		}
		in, beyond := r.Summary(firstToken)
		inRange[r.Scheme] = append(inRange[r.Scheme], in)
		exact, _ := r.Summary(metric.ExactMatch)
		token, _ := r.Summary(metric.TokenAccuracy)
		t.Logf("%s: in range first_token %.3f, exact %.3f, token %.3f; beyond first_token %.3f; best validation first_token %.3f at step %d",
			r.Name, in, exact, token, beyond, r.BestScore, r.BestStep)
		distinct = distinct || in != exact && in != token
	}
	if !distinct {
		t.Fatal("first_token equals exact match or token accuracy in every run: the test cannot tell the metrics apart")
	}

	// The report's summary: in_range_first_token_mean, the mean over seeds.
	if _, err := report.Write(g); err != nil {
		t.Fatal(err)
	}
	sum := readCSV(t, filepath.Join(ran.Dir, "report", "summary.csv"))
	col := slices.Index(sum[0], "in_range_"+firstToken+"_mean")
	if col < 0 || len(sum) != 3 {
		t.Fatalf("summary.csv: %v", sum)
	}
	for _, rec := range sum[1:] {
		want := stats.NewStat(inRange[rec[1]]).Mean
		if got, err := strconv.ParseFloat(rec[col], 64); err != nil || math.Abs(got-want) > 1e-15 {
			t.Errorf("summary.csv, %s: in-range first_token %s, want %v", rec[1], rec[col], want)
		}
	}

	// A claim judged in first_token, from the grid's per-seed table.
	table, err := claims.Export(filepath.Join(dir, "runs"), claims.Table{Name: "t", Grid: path})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(bytes.SplitN(table, []byte("\n"), 2)[0], []byte(","+firstToken+",")) {
		t.Fatalf("the per-seed table's header lacks %s: %s", firstToken, bytes.SplitN(table, []byte("\n"), 2)[0])
	}
	csvPath, claimsPath := filepath.Join(dir, "t.csv"), filepath.Join(dir, "claims.yaml")
	os.WriteFile(csvPath, table, 0o644)
	os.WriteFile(claimsPath, []byte(`title: proof
tables:
  - {name: t, csv: `+csvPath+`}
statistic: {metric: first_token, in_range: true, learned: 0}
claims:
  - {id: r, kind: ranking, a: {task: copy, scheme: rope}, b: {task: copy, scheme: none}}
`), 0o644)
	f, err := claims.Load(claimsPath)
	if err != nil {
		t.Fatal(err)
	}
	j, err := claims.Judge(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	row := j.Claims[0].Rows[0]
	t.Logf("%s: ours %s, %s", row.Text, row.Ours, row.Verdict)
	iv := stats.Welch(inRange["rope"], inRange["none"], stats.Level) // from the runs' own first_token
	want := fmt.Sprintf("%+.3f [%+.3f, %+.3f]", iv.Diff, iv.Lo, iv.Hi)
	if iv.Diff == 0 || row.Ours != want || row.Verdict == "" {
		t.Errorf("rope > none in first_token: ours %q, verdict %q; want %s", row.Ours, row.Verdict, want)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}
