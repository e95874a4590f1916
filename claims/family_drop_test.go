package claims

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"
)

// TestFamilyNeverPairsACellWithItself (S2): a family's A cell whose variant holds none of drop:'s
// options has no twin (dropping nothing leaves it as it is): it is left out, never judged against
// itself. Here alibi (log_scaling=0.43, randomized=true) pairs with alibi (log_scaling=0.43), and
// alibi (log_scaling=0.43), which also holds where:'s options, is left out; the family then has
// one pair. (A family all of whose cells hold none of drop:'s options is refused:
// testdata/bad/family_drop_not_held.)
func TestFamilyNeverPairsACellWithItself(t *testing.T) {
	dir := t.TempDir()
	in, err := os.Open("testdata/family_variants.csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(in).ReadAll()
	in.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := [][]string{rows[0]}
	for _, r := range rows[1:] {
		if r[2] == "log_scaling=0.43" {
			twin := append([]string(nil), r...)
			twin[2] = "log_scaling=0.43,randomized=true"
			out = append(out, twin)
		}
		out = append(out, r)
	}
	table := filepath.Join(dir, "t.csv")
	f, _ := os.Create(table)
	csv.NewWriter(f).WriteAll(out)
	f.Close()
	src := `title: family
tables: [{name: t, csv: ` + table + `}]
statistic: {metric: exact_match, past_training: 2, learned: 0.9}
claims:
  - {id: f, kind: family, where: log_scaling=0.43, drop: [randomized]}
`
	path := filepath.Join(dir, "f.yaml")
	os.WriteFile(path, []byte(src), 0o644)
	j, err := judgeFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o := j.Claims[0]
	if len(o.Rows) != 1 {
		t.Fatalf("%d pairs, want 1: %v", len(o.Rows), o.Rows)
	}
	if a, b := o.Rows[0].A.k, o.Rows[0].B.k; a.Variant != "log_scaling=0.43,randomized=true" || b.Variant != "log_scaling=0.43" {
		t.Errorf("the pair is %v against %v", a, b)
	}
}
