package claims

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShapeNeedsEvidence: a shape claim is decided by evidence, not by its absence. Cells
// trained on 1..4 and tested on 1..8 (100 answers a length, chance ≈ 0):
//   - perfect: every seed scores 1 everywhere;
//   - zero: 1 in range, 0 past 4 (every seed);
//   - split: 1 in range, past 4 one seed 0.9 and two 0.05 (not shown above chance, not at
//     chance either).
//
// Three seeds a cell: with two, t's one degree of freedom times the runs' sampling error on 100
// examples leaves even seeds at 0 not shown within 0.05 of chance.
//
// Falls by k·L needs the score within noise of chance at every tested length past k·L; stays
// above to k·L is contradicted only where the score is within noise of chance; and k·L past the
// tested lengths is untested, never judged.
func TestShapeNeedsEvidence(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("task,scheme,variant,seed,length,in_range,exact_match,token_accuracy,n,lr,steps,best_step,stop_step,train_min_len,train_max_len,chance_exact,chance_token,best_val_score\n")
	score := map[string]func(seed, L int) float64{
		"none":  func(int, int) float64 { return 1 },
		"alibi": func(_, L int) float64 { return map[bool]float64{true: 1, false: 0}[L <= 4] },
		"kerple": func(s, L int) float64 {
			return map[bool]float64{true: 1, false: []float64{0.9, 0.05, 0.05}[s-1]}[L <= 4]
		},
	}
	for _, scheme := range []string{"alibi", "kerple", "none"} {
		for seed := 1; seed <= 3; seed++ {
			for L := 1; L <= 8; L++ {
				x := score[scheme](seed, L)
				fmt.Fprintf(&csv, "copy,%s,,%d,%d,%v,%g,%g,100,0.001,100,0,0,1,4,1e-9,0.125,0\n", scheme, seed, L, L <= 4, x, x)
			}
		}
	}
	table := filepath.Join(dir, "s.csv")
	if err := os.WriteFile(table, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ claim, want string }{
		{"falls_by: 1, cells: [{task: copy, scheme: alibi}]", Reproduced},
		{"falls_by: 1, cells: [{task: copy, scheme: kerple}]", Inconclusive},
		{"falls_by: 1, cells: [{task: copy, scheme: none}]", Contradicted + " (above chance at 5)"},
		{"falls_by: 2, cells: [{task: copy, scheme: none}]", Untested + " (no tested length past 2·4 = 8: the longest is 8)"},
		{"falls_by: 3, cells: [{task: copy, scheme: alibi}]", Untested + " (no tested length past 3·4 = 12: the longest is 8)"},
		{"stays_above: 2, cells: [{task: copy, scheme: none}]", Reproduced},
		{"stays_above: 2, cells: [{task: copy, scheme: alibi}]", Contradicted + " (at chance at 5)"},
		{"stays_above: 2, cells: [{task: copy, scheme: kerple}]", Inconclusive},
		{"stays_above: 3, cells: [{task: copy, scheme: none}]", Untested + " (no tested length past 3·4 = 12: the longest is 8)"},
		{"stays_above: 1e300, cells: [{task: copy, scheme: none}]", Untested},
	}
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprintf("s%d.yaml", i))
		src := "title: s\ntables: [{name: t, csv: " + table + "}]\nstatistic: {metric: exact_match, past_training: 0, learned: 0.9}\nclaims:\n  - {id: s, kind: shape, " + c.claim + "}\n"
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		j, err := judgeFile(path)
		if err != nil {
			t.Fatalf("%s: %v", c.claim, err)
		}
		if got := j.Claims[0].Rows[0].Verdict; !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want %q", c.claim, got, c.want)
		}
	}
}
