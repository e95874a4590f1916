package config

import (
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/position"
)

// Warnings lists what is valid in a config (defaults filled) but deserves a note, one line each:
// the CLI prints them on stderr before training and reports repeat them. They come from the
// position scheme (position.Warner), for the longest training and test sequences: t5, for one,
// notes when the training sequences reach fewer relative-distance buckets than the test
// sequences use.
func (c Config) Warnings() []string {
	if len(c.Eval.Lengths) == 0 {
		return nil
	}
	task, err := c.NewTask()
	if err != nil {
		return nil
	}
	dt, err := nn.Dtype(c.Model.Dtype)
	if err != nil {
		return nil
	}
	spec, err := c.Position.Spec()
	if err != nil {
		return nil
	}
	s, err := position.New(spec, position.Dims{DModel: c.Model.DModel, Heads: c.Model.Heads, Layers: c.Model.Layers, Dtype: dt, Seed: c.Model.Seed, Bidirectional: c.Model.Bidirectional})
	if err != nil {
		return nil
	}
	w, ok := s.(position.Warner)
	if !ok {
		return nil
	}
	return w.Warnings(data.SeqLen(task, c.Task.MaxLen), data.SeqLen(task, c.Eval.Lengths[len(c.Eval.Lengths)-1]))
}
