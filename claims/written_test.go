package claims

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPaperOrderWithoutPair: a paper_order claim that leaves no pair to judge (the paper's
// numbers tie, or every gap is below min_gap) is one untested row saying why, in the opening
// table and its detail, and counted, instead of vanishing from the document and the counts.
func TestPaperOrderWithoutPair(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ claim, why string }{
		"tie":     {"cells: [{task: copy, scheme: kerple, paper_value: 0.4}, {task: copy, scheme: alibi, paper_value: 0.4}]", "no two of its cells have paper numbers that differ over the claim's lengths"},
		"min_gap": {"min_gap: 0.3, cells: [{task: copy, scheme: kerple, paper_value: 0.6}, {task: copy, scheme: alibi, paper_value: 0.4}]", "every pair the paper ranks has a paper gap below min_gap 0.3"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".yaml")
			os.WriteFile(path, []byte("title: t\ntables: [{name: t, csv: "+abs(t, "testdata/tiny.csv")+"}]\n"+
				"statistic: {metric: exact_match, past_training: 2, learned: 0.9}\nclaims:\n  - {id: o, kind: paper_order, "+tc.claim+"}\n"), 0o644)
			j, err := judgeFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if n := counts(j); n[Untested] != 1 || len(n) != 1 {
				t.Errorf("counts %v, want 1 untested", n)
			}
			row := "| copy: the paper's order of kerple, alibi | – | – | untested (" + tc.why + ") |\n"
			detail := "| copy: the paper's order of kerple, alibi | – | – | – | untested (" + tc.why + ") |\n"
			if doc := Render(j, "test"); !strings.Contains(doc, row) || !strings.Contains(doc, detail) {
				t.Errorf("the document lacks the untested row %q or its detail %q:\n%s", row, detail, doc)
			}
		})
	}
}

// TestChanceAgreesWithGrid: a table whose chance columns are what guessing scores on its grid's
// task set-up is read (testdata/bad/table_chance.yaml is the same table with one row changed,
// refused naming it).
func TestChanceAgreesWithGrid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(path, []byte("title: t\ntables: [{name: t, csv: "+abs(t, "testdata/tiny.csv")+", grid: "+abs(t, "testdata/csv/tiny_grid.yaml")+"}]\n"+
		"statistic: {metric: exact_match, past_training: 2, learned: 0.9}\nclaims:\n  - {id: r, kind: ranking, a: {task: copy, scheme: kerple}, b: {task: copy, scheme: alibi}}\n"), 0o644)
	if _, err := judgeFile(path); err != nil {
		t.Fatal(err)
	}
}
