package config

import "testing"

// TestSetReplacedBySelect: a -set of the field select: chooses, or of a section holding it, is
// refused naming select.field and the fix (every cell would replace it with a candidate).
func TestSetReplacedBySelect(t *testing.T) {
	src := []byte("name: g\ntask: {name: copy, max_len: 4}\nmodel: {d_model: 16, heads: 2, layers: 1, d_ff: 32}\ntrain: {steps: 10}\n" +
		"sweep: {seed: [1, 2]}\nselect: {field: train.lr, values: [0.001, 0.003]}\n")
	for set, want := range map[string]string{
		"train.lr=0.01":               "-set train.lr=0.01: train.lr is chosen by select: (select.field in g.yaml), so every cell replaces the -set's value with a candidate and it would do nothing: drop the -set, or change select:",
		"train={lr: 0.01, steps: 20}": "-set train={lr: 0.01, steps: 20}: train.lr is chosen by select: (select.field in g.yaml), so every cell replaces this -set's train.lr (keeping its other keys): drop lr from the -set, or change select:",
	} {
		if _, _, err := Read(src, "g.yaml", []string{set}); err == nil || err.Error() != want {
			t.Errorf("-set %s:\n got: %v\nwant: %s", set, err, want)
		}
	}
}
