package claims

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPaperOrderDirection (W3): paper_order reads the paper's numbers in the metric's direction.
// In bits per byte (lower is better) paper values alibi 3 < sinusoidal 4 put alibi ahead: the
// pair is "alibi > sinusoidal", reproduced on the lm fixture where alibi is lower past training
// (as the plain ranking in the same file says), never "sinusoidal > alibi" contradicted.
func TestPaperOrderDirection(t *testing.T) {
	dir := t.TempDir()
	src := `title: paper order in a metric's direction
tables: [{name: t, csv: ` + abs(t, "testdata/lm/lm.csv") + `}]
statistic: {metric: bits_per_byte, past_training: 0, learned: 8, ours: best}
claims:
  - id: order
    kind: paper_order
    cells: [{task: lm, scheme: alibi, paper_value: 3}, {task: lm, scheme: sinusoidal, paper_value: 4}]
  - {id: rank, kind: ranking, a: {task: lm, scheme: alibi}, b: {task: lm, scheme: sinusoidal}}
`
	path := filepath.Join(dir, "order.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := judgeFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Comparison{}
	for _, o := range j.Claims {
		if len(o.Rows) != 1 {
			t.Fatalf("%s: %d rows, want 1", o.Claim.ID, len(o.Rows))
		}
		got[o.Claim.ID] = o.Rows[0]
	}
	if got["order"].A == nil || got["order"].A.k.Scheme != "alibi" || got["order"].Verdict != got["rank"].Verdict || got["rank"].Verdict != Reproduced {
		t.Errorf("paper_order %q (A %v) %s; ranking %q %s: want alibi ahead, reproduced by both", got["order"].Text, got["order"].A, got["order"].Verdict, got["rank"].Text, got["rank"].Verdict)
	}
}
