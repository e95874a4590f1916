package claims

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestChooseRate judges the learning-rate fixture (testdata/lr): the table chosen computes each
// cell's rate from seed 1's best_val_score as select: does (0.001 for plain sinusoidal, 0.99
// against 0.80; 0.003 for randomized, 0.995 against 0.98; 0.001 for rope on a tie, the rate
// listed first), keeps each cell's runs at that rate, and counts seed 1 at 0.001 once although
// long and long_lr both hold it; the document (testdata/lr/lr.md) prints the choice and says so.
func TestChooseRate(t *testing.T) {
	j, _ := goldenDoc(t, "lr", "TestChooseRate")
	l := j.Tables["chosen"]
	got := map[string]float64{}
	for _, c := range l.choices {
		got[c.k.String()] = c.chosen
	}
	want := map[string]float64{"sinusoidal": 0.001, "sinusoidal (randomized=true,max_random=256)": 0.003, "rope": 0.001}
	for k, lr := range want {
		if got[k] != lr {
			t.Errorf("%s: chose %g, want %g (choices %v)", k, got[k], lr, got)
		}
	}
	for k, c := range l.cellsFor("token_accuracy") {
		var rates []float64
		for _, r := range c.rows {
			if !slices.Contains(rates, r.LR) {
				rates = append(rates, r.LR)
			}
		}
		if n := c.runs(); n != 3 || len(rates) != 1 || rates[0] != want[k.String()] {
			t.Errorf("%s: %d runs at rates %v; want 3 (seeds 1..3, seed 1 once) at %g", k, n, rates, want[k.String()])
		}
		if n := len(c.rows); n != 9 {
			t.Errorf("%s: %d rows; want 3 runs × 3 lengths, each once", k, n)
		}
	}
	if len(l.twice) != 3 || !strings.HasPrefix(l.twice[0], "reverse · sinusoidal, seed 1, lr 0.001 (long and long_lr)") {
		t.Errorf("runs held twice: %q", l.twice)
	}
}

// TestUnionRefusesDifferentBits: a run two tables of a union hold (seed 1 at lr 0.001, in long
// and long_lr) must agree in every column: a change of any one of them in long_lr's copy is
// refused, naming the column; the best_val_score that long.csv lacks is taken from long_lr.
func TestUnionRefusesDifferentBits(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "lr", "long_lr.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	header := strings.Split(lines[0], ",")
	first := strings.Split(lines[1], ",") // reverse,sinusoidal,,1,10,...,lr 0.001
	f, err := Load(filepath.Join("testdata", "lr", "lr.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	changed := map[string]string{"exact_match": "0.5", "token_accuracy": "0.75", "n": "31", "steps": "999", "best_step": "250",
		"stop_step": "700", "train_max_len": "21", "chance_token": "0.25", "diverged_step": "3"}
	for col, v := range changed {
		i := slices.Index(header, col)
		row := slices.Clone(first)
		row[i] = v
		if col == "train_max_len" {
			row[slices.Index(header, "in_range")] = "true"
		}
		mod := strings.Join(append([]string{lines[0], strings.Join(row, ",")}, lines[2:]...), "\n")
		_, err := Judge(f, map[string][]byte{f.Tables[1].CSV: []byte(mod)})
		// a column of the run's training differs from its other rows: the reader refuses it first (S3)
		ofRun := err != nil && strings.Contains(err.Error(), ": "+col+" is ") && strings.Contains(err.Error(), " but "+v+" at line 2;")
		if err == nil || !strings.Contains(err.Error(), "with different "+col+" (") && !ofRun {
			t.Errorf("%s changed in long_lr's copy of seed 1: %v", col, err)
		}
	}
	j, err := Judge(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range j.Tables["chosen"].rows {
		if r.Seed == 1 && r.LR == 0.001 && r.Scheme == "sinusoidal" && r.Variant == "" && r.BestScore != 0.99 {
			t.Errorf("seed 1 at 0.001: best_val_score %g, want long_lr's 0.99", r.BestScore)
		}
	}
}

// TestChooseSkipsDiverged: as select: does, a candidate rate whose seed run diverged is never
// chosen, whatever the validation score it logged before diverging, and the check's table shows
// it as diverged; a cell whose seed run diverged at every rate is refused.
func TestChooseSkipsDiverged(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "lr", "long_lr.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// plain sinusoidal's seed-1 runs at the given rates diverged at step 300, after logging 0.999
	diverge := func(rates ...string) string {
		lines := strings.Split(string(src), "\n")
		for i, l := range lines {
			f := strings.Split(l, ",")
			if strings.HasPrefix(l, "reverse,sinusoidal,,1,") && slices.Contains(rates, f[9]) {
				f[len(f)-2], f[len(f)-1] = "0.999", "300"
				lines[i] = strings.Join(f, ",")
			}
		}
		return strings.Join(lines, "\n")
	}
	judge := func(table string) (*Judged, error) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "t.csv"), []byte(table), 0o644)
		os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(`title: d
tables: [{name: t, csv: t.csv, choose: {by: best_val_score, seed: 1, lr: [0.001, 0.003]}}]
statistic: {metric: token_accuracy, past_training: 0, learned: 0.9}
`), 0o644)
		return judgeFile(filepath.Join(dir, "c.yaml"))
	}
	j, err := judge(diverge("0.003"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range j.Tables["t"].choices {
		if c.k.String() == "sinusoidal" && (c.chosen != 0.001 || !math.IsNaN(c.val[1])) {
			t.Errorf("sinusoidal: chose %g (scores %v); want 0.001, its 0.003 run diverged", c.chosen, c.val)
		}
	}
	if doc := Render(j, "test"); !strings.Contains(doc, "| reverse · sinusoidal | 0.990 | diverged | 0.001 | 0.575 | diverged |") {
		t.Errorf("the check's table does not show the diverged candidate:\n%s", doc)
	}
	if _, err := judge(diverge("0.001", "0.003")); err == nil || !strings.Contains(err.Error(), "diverged at every rate") {
		t.Errorf("every candidate diverged: %v", err)
	}
}

// TestUnionSameFileNoCheck: two tables of a union reading the same CSV share rows without any
// run having been trained twice: each is counted once, and the document claims no
// reproducibility check for them.
func TestUnionSameFileNoCheck(t *testing.T) {
	long, _ := filepath.Abs(filepath.Join("testdata", "lr", "long.csv"))
	path := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(path, []byte(`title: u
tables:
  - {name: a, csv: `+long+`}
  - {name: b, csv: `+long+`, rows: [{scheme: rope}]}
  - {name: u, union: [a, b]}
statistic: {metric: token_accuracy, past_training: 0, learned: 0.9}
claims:
  - {id: r, kind: ranking, table: u, a: {task: reverse, scheme: rope}, b: {task: reverse, scheme: sinusoidal}}
`), 0o644)
	j, err := judgeFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if u := j.Tables["u"]; len(u.twice) != 0 || len(u.rows) != len(j.Tables["a"].rows) {
		t.Errorf("union of one file read twice: %d rows (want %d), held twice: %q", len(u.rows), len(j.Tables["a"].rows), u.twice)
	}
}
