package inspect

import (
	"context"
	"github.com/posformer/posformer/metric"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/testutil"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
)

// TestInspectMatchesResults (in this package as it compares inspect with what a run wrote):
// inspecting a finished run with n = eval.examples reproduces its
// results.csv exact match at every tested length (the same examples, batches, and randomized
// positions at evaluation), a matched example's greedy answer is its target, a failed one's first
// wrong token is where the prediction first differs, and the run's diagnostics.json holds every
// length, with decoded failures at the first lengths past training only.
func TestInspectMatchesResults(t *testing.T) {
	for _, tc := range []struct {
		name string
		sets []string
	}{
		{"rope", nil},
		{"learned_randomized", []string{"position.kind=learned", "position.randomized=true", "position.max_random=24", "position.eval_positions=random"}},
		{"t5_encoder_slots", []string{"position.kind=t5", "model.bidirectional=true", "task.format=slots"}},
		{"alibi_end_token", []string{"position.kind=alibi", "task.end_token=true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sets := append([]string{"train.steps=150", "train.lr=0.01", "eval.examples=20", "eval.batch_size=8", "eval.lengths=1..8"}, tc.sets...)
			cfg := testutil.TinyConfig(t, config.Read, t.TempDir(), sets...)
			res, err := train.Run(context.Background(), cfg, train.Options{})
			if err != nil {
				t.Fatal(err)
			}
			mixed := false
			for _, lr := range res.Lengths {
				in, err := Show(context.Background(), res.Dir, lr.Length, cfg.Eval.Examples, nil)
				if err != nil {
					t.Fatal(err)
				}
				if in.Exact != lr.Score(metric.ExactMatch) || !in.HasResult || in.ResultsExact != lr.Score(metric.ExactMatch) {
					t.Errorf("length %d: inspect exact %v, results %v", lr.Length, in.Exact, lr.Score(metric.ExactMatch))
				}
				mixed = mixed || (lr.Score(metric.ExactMatch) > 0 && lr.Score(metric.ExactMatch) < 1)
				matched := 0
				for i, d := range in.Examples {
					if d.Index != i || len(d.Prediction) > len(d.Target) || len(d.Prediction) < min(d.FirstWrong+1, len(d.Target)) {
						t.Fatalf("length %d example %d: %+v", lr.Length, i, d)
					}
					if d.Matched() {
						matched++
						if !slices.Equal(d.Prediction, d.Target) {
							t.Errorf("length %d example %d matched but predicts %v for %v", lr.Length, i, d.Prediction, d.Target)
						}
						continue
					}
					fw := d.FirstWrong
					if !slices.Equal(d.Prediction[:fw], d.Target[:fw]) || d.Prediction[fw] == d.Target[fw] {
						t.Errorf("length %d example %d: first wrong %d, prediction %v, target %v", lr.Length, i, fw, d.Prediction, d.Target)
					}
				}
				if float64(matched)/float64(len(in.Examples)) != lr.Score(metric.ExactMatch) {
					t.Errorf("length %d: %d of %d examples matched, results say %v", lr.Length, matched, len(in.Examples), lr.Score(metric.ExactMatch))
				}
			}
			if !mixed {
				t.Logf("no length with a partial exact match: the comparison is weaker than intended")
			}
			d, err := train.ReadDiagnostics(res.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Lengths) != len(res.Lengths) || d.Examples != config.DiagnosticExamples || d.Layers != 1 || d.Heads != 2 {
				t.Fatalf("diagnostics: %d lengths, %d examples, %d layers, %d heads", len(d.Lengths), d.Examples, d.Layers, d.Heads)
			}
			task, err := cfg.NewTask()
			if err != nil {
				t.Fatal(err)
			}
			if d.Vocab != task.Vocab() {
				t.Errorf("diagnostics: vocab %d, the task's (with its format's tokens) %d", d.Vocab, task.Vocab())
			}
			for i, ld := range d.Lengths {
				L := ld.Length
				if len(ld.Distance) != 1 || len(ld.Distance[0]) != 2 || !(ld.Distance[0][0] >= 0) || ld.Distance[0][0] > float64(2*L) {
					t.Errorf("length %d: attended distance %v", L, ld.Distance)
				}
				beyondIdx := L - cfg.Task.MaxLen // lengths are 1..8, max_len 4
				wantFailures := beyondIdx >= 1 && beyondIdx <= config.FailureLengths && res.Lengths[i].Score(metric.ExactMatch) < 1
				if (len(ld.Failures) > 0) != wantFailures || len(ld.Failures) > config.FailuresPerLength {
					t.Errorf("length %d (exact %v): %d failures decoded", L, res.Lengths[i].Score(metric.ExactMatch), len(ld.Failures))
				}
				for _, f := range ld.Failures {
					if f.Matched() || len(f.Prediction) > len(f.Target) {
						t.Errorf("length %d: failure %+v", L, f)
					}
				}
			}
		})
	}
}

// TestInspectRefusesHugeLengths: a length whose attention weights would not fit is refused before
// any forward pass, naming the longest length that fits.
func TestInspectRefusesHugeLengths(t *testing.T) {
	cfg := testutil.TinyConfig(t, config.Read, t.TempDir(), "eval.examples=2", "eval.lengths=1..2")
	res, err := train.Run(context.Background(), cfg, train.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 1 layer × 2 heads × (4 + 8) bytes × T² ≤ 256 MB: T ≤ 3344, so L ≤ 1672 for copy.
	_, err = Show(context.Background(), res.Dir, 5000, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "inspect a length of at most 1672") {
		t.Fatalf("got %v", err)
	}
}

// TestInspectEvalVariant: an eval variant's directory (RUN_DIR/eval-<name>) is inspected with the
// run's weights and the variant's options: its exact match is the variant's results, which
// differ from the run's own (randomized positions at evaluation, then plain ones).
func TestInspectEvalVariant(t *testing.T) {
	cfg := testutil.TinyConfig(t, config.Read, t.TempDir(), "train.steps=150", "train.lr=0.01", "eval.examples=12", "eval.lengths=1..8",
		"position.randomized=true", "position.max_random=24", "eval.variants=[{name: plain, eval_positions: plain}]")
	res, err := train.Run(context.Background(), cfg, train.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vdir := filepath.Join(res.Dir, rundir.VariantDir("plain"))
	vres, err := train.ReadResult(vdir)
	if err != nil {
		t.Fatal(err)
	}
	differs := false
	for i, lr := range vres.Lengths {
		in, err := Show(context.Background(), vdir, lr.Length, 12, nil)
		if err != nil {
			t.Fatal(err)
		}
		if in.Exact != lr.Score(metric.ExactMatch) || in.ResultsExact != lr.Score(metric.ExactMatch) {
			t.Errorf("length %d: inspect %v, the variant's results %v", lr.Length, in.Exact, lr.Score(metric.ExactMatch))
		}
		differs = differs || lr.Score(metric.ExactMatch) != res.Lengths[i].Score(metric.ExactMatch) || lr.Score(metric.TokenAccuracy) != res.Lengths[i].Score(metric.TokenAccuracy)
	}
	if !differs {
		t.Error("the variant scores like the run at every length: the test cannot tell which positions inspect used")
	}
	if _, err := Show(context.Background(), filepath.Join(res.Dir, "eval-nope"), 3, 2, nil); err == nil || !strings.Contains(err.Error(), "eval-nope is not one of the eval variants") {
		t.Errorf("an unknown variant directory: %v", err)
	}
}
