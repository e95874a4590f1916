package claims

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// floorKind is a kind of claim declared in this test file alone, as a new kind's file would
// declare it: cell A's mean score over runs is at least a floor.
type floorKind struct {
	A     Cell    `yaml:"a"`
	Floor float64 `yaml:"floor"`
}

var _ Kind = &floorKind{}

func (k *floorKind) check(f *File, c *Claim, p string) error {
	if !(k.Floor > 0) {
		return f.errAt(p+".floor", "missing or not positive: give the score A's mean stays at or above, e.g. floor: 0.5")
	}
	return needCells(f, p, "task: copy, scheme: alibi", k.A)
}

func (k *floorKind) judge(x *judging, o *Outcome) error {
	A, err := x.side(k.A, x.path+".a")
	if err != nil {
		return err
	}
	_, lo, hi := A.d.scoreMean(A.metric, A.scores, A.floors)
	v := Inconclusive
	switch {
	case lo > k.Floor:
		v = Reproduced
	case hi < k.Floor:
		v = Contradicted
	}
	o.Rows = append(o.Rows, Comparison{Text: fmt.Sprintf("%s: %s at least %g", A.k.Task, A.name, k.Floor), Paper: "–", Ours: A.ci(), Verdict: v, A: A})
	return nil
}

func (k *floorKind) detail(b *strings.Builder, o *Outcome) {
	fmt.Fprintf(b, "Floor %g: %s over %d..%d; verdict **%s**.\n", k.Floor, o.Rows[0].Ours, o.Rows[0].A.lo, o.Rows[0].A.hi, o.Rows[0].Verdict)
}

// registerFloor registers floorKind for the test (and removes it after, so that the other tests
// see the shipped kinds only).
func registerFloor(t *testing.T) {
	register(kindDef{name: "floor", place: 1000, new: func() Kind { return &floorKind{} },
		rule: "**Floor**: *reproduced* when the t interval of A's mean lies above the floor, *contradicted* when below, *inconclusive* otherwise."})
	t.Cleanup(func() { kinds = slices.DeleteFunc(kinds, func(d *kindDef) bool { return d.name == "floor" }) })
}

// TestNewKindInOneFile: a kind of claim declared and registered in one file (this one) is read
// from a claims file (its keys checked: a key no kind reads, or another kind's, refused naming
// its keys; its own check and the decoder's types applied), judged, and rendered in the document
// (the opening table, its detail) and the rules.
func TestNewKindInOneFile(t *testing.T) {
	registerFloor(t)
	dir := t.TempDir()
	load := func(claims ...string) (*Judged, error) {
		src := "title: floors\ntables: [{name: t, csv: " + abs(t, "testdata/tiny.csv") + "}]\n" +
			"statistic: {metric: exact_match, past_training: 2, learned: 0.9}\nclaims:\n"
		for _, c := range claims {
			src += "  - {" + c + "}\n"
		}
		path := filepath.Join(dir, "floors.yaml")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return judgeFile(path)
	}
	// kerple past training (9..16): per-seed means 0.54, 0.55, 0.56 (s² = 1e-4, above the runs'
	// binomial variance on 1000 examples a length, the floor); the 95% t interval of their mean is
	// 0.55 ± 4.303·0.01/√3 = [0.525, 0.575].
	j, err := load("id: lo, kind: floor, a: {task: copy, scheme: kerple}, floor: 0.45",
		"id: hi, kind: floor, a: {task: copy, scheme: kerple}, floor: 0.65",
		"id: mid, kind: floor, a: {task: copy, scheme: kerple}, floor: 0.55")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"lo": Reproduced, "hi": Contradicted, "mid": Inconclusive}
	for _, o := range j.Claims {
		if r := o.Rows[0]; r.Verdict != want[o.Claim.ID] || r.Ours != "0.550 [0.525, 0.575]" {
			t.Errorf("%s: %s, %s; want 0.550 [0.525, 0.575], %s", o.Claim.ID, r.Ours, r.Verdict, want[o.Claim.ID])
		}
	}
	doc := Render(j, "test")
	for _, line := range []string{
		"| copy: kerple at least 0.45 | – | 0.550 [0.525, 0.575] | reproduced |",
		"### hi: floor\n\nFloor 0.65: 0.550 [0.525, 0.575] over 9..16; verdict **contradicted**.\n",
	} {
		if !strings.Contains(doc, line) {
			t.Errorf("the document lacks %q:\n%s", line, doc)
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(strings.Split(Rules(), "\n\nEach claim")[0]), "- **Floor**: *reproduced* when the t interval of A's mean lies above the floor, *contradicted* when below, *inconclusive* otherwise.") {
		t.Errorf("the rules do not end with floor's:\n%s", Rules())
	}
	for claim, msg := range map[string]string{
		"id: x, kind: floor, a: {task: copy, scheme: kerple}, floor: 0.5, colour: red":                      `claims[0].colour: unknown key "colour" in a floor claim (known: a, beside, floor, id, kind, paper, statistic, table, text)`,
		"id: x, kind: floor, a: {task: copy, scheme: kerple}, floor: 0.5, margin: 0.1":                      "claims[0].margin: a floor claim does not read margin: (its keys: a, floor): remove it, or write the kind that reads it (equivalence)",
		"id: x, kind: ranking, a: {task: copy, scheme: kerple}, b: {task: copy, scheme: alibi}, floor: 0.5": "claims[0].floor: a ranking claim does not read floor: (its keys: a, b): remove it, or write the kind that reads it (floor)",
		"id: x, kind: floor, a: {task: copy, scheme: kerple}":                                               "claims[0].floor: missing or not positive: give the score A's mean stays at or above, e.g. floor: 0.5",
		"id: x, kind: floor, a: {task: copy, scheme: kerple}, floor: high":                                  `claims[0].floor: want a number, got "high"`,
		"id: x, kind: floor, a: {task: copy, scheme: kerple, lr: 0.001}, floor: 0.5":                        "claims[0].a.lr: a claim's cell is every run of its task, scheme and variant",
		"id: x, kind: floor, a: {task: copy}, floor: 0.5":                                                   "claims[0].a: missing task or scheme: give e.g. a: {task: copy, scheme: alibi}",
		"id: x, kind: flor, a: {task: copy, scheme: kerple}, floor: 0.5":                                    `claims[0].kind: "flor" is not a kind of claim: write one of ranking, equivalence, shape, ahead_of_all, paper_order, family, change_from_training, floor`,
	} {
		_, err := load(claim)
		if err == nil || !strings.Contains(err.Error(), "floors.yaml:5: "+msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("{%s}: got %v\nwant one line with floors.yaml:5: %s", claim, err, msg)
		}
	}
}
