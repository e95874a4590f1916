package setup

import (
	"errors"
	"fmt"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/position"
)

// checkVariants builds the position scheme of every eval variant that applies to the run
// (config.EvalVariant.Applies) as its evaluation will (config.Config.VariantConfig), so that a
// variant the scheme refuses (dynamic_ntk without rope_factor, yarn with randomized positions)
// fails before training, not after it. An error names the variant's field,
// eval.variants[i].<key>, not the run's position.<key>. longest is the run's longest sequence in
// tokens.
func checkVariants(c config.Config, task data.Task, longest int) error {
	for i, v := range c.Eval.Variants {
		if !v.Applies(c) {
			continue
		}
		vc := c.VariantConfig(v)
		s, err := position.New(vc.Position.Spec, vc.ModelFor(task).SchemeDims())
		if err == nil {
			if lc, ok := s.(position.LengthChecker); ok {
				err = lc.CheckPositions(longest)
			}
		}
		if err != nil {
			return variantError(i, v, err)
		}
	}
	return nil
}

// variantError is a scheme's error about position.<key> for the variant at index i of
// eval.variants: at eval.variants[i].<key> when the variant writes or lacks that option
// (rope_factor for dynamic_ntk), else at the variant's rope_scaling or eval_positions, whichever
// it sets (the options it changes).
func variantError(i int, v config.EvalVariant, err error) error {
	field := fmt.Sprintf("eval.variants[%d]", i)
	key := strings.TrimPrefix(fielderr.PathOf(err), "position.")
	switch {
	case key == "rope_scaling" || key == "rope_factor" || key == "rope_long_factor" || key == "eval_positions":
		field += "." + key
	case v.RopeScaling != "":
		field += ".rope_scaling"
	case v.EvalPositions != "":
		field += ".eval_positions"
	}
	var fe *fielderr.Error
	if errors.As(err, &fe) && fe.File == "" {
		err = fe.Err // the scheme's message without its position.<key>, which the variant's path replaces
	}
	return fielderr.Wrap(field, fmt.Errorf("%w (eval variant %s)", err, v.Name))
}
