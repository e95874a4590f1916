package rundir

import (
	"fmt"
	"strings"
	"testing"
)

// resolved is a config.yaml as a run writes it (shortened), with %s marking where a field's line
// is put in.
const resolved = `name: copy_rope_s1
out: runs
seed: 1
task:
    name: copy
    min_len: 1
    max_len: 4
model:
    d_model: 16
    heads: 2
position:
    kind: rope
%s
train:
    steps: 20
    lr: 0.003
eval:
    lengths: [1, 2, 3, 4, 5, 6, 7, 8]
    examples: 8
    seed: 7
`

// edit replaces the first line of src that is old (after indentation), or starts with it when
// old ends in a colon, by repl.
func edit(t *testing.T, src, old, repl string) string {
	t.Helper()
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if tl := strings.TrimSpace(l); tl == old || strings.HasSuffix(old, ":") && strings.HasPrefix(tl, old) {
			lines[i] = l[:len(l)-len(strings.TrimLeft(l, " "))] + repl
			return strings.Join(lines, "\n")
		}
	}
	t.Fatalf("no line %q", old)
	return ""
}

// TestFingerprint: a fingerprint changes with every training field and with none of the fields
// only evaluation reads (evalOnly: a resume re-evaluates instead of refusing), whatever the
// order of the keys; FingerprintDiff names the fields that changed, old and new values.
func TestFingerprint(t *testing.T) {
	base := fmt.Sprintf(resolved, "    max_positions: 64")
	fp := Fingerprint([]byte(base))
	training := [][2]string{{"seed:", "seed: 2"}, {"name: copy", "name: reverse"}, {"max_len:", "max_len: 5"}, {"d_model:", "d_model: 32"},
		{"kind:", "kind: alibi"}, {"max_positions:", "max_positions: 65"}, {"lr:", "lr: 0.001"}, {"steps:", "steps: 21"},
		{"seed: 7", "seed: 8"}} // eval.seed: validation reads it
	for _, c := range training {
		changed := edit(t, base, c[0], c[1])
		if Fingerprint([]byte(changed)) == fp {
			t.Errorf("%s → %s: the fingerprint did not change", c[0], c[1])
		}
		if d := FingerprintDiff(fp, Fingerprint([]byte(changed))); !strings.Contains(d, " → ") || strings.Count(d, "(") != 1 {
			t.Errorf("%s → %s: diff %q, want one field named with its old → new value", c[0], c[1], d)
		}
	}
	evalOnlyEdits := [][2]string{{"name: copy_rope_s1", "name: other"}, {"out:", "out: elsewhere/runs"}, {"lengths:", "lengths: [1, 2, 40]"},
		{"examples:", "examples: 100"}}
	for _, c := range evalOnlyEdits {
		if changed := edit(t, base, c[0], c[1]); Fingerprint([]byte(changed)) != fp {
			t.Errorf("%s → %s (evaluation only): the fingerprint changed: %s", c[0], c[1], FingerprintDiff(fp, Fingerprint([]byte(changed))))
		}
	}
	// rope_scaling (and dynamic_ntk's rope_factor, which an eval variant sets) added beside
	// max_positions: only max_positions' presence matters.
	for _, scaling := range []string{"rope_scaling: ntk", "rope_scaling: dynamic_ntk\n    rope_factor: 2"} {
		withScaling := fmt.Sprintf(resolved, "    max_positions: 64\n    "+scaling)
		if Fingerprint([]byte(withScaling)) != fp {
			t.Errorf("position.%s changed the fingerprint: %s", scaling, FingerprintDiff(fp, Fingerprint([]byte(withScaling))))
		}
	}
	variants := base + "    variants:\n        - {name: ntk, rope_scaling: ntk}\n"
	if Fingerprint([]byte(variants)) != fp {
		t.Errorf("eval.variants changed the fingerprint")
	}
	// Key order does not matter: the fingerprint is sorted lines.
	reordered := strings.Replace(base, "    d_model: 16\n    heads: 2\n", "    heads: 2\n    d_model: 16\n", 1)
	if reordered == base || Fingerprint([]byte(reordered)) != fp {
		t.Errorf("reordering the model's keys changed the fingerprint")
	}

	d := FingerprintDiff(fp, Fingerprint([]byte(edit(t, base, "lr:", "lr: 0.001"))))
	if d != "train.lr (0.003 → 0.001)" {
		t.Errorf("diff %q", d)
	}
	removed := strings.Replace(base, "    max_positions: 64\n", "", 1)
	if d := FingerprintDiff(fp, Fingerprint([]byte(removed))); d != "position.max_positions (64 → unset)" {
		t.Errorf("a removed field: diff %q", d)
	}
	many := base
	for _, c := range training[:7] {
		many = edit(t, many, c[0], c[1])
	}
	if d := FingerprintDiff(fp, Fingerprint([]byte(many))); strings.Count(d, " → ") != 5 || !strings.HasSuffix(d, "and 2 more") {
		t.Errorf("seven changed fields: diff %q, want five named and 'and 2 more'", d)
	}
	if !strings.HasPrefix(Fingerprint([]byte("a: [")), "unreadable: ") {
		t.Errorf("an unreadable config's fingerprint does not say so")
	}
}

// TestSameBut: two resolved configs are the same but for the given top-level keys only when
// every other line is equal; SameConfig ignores out: alone.
func TestSameBut(t *testing.T) {
	base := fmt.Sprintf(resolved, "")
	other := edit(t, edit(t, base, "out:", "out: ./elsewhere"), "name: copy_rope_s1", "name: renamed")
	if !SameBut([]byte(base), []byte(other), "name", "out") {
		t.Error("configs differing in name and out are not the same but for name and out")
	}
	if SameConfig([]byte(base), []byte(other)) {
		t.Error("SameConfig ignores name too")
	}
	if !SameConfig([]byte(base), []byte(edit(t, base, "out:", "out: /abs/runs"))) {
		t.Error("SameConfig does not ignore out")
	}
	// A nested key of the same name is not a top-level one.
	if SameBut([]byte(base), []byte(edit(t, base, "name: copy", "name: reverse")), "name", "out") {
		t.Error("task.name was ignored as if top-level")
	}
}

// TestGridFields: GridFields names each swept field and every other field but out, lists in flow
// style, so FingerprintDiff says what changed between two grid.yaml files.
func TestGridFields(t *testing.T) {
	a := []byte("name: g\nout: runs\ntrain:\n    steps: 10\nsweep:\n    position.kind: [rope, none]\n    seed: [1]\n")
	b := []byte("name: g\nout: elsewhere\ntrain:\n    steps: 12\nsweep:\n    position.kind: [rope, alibi]\n    seed: [1]\n")
	if got, want := FingerprintDiff(GridFields(a), GridFields(b)), "sweep.position.kind ([rope, none] → [rope, alibi]), train.steps (10 → 12)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := FingerprintDiff(GridFields(a), GridFields(a)); got != "" {
		t.Errorf("a grid against itself: %q", got)
	}
}
