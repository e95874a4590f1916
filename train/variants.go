package train

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/setup"
	"go.yaml.in/yaml/v3"
	"gorgonia.org/tensor"
)

// reusedLength is one length's row and diagnostics, taken from the run's own evaluation.
type reusedLength struct {
	row  LengthResult
	diag LengthDiagnostics
}

// reusable lists the lengths at which a variant evaluates exactly as the run's own evaluation
// (base, baseDiag), so their rows are copied instead of computed again: when the variant changes
// nothing but position.rope_scaling (and its factors), every length whose sequences are no longer than the
// training ones (data.SeqLen ≤ m.TrainLen). rope_scaling acts only beyond them
// (position.RoPE.Rotation gives the plain rotation for evalLen ≤ trainLen with every scaling), no other scheme reads the training length, and each length is
// evaluated on its own (its test set and evaluation depend on the length and eval.seed only), so
// the copied rows are the bits a second evaluation would give. nil for any other variant
// (eval_positions changes every length).
func reusable(cfg config.Config, v config.EvalVariant, task data.Task, m *model.Model, base []LengthResult, baseDiag *Diagnostics) map[int]reusedLength {
	a, errA := yaml.Marshal(cfg.VariantConfig(v))
	b, errB := yaml.Marshal(cfg.VariantConfig(config.EvalVariant{Name: v.Name, RopeScaling: v.RopeScaling, RopeFactor: v.RopeFactor, RopeLongFactor: v.RopeLongFactor}))
	if errA != nil || errB != nil || !bytes.Equal(a, b) || baseDiag == nil || len(baseDiag.Lengths) != len(base) {
		return nil
	}
	out := map[int]reusedLength{}
	for i, r := range base {
		if m.TrainLen > 0 && data.SeqLen(task, r.Length) <= m.TrainLen {
			out[r.Length] = reusedLength{row: r, diag: baseDiag.Lengths[i]}
		}
	}
	return out
}

// evaluateVariants evaluates the weights of m once per active variant, writing each variant's
// results into its directory. Variants only change evaluation options, so the variant model has
// the same parameters, given m's values. The lengths where a variant cannot differ from the run's
// own evaluation (base, baseDiag) take its rows (reusable).
func evaluateVariants(ctx context.Context, cfg config.Config, task data.Task, m *model.Model, base *Result, baseDiag *Diagnostics, opt Options) error {
	for _, v := range cfg.ActiveVariants() {
		vc := cfg.VariantConfig(v)
		task := task
		if v.Depth != nil || v.IgnoreProb != nil { // the test sets change with the task's options
			var err error
			if task, err = vc.NewTask(); err != nil {
				return err
			}
		}
		vm, err := setup.NewModel(vc, task)
		if err != nil {
			return err
		}
		vm.TrainLen = m.TrainLen
		if err := copyParams(vm, m); err != nil {
			return err
		}
		res := *base
		res.Variant = "eval=" + v.Name
		res.Lengths = nil
		reuse := reusable(cfg, v, task, m, base.Lengths, baseDiag)
		lengths, diag, err := evaluateLengths(ctx, vc, task, vm, opt, cfg.Name+" "+v.Name, reuse)
		if err != nil {
			return err
		}
		res.Lengths = lengths
		dir := filepath.Join(base.Dir, rundir.VariantDir(v.Name))
		res.Dir = dir
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("run directory: %w", err)
		}
		if err := writeDiagnostics(dir, diag); err != nil {
			return err
		}
		if err := writeVariantEvents(cfg, dir, res.Lengths); err != nil {
			return err
		}
		if err := WriteResults(dir, &res); err != nil {
			return err
		}
	}
	return nil
}

// copyParams copies the parameter values of src into dst (same shapes, same order).
func copyParams(dst, src *model.Model) error {
	dp, sp := dst.Params(), src.Params()
	if len(dp) != len(sp) {
		return fmt.Errorf("eval variant: the variant's model has %d tensors, the trained one %d", len(dp), len(sp))
	}
	for i := range dp {
		if dp[i].Name != sp[i].Name || !dp[i].Value.Shape().Eq(sp[i].Value.Shape()) {
			return fmt.Errorf("eval variant: tensor %s %v differs from %s %v", dp[i].Name, dp[i].Value.Shape(), sp[i].Name, sp[i].Value.Shape())
		}
		if err := tensor.Copy(dp[i].Value, sp[i].Value); err != nil {
			return fmt.Errorf("eval variant: %s: %w", dp[i].Name, err)
		}
	}
	return nil
}
