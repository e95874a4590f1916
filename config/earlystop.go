package config

import (
	"math"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/metric"
)

// EarlyStop is `train.early_stop:`, training to convergence rather than to a step count. It is
// off unless the section is written, and a written section must give patience or target (one
// that sets nothing, early_stop: {}, is refused, not read as off). At every validation (every
// train.val_every steps and at the last step) the in-range validation score s is compared with
// the best so far:
//
//   - s improves on the best when it exceeds it by more than min_delta (the first validation
//     always does); the weights after that step are then saved as the best checkpoint
//     (rundir.BestCheckpoint), and the count of validations without improvement restarts at 0;
//   - otherwise that count grows by one;
//   - training stops after the validation where the count reaches patience (a plateau), or where
//     s ≥ target (the task is solved), or at train.steps, whichever comes first.
//
// The results are those of the best checkpoint (ties go to the earlier step), which is what
// train.ResultsCheckpoint names. The learning-rate schedule still spans train.steps, so a run that
// stops early never saw its learning rate decay fully. The rule's state (best score, its step,
// the count, whether training stopped) is part of the checkpoint, so a resumed run stops where
// an uninterrupted one does.
type EarlyStop struct {
	// Patience is the number of validations in a row without improvement after which training
	// stops, at least 1; absent: no plateau rule (only target).
	Patience int `yaml:"patience,omitempty" json:"patience,omitempty"`
	// MinDelta is the least increase of the score that counts as an improvement. Default: 0.
	MinDelta float64 `yaml:"min_delta,omitempty" json:"min_delta,omitempty"`
	// Target stops training as soon as the score reaches it; 0: no target.
	Target float64 `yaml:"target,omitempty" json:"target,omitempty"`
	// Metric is the validation score: a metric computed from answers (metric.Scored:
	// exact_match, token_accuracy), the mean over the training lengths' validation sets.
	// Default (absent): exact_match; written empty it is refused.
	Metric string `yaml:"metric,omitempty" json:"metric,omitempty"`
}

// On tells whether early stopping was asked for.
func (e EarlyStop) On() bool { return e != EarlyStop{} }

// offUnlessWritten makes EarlyStop a switchSection: `early_stop: {}` is refused, not read as off.
func (EarlyStop) offUnlessWritten() {}

// withDefaults fills the metric when it was not written; a written empty metric is kept for
// validate to refuse, as select.metric's is.
func (e EarlyStop) withDefaults(written presence.Keys) EarlyStop {
	if e.On() {
		presence.Fill(written, "train.early_stop.metric", &e.Metric, metric.ExactMatch)
	}
	return e
}

func (e EarlyStop) validate(tr TrainConfig, written presence.Keys) error {
	// Zeros that would only mean "absent" are refused when written, so early_stop: {patience: 0}
	// never silently turns early stopping off.
	switch {
	case written.Has("train.early_stop.patience") && e.Patience <= 0:
		return fielderr.New("train.early_stop.patience", "must be a positive number of validations, got %d; remove the key for no plateau rule (then give train.early_stop.target)", e.Patience)
	case written.Has("train.early_stop.metric") && e.Metric == "":
		return fielderr.New("train.early_stop.metric", "empty; want %s, or remove the key for %s", metric.Names(metric.Scored(), "or"), metric.ExactMatch)
	case written.Has("train.early_stop.target") && e.Target == 0:
		return fielderr.New("train.early_stop.target", "0 is not allowed: remove the key for no target")
	case written.Has("train.early_stop") && !e.On():
		return fielderr.New("train.early_stop", "the section is written but sets nothing, so it is unclear whether early stopping is on; give train.early_stop.patience (validations without improvement before stopping) or train.early_stop.target (a score that stops training), e.g. early_stop: {patience: 5}, or remove the key for no early stopping")
	case written.HasUnder("train.early_stop") && !e.On():
		return fielderr.New(written.FirstUnder("train.early_stop"), "written alone it turns nothing on; give train.early_stop.patience (validations without improvement before stopping) or train.early_stop.target (a score that stops training), e.g. early_stop: {patience: 5}")
	}
	if !e.On() {
		return nil
	}
	switch {
	case !(e.MinDelta >= 0) || math.IsInf(e.MinDelta, 0):
		return fielderr.New("train.early_stop.min_delta", "must be zero or a positive number, got %g", e.MinDelta)
	case !(e.Target >= 0 && e.Target <= 1):
		return fielderr.New("train.early_stop.target", "must be a score in (0, 1], or absent for no target, got %g", e.Target)
	case e.Patience == 0 && e.Target == 0:
		return fielderr.New("train.early_stop", "give patience (validations without improvement before stopping) or target (a score that stops training), e.g. early_stop: {patience: 5}")
	case !validated(e.Metric):
		return fielderr.New("train.early_stop.metric", "want %s, got %q", metric.Names(metric.Scored(), "or"), e.Metric)
	case tr.ValEvery <= 0:
		return fielderr.New("train.early_stop", "needs validation; set train.val_every to a positive number of steps")
	case tr.ValEvery%tr.LogEvery != 0:
		return fielderr.New("train.early_stop", "train.val_every (%d) must be a multiple of train.log_every (%d), as validations are made on logged steps; change either", tr.ValEvery, tr.LogEvery)
	}
	return nil
}

// validated: the metric is one validation measures (metric.Scored), which train.early_stop and
// select: may choose.
func validated(name string) bool {
	m, ok := metric.Get(name)
	return ok && m.Score != nil
}
