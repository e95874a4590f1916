package train

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestEvalVariantEqualsRetraining: evaluating the trained weights with rope_scaling ntk as an
// eval variant gives exactly the numbers of a second run trained with rope_scaling ntk (which
// trains the same weights, as rope_scaling acts only beyond the training lengths), without the
// second training.
func TestEvalVariantEqualsRetraining(t *testing.T) {
	dir := t.TempDir()
	once, err := Run(context.Background(), tinyConfig(t, filepath.Join(dir, "once"), "eval.lengths=1..12",
		"eval.variants=[{name: ntk, rope_scaling: ntk}, {name: interp, rope_scaling: interpolate}]"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, scaling := range []string{"ntk", "interpolate"} {
		name := map[string]string{"ntk": "ntk", "interpolate": "interp"}[scaling]
		twice, err := Run(context.Background(), tinyConfig(t, filepath.Join(dir, scaling), "eval.lengths=1..12", "position.rope_scaling="+scaling), Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(filepath.Join(dir, "once", "copy_rope_s1", "checkpoint.bin"))
		b, _ := os.ReadFile(filepath.Join(dir, scaling, "copy_rope_s1", "checkpoint.bin"))
		if !bytes.Equal(a, b) {
			t.Fatalf("rope_scaling %s changed the trained weights: it is not evaluation-only", scaling)
		}
		v, err := ReadResult(filepath.Join(dir, "once", "copy_rope_s1", VariantDir(name)))
		if err != nil {
			t.Fatal(err)
		}
		if v.Variant != "eval="+name || !reflect.DeepEqual(v.Lengths, twice.Lengths) {
			t.Errorf("variant %s: %q %+v\nretrained: %+v", name, v.Variant, v.Lengths, twice.Lengths)
		}
		// (ntk barely moves the base of this tiny model's 8-dimensional heads; interpolation
		// changes every position beyond the training lengths.)
		if scaling == "interpolate" && reflect.DeepEqual(v.Lengths, once.Lengths) {
			t.Errorf("variant %s scores exactly as the plain evaluation at every length: the option was not applied", name)
		}
	}
	if once.Variant != "" {
		t.Errorf("the run's own result is labelled %q", once.Variant)
	}
	// -force starts over without the eval variants (posformer wrote them): a run without
	// variants leaves none behind.
	if _, err := Run(context.Background(), tinyConfig(t, filepath.Join(dir, "once"), "eval.lengths=1..12"), Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "once", "copy_rope_s1", VariantDir("ntk"))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("-force left the old eval variant: %v", err)
	}
}

// TestEvalVariantSchemes: a variant restricted to rope is not evaluated for another scheme (and
// its option need not suit that scheme).
func TestEvalVariantSchemes(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, dir, "position.kind=alibi", "eval.variants=[{name: ntk, when: [position.kind=rope], rope_scaling: ntk}]")
	if _, err := Run(context.Background(), cfg, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "copy_alibi_s1", VariantDir("ntk"))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an alibi run evaluated a rope-only variant: %v", err)
	}
}
