package setup

import (
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
)

// predict is the memory prediction of a small copy config with the overrides.
func predict(t *testing.T, sets ...string) Memory {
	t.Helper()
	src := "task: {name: copy, min_len: 1, max_len: 4}\nmodel: {d_model: 64, heads: 4, layers: 2}\ntrain: {steps: 2, batch_size: 8}\n"
	var c config.Config
	if err := config.Decode([]byte(src), "m.yaml", &c); err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		if err := config.Set(&c, s); err != nil {
			t.Fatal(err)
		}
	}
	c = c.WithDefaults()
	task, err := data.New(c.Task.Name, data.Options{Symbols: c.Task.Symbols})
	if err != nil {
		t.Fatal(err)
	}
	return PredictMemory(c, task)
}

// TestPredictionFollowsEvalBatch: at a long test length the evaluation's prediction falls with
// eval.batch_size (so "lower eval.batch_size" can help), for every scheme with a logit bias and
// without: the diagnostics' inspection graph takes what CaptureBatch allows, none past it.
func TestPredictionFollowsEvalBatch(t *testing.T) {
	for _, kind := range []string{"alibi", "t5", "rope", "none"} {
		for _, L := range []string{"300", "1500", "2000"} {
			prev := int64(-1)
			for _, b := range []string{"1", "4", "16", "128"} {
				m := predict(t, "position.kind="+kind, "eval.lengths="+L, "eval.examples=128", "eval.batch_size="+b)
				if prev >= 0 && m.Eval < prev {
					t.Errorf("%s at %s: eval.batch_size %s predicts %d, less than a smaller batch's %d", kind, L, b, m.Eval, prev)
				}
				prev = m.Eval
			}
			small := predict(t, "position.kind="+kind, "eval.lengths="+L, "eval.examples=128", "eval.batch_size=1")
			big := predict(t, "position.kind="+kind, "eval.lengths="+L, "eval.examples=128", "eval.batch_size=128")
			if L != "300" && 2*small.Eval > big.Eval {
				t.Errorf("%s at %s: batch 1 predicts %d, batch 128 %d: the batch size hardly matters", kind, L, small.Eval, big.Eval)
			}
		}
	}
}

// TestPredictionCoversDataAndTables: the test set does not grow the prediction with
// eval.examples (evaluation holds a batch at a time), the validation sets grow it with
// train.val_examples, and a scheme's own parameters (T5's buckets, a
// learned table) grow both the state (weights, moments, checkpoint) and the training graph
// (their gradient), in proportion.
func TestPredictionCoversDataAndTables(t *testing.T) {
	a, b := predict(t, "eval.examples=1000"), predict(t, "eval.examples=1001000")
	if b.TestData != a.TestData || a.TestData <= 0 || b.Peak < b.State+b.Eval+b.TestData {
		t.Errorf("a million more test examples of 16 tokens change the test set's %d bytes to %d; the peak %d must hold it", a.TestData, b.TestData, b.Peak)
	}
	a, b = predict(t, "train.val_examples=100"), predict(t, "train.val_examples=100100")
	if d := b.ValData - a.ValData; d < 100_000*4*(48+8*2) {
		t.Errorf("100,000 more validation examples at each of 4 lengths add %d bytes", d)
	}
	for _, c := range []struct {
		sets   []string
		params int64
	}{
		{[]string{"position.kind=t5", "position.num_buckets=1000000", "position.max_distance=1000001"}, 4 * 1_000_000},
		{[]string{"position.kind=learned", "position.max_positions=1000000"}, 64 * 1_000_000},
	} {
		base := predict(t, c.sets[0])
		m := predict(t, c.sets...)
		extra := c.params
		if d := m.State - base.State; d < extra*(4+16+checkpointBytesPerParam)*9/10 {
			t.Errorf("%v: %d more parameters add %d bytes of state", c.sets, extra, d)
		}
		if d := m.TrainGraph - base.TrainGraph; d < extra*4*2*9/10 {
			t.Errorf("%v: %d more parameters add %d bytes to the training graph (their gradient)", c.sets, extra, d)
		}
	}
}
