package train

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/setup"
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
		v, err := ReadResult(filepath.Join(dir, "once", "copy_rope_s1", rundir.VariantDir(name)))
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
	if _, err := os.Stat(filepath.Join(dir, "once", "copy_rope_s1", rundir.VariantDir("ntk"))); !errors.Is(err, os.ErrNotExist) {
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
	if _, err := os.Stat(filepath.Join(dir, "copy_alibi_s1", rundir.VariantDir("ntk"))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an alibi run evaluated a rope-only variant: %v", err)
	}
}

// TestEvalVariantReusesInRange: a rope_scaling variant takes the run's own rows and diagnostics
// at the lengths within training (rope_scaling acts only beyond them) instead of evaluating them
// again, and evaluates only the longer lengths; its rows and diagnostics, reused or not, are
// exactly those of evaluating the variant at every length. A variant that changes
// eval_positions evaluates every length.
func TestEvalVariantReusesInRange(t *testing.T) {
	var mu sync.Mutex
	evaluated := map[string][]int{}
	opt := Options{evaluated: func(label string, L int) {
		mu.Lock()
		defer mu.Unlock()
		evaluated[label] = append(evaluated[label], L)
	}}
	dir := t.TempDir()
	cfg := tinyConfig(t, dir, "eval.lengths=1..8", "eval.variants=[{name: ntk, rope_scaling: ntk}, {name: interp, rope_scaling: interpolate}]")
	res, err := Run(context.Background(), cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	all, beyond := []int{1, 2, 3, 4, 5, 6, 7, 8}, []int{5, 6, 7, 8} // trained on 1..4
	want := map[string][]int{"eval copy_rope_s1": all, "eval copy_rope_s1 ntk": beyond, "eval copy_rope_s1 interp": beyond}
	if !reflect.DeepEqual(evaluated, want) {
		t.Errorf("lengths evaluated: %v, want %v", evaluated, want)
	}
	plainDiag, err := ReadDiagnostics(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := LoadModel(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	task, err := cfg.NewTask()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range cfg.Eval.Variants {
		vdir := filepath.Join(res.Dir, rundir.VariantDir(v.Name))
		vres, err := ReadResult(vdir)
		if err != nil {
			t.Fatal(err)
		}
		vdiag, err := ReadDiagnostics(vdir)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(vres.Lengths[:4], res.Lengths[:4]) || !reflect.DeepEqual(vdiag.Lengths[:4], plainDiag.Lengths[:4]) {
			t.Errorf("%s: the rows within training differ from the plain evaluation's", v.Name)
		}
		// Evaluating the variant at every length, nothing reused, gives the same bits.
		vc := cfg.WithDefaults().VariantConfig(v)
		vm, err := setup.NewModel(vc, task)
		if err != nil {
			t.Fatal(err)
		}
		vm.TrainLen = m.TrainLen
		if err := copyParams(vm, m); err != nil {
			t.Fatal(err)
		}
		full, fullDiag, err := evaluateLengths(context.Background(), vc, task, vm, Options{}, "full", nil)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(fullDiag.Lengths)
		b, _ := json.Marshal(vdiag.Lengths)
		if !reflect.DeepEqual(full, vres.Lengths) || !bytes.Equal(a, b) {
			t.Errorf("%s: the results differ from evaluating every length:\n%+v\n%+v", v.Name, vres.Lengths, full)
		}
	}
	// eval_positions plain on a randomized model changes every length: nothing is reused.
	evaluated = map[string][]int{}
	if _, err := Run(context.Background(), tinyConfig(t, dir, "position.kind=sinusoidal", "position.randomized=true", "position.max_random=32",
		"eval.lengths=1..8", "eval.variants=[{name: plain, eval_positions: plain}]"), opt); err != nil {
		t.Fatal(err)
	}
	if got := evaluated["eval copy_sinusoidal_s1 plain"]; !reflect.DeepEqual(got, all) {
		t.Errorf("eval_positions variant evaluated lengths %v, want all of %v", got, all)
	}
}
