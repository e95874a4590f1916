package config

import (
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/fielderr"
)

// lmLengths is the lm task's default eval.lengths for training windows of T tokens: the powers
// of two from 8 to 16·T, and T.
func lmLengths(T int) Lengths {
	var out Lengths
	for L := 8; L <= 16*T && L <= MaxLength; L *= 2 {
		if L > T && (len(out) == 0 || out[len(out)-1] < T) {
			out = append(out, T)
		}
		if L != T {
			out = append(out, L)
		}
	}
	if len(out) == 0 || out[len(out)-1] < T {
		out = append(out, T)
	}
	return out
}

// LMWindowsPerBatch is how many windows of L tokens an lm evaluation batch holds: as many as
// make eval.batch_size windows of the training length, eval.batch_size·task.max_len tokens (at
// least one window), so that short contexts are not scored a few tokens at a time.
func LMWindowsPerBatch(c Config, L int) int {
	return max(1, c.Eval.BatchSize*c.Task.MaxLen/max(L, 1))
}

// validateLM checks the fields that only the lm task reads, and what it cannot do: the corpus
// and the sliding window's stride are the lm task's alone; lm is scored by bits per byte, so
// early stopping (on exact match or token accuracy) and randomized positions (whose evaluation
// draws positions per example) are refused with it.
func (c Config) validateLM() error {
	if !data.ReadsCorpus(c.Task.Name) {
		switch {
		case c.Task.Corpus != "" || c.Written.Has("task.corpus"):
			return fielderr.New("task.corpus", "only the lm task reads a corpus, and task.name is %s; remove task.corpus", c.Task.Name)
		case c.Task.CorpusSHA256 != "" || c.Written.Has("task.corpus_sha256"):
			return fielderr.New("task.corpus_sha256", "only the lm task reads a corpus, and task.name is %s; remove task.corpus_sha256", c.Task.Name)
		case c.Eval.Stride != 0 || c.Written.Has("eval.stride"):
			return fielderr.New("eval.stride", "only the lm task has a sliding-window evaluation, and task.name is %s; remove eval.stride", c.Task.Name)
		}
		return nil
	}
	switch {
	case c.Eval.Stride < 1:
		return fielderr.New("eval.stride", "the sliding window scores the last eval.stride predictions of each window, so it must be at least 1, got %d; remove the key for task.max_len (%d)", c.Eval.Stride, c.Task.MaxLen)
	case c.Train.EarlyStop.On():
		return fielderr.New("train.early_stop", "the lm task is scored by bits per byte, not by exact match or token accuracy; remove train.early_stop")
	case c.Position.Randomized:
		return fielderr.New("position.randomized", "the lm task evaluates at plain positions only; remove position.randomized")
	case c.Select.On():
		return fielderr.New("select", "the lm task has no exact-match validation to choose by; remove select:")
	}
	return nil
}
