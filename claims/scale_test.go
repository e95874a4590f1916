package claims

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scaleTable writes a per-seed table of two cells (copy · alibi, copy · none), each with runs
// runs tested at lengths 1..lengths (trained on 1..8), and a claims file ranking them and
// claiming their shape; it returns the claims file's path and the table's rows.
func scaleTable(tb testing.TB, runs, lengths int) (string, int) {
	dir := tb.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("task,scheme,variant,seed,length,in_range,exact_match,token_accuracy,n,lr,steps,best_step,stop_step,train_min_len,train_max_len,chance_exact,chance_token,best_val_score\n")
	rows := 0
	for seed := 1; seed <= runs; seed++ {
		for _, scheme := range []string{"alibi", "none"} {
			chance := 1.0
			for L := 1; L <= lengths; L++ {
				chance /= 8
				fmt.Fprintf(&b, "copy,%s,,%d,%d,%v,%.3f,%.3f,32,0.001,100,0,0,1,8,%g,0.125,0\n", scheme, seed, L, L <= 8, rng.Float64(), rng.Float64(), chance)
				rows++
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "big.csv"), []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	cl := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(cl, []byte(`title: big
tables:
  - {name: t, csv: big.csv, summary: true}
statistic: {metric: exact_match, past_training: 2, learned: 0}
claims:
  - {id: a, kind: ranking, a: {task: copy, scheme: alibi}, b: {task: copy, scheme: none}}
  - {id: s, kind: shape, falls_by: 2, cells: [{task: copy, scheme: alibi}]}
`), 0o644); err != nil {
		tb.Fatal(err)
	}
	return cl, rows
}

// BenchmarkClaimsScale reads, judges and renders a table of two cells at 250, 1,000 and 4,000
// runs a cell of 16 lengths, and at 16 runs of 64, 256 and 1,024 lengths (issue 35 point 8: the
// time grew with the square of the runs per cell; extrapolates to, with the square of the
// lengths). ns/row stays about flat when the work is linear in the rows:
//
//	go test ./claims -run '^$' -bench ClaimsScale -benchtime 3x
func BenchmarkClaimsScale(b *testing.B) {
	for _, n := range [][2]int{{250, 16}, {1000, 16}, {4000, 16}, {16, 64}, {16, 256}, {16, 1024}} {
		b.Run(fmt.Sprintf("runs=%d/lengths=%d", n[0], n[1]), func(b *testing.B) {
			path, rows := scaleTable(b, n[0], n[1])
			b.ResetTimer()
			for range b.N {
				j, err := judgeFile(path)
				if err != nil {
					b.Fatal(err)
				}
				Render(j, "go run ./cmd/train claims")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
		})
	}
}
