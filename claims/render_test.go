package claims

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rulesLinkRE finds a document's link to the verdict rules.
var rulesLinkRE = regexp.MustCompile(`The verdict rules: \[[^\]]*\]\(([^)#]*)#how-verdicts-are-reached\)`)

// TestRulesLinkResolves: a generated document links the verdict rules wherever it is written: by
// a path from its own directory to the page that holds them when it lies in the project (every
// committed generated document: docs/claims, docs/own-claim), to its own section stating them
// when it does not (a directory of its own outside the project), or when the command runs
// outside the project.
func TestRulesLinkResolves(t *testing.T) {
	t.Chdir("..") // the repository's root, where the claims command runs
	check := func(doc, content string) {
		t.Helper()
		m := rulesLinkRE.FindStringSubmatch(content)
		if m == nil {
			t.Errorf("%s links no verdict rules", doc)
			return
		}
		page, err := []byte(content), error(nil) // "": the document states the rules itself
		if m[1] != "" {
			page, err = os.ReadFile(filepath.Join(filepath.Dir(doc), filepath.FromSlash(m[1])))
		}
		if err != nil || !strings.Contains(string(page), "\n## How verdicts are reached\n") {
			t.Errorf("%s: the rules link %q does not lead to the section How verdicts are reached (%v)", doc, m[1], err)
		}
	}
	docs, _ := filepath.Glob(filepath.Join("docs", "*", "*.md"))
	n := 0
	for _, doc := range docs {
		b, _ := os.ReadFile(doc)
		if strings.Contains(string(b), GeneratedMark) && rulesLinkRE.Match(b) {
			check(doc, string(b))
			n++
		}
	}
	if n < 4 {
		t.Errorf("found %d generated documents in docs/*/; want the shipped ones and docs/own-claim's", n)
	}
	dir := filepath.Join(t.TempDir(), "mine")
	os.MkdirAll(dir, 0o755)
	table, _ := os.ReadFile(filepath.Join("claims", "testdata", "tiny.csv"))
	os.WriteFile(filepath.Join(dir, "t.csv"), table, 0o644)
	path := filepath.Join(dir, "c.yaml")
	os.WriteFile(path, []byte(`title: mine
tables: [{name: t, csv: t.csv}]
statistic: {metric: exact_match, past_training: 2, learned: 0.9}
claims:
  - {id: r, kind: ranking, a: {task: copy, scheme: kerple}, b: {task: copy, scheme: alibi}}
`), 0o644)
	out, err := Docs([]string{path}, "test", nil)
	if err != nil || len(out) != 1 {
		t.Fatalf("%v (%d documents)", err, len(out))
	}
	check(out[0].Path, string(out[0].Content))
	if strings.Contains(string(out[0].Content), "../") {
		t.Errorf("a document outside the project links out of its directory:\n%s", out[0].Content)
	}
	t.Chdir(dir) // run from outside the project: no rules page to link
	if out, err = Docs([]string{"c.yaml"}, "test", nil); err != nil {
		t.Fatal(err)
	}
	check(filepath.Join(dir, out[0].Path), string(out[0].Content))
}

// TestDescribeGrid: a grid's set-up in words names every learning rate it sweeps (it named the
// first cell's only), each count agrees with its noun (it said "1 layers"), and runs are counted
// as runs, cells × seeds where the grid is that product (it said "N cells" for N runs).
func TestDescribeGrid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.yaml")
	os.WriteFile(path, []byte(`name: g
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 1, layers: 1, d_ff: 32}
train: {steps: 1, batch_size: 1}
eval: {lengths: [8], examples: 1}
sweep:
  train.lr: [0.001, 0.003]
  seed: [1]
`), 0o644)
	setup, _ := describeGrid(path)
	want := "`" + path + "`, 2 runs: 1 layer, d_model 16, 1 head, d_ff 32; 1 step of 1 sequence, lr swept over 0.001, 0.003, no early stopping; trained on lengths 1..4, tested on 1 length in 8..8, 1 example each."
	if setup != want {
		t.Errorf("got  %s\nwant %s", setup, want)
	}
	os.WriteFile(path, []byte(`name: g
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 1, layers: 1, d_ff: 32}
train: {steps: 1, batch_size: 1}
eval: {lengths: [8], examples: 1}
sweep:
  position.kind: [rope, alibi, none]
  seed: [1, 2]
`), 0o644)
	if setup, _ := describeGrid(path); !strings.Contains(setup, "`, 6 runs (3 cells × 2 seeds): 1 layer,") {
		t.Errorf("three schemes, two seeds: %s", setup)
	}
}

// TestCellsOfEveryTask: the table of every cell the claims compare keeps a scheme's cells of
// every task; a cell's key prints no task, and rows keyed by it lost all but the first task's
// (docs/claims/ruoss2023.md listed parity's cells, not reverse's).
func TestCellsOfEveryTask(t *testing.T) {
	dir := t.TempDir()
	tiny, err := os.ReadFile(filepath.Join("testdata", "tiny.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(tiny), "\n")
	two := string(tiny)
	for _, l := range lines[1:] { // the same runs again as task reverse
		if strings.HasPrefix(l, "copy,") {
			two += "reverse," + strings.TrimPrefix(l, "copy,")
		}
	}
	csv := filepath.Join(dir, "two.csv")
	if err := os.WriteFile(csv, []byte(two), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `title: two tasks
paper: {citation: X}
tables:
  - {name: t, csv: ` + csv + `}
statistic: {metric: exact_match, past_training: 2, learned: 0.9}
claims:
  - {id: c, kind: ranking, a: {task: copy, scheme: kerple}, b: {task: copy, scheme: alibi}}
  - {id: r, kind: ranking, a: {task: reverse, scheme: kerple}, b: {task: reverse, scheme: alibi}}
`
	path := filepath.Join(dir, "two.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := judgeFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	renderCells(&b, j)
	for _, row := range []string{"| t | copy | alibi |", "| t | copy | kerple |", "| t | reverse | alibi |", "| t | reverse | kerple |"} {
		if !strings.Contains(b.String(), row) {
			t.Errorf("the cells' table has no row %q:\n%s", row, b.String())
		}
	}
}
