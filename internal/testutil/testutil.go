// Package testutil holds what the tests of more than one package share; only tests import it.
// It imports no posformer package, so config's own tests can use it without an import
// cycle.
package testutil

import "testing"

// Minimal is a small valid config: copy on lengths 1..4 with rope, a 1-layer model of width 16,
// 10 steps, tested on lengths 1..8.
const Minimal = `
task:
  name: copy
  min_len: 1
  max_len: 4
model:
  d_model: 16
  heads: 2
  layers: 1
  d_ff: 32
position:
  kind: rope
train:
  steps: 10
  batch_size: 4
eval:
  lengths: "1..8"
  examples: 8
`

// TinyConfig is Minimal resolved by read (config's Read, passed in to keep this package
// free of imports) with out set to out, 20 steps and a validation every 10, then the overrides
// sets (key=value, as -set takes them); a parse error fails the test.
func TinyConfig[C, K any](t testing.TB, read func(src []byte, name string, sets []string) (C, K, error), out string, sets ...string) C {
	t.Helper()
	c, _, err := read([]byte(Minimal), "min.yaml", append([]string{"out=" + out, "train.steps=20", "train.val_every=10"}, sets...))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
