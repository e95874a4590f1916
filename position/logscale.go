package position

import (
	"fmt"
	"math"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	G "gorgonia.org/gorgonia"
)

// QueryScaler scales each layer's queries before the logits (after QKRotator, before
// RelativeKeyer and the attention), with parameters of its own (ScaleParams, which the model
// lists after the scheme's Params). Every scheme embeds LogScale, which is this hook, doing
// nothing unless the scheme's option log_scaling is written.
type QueryScaler interface {
	ScaleQuery(c Ctx, q *G.Node) (*G.Node, error)
	ScaleParams() []nn.Param
}

// logScalingDoc is the option every scheme's options struct declares as
//
//	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"..."`
//
// (the same key, type and doc in every scheme).
const logScalingDoc = "log-length attention scaling (SSMax, Nakanishi 2025): every layer's queries are multiplied by s_h·ln n, n the number of keys the query sees, so the softmax is of s_h·ln(n)·z; s learned per layer and head, starting at this value; 0 (the default): off"

// LogScale is log-length attention scaling (Scalable-Softmax, SSMax: Nakanishi 2025, "Scalable-
// Softmax Is Superior for Attention"): the softmax of s·ln(n)·z instead of z, n the number of
// keys the query sees (i + 1 for query i of a causal model, T in an encoder), s learned per layer
// and head, as the paper implements it, by multiplying the query by s·ln n (ops.LogScale). The
// logit terms that do not come from the query (a logit bias, relative's u and v) are not
// scaled. The zero value is off: the queries pass unchanged and there is no parameter.
type LogScale struct {
	s      []nn.Param // per layer, [heads]
	heads  int
	causal bool
}

var _ QueryScaler = (*LogScale)(nil)

// newLogScale is the scaling of a scheme whose option log_scaling is init (0: off).
func newLogScale(init float64, d Dims) (LogScale, error) {
	if init == 0 {
		return LogScale{}, nil
	}
	if !(init > 0) || math.IsInf(init, 0) || init > 100 {
		return LogScale{}, fielderr.New("position.log_scaling", "SSMax's initial s must be in (0, 100] (0 turns it off), got %g", init)
	}
	l := LogScale{heads: d.Heads, causal: !d.Bidirectional}
	for i := range max(d.Layers, 1) {
		l.s = append(l.s, nn.Param{Name: fmt.Sprintf("pos.logscale.s.%d", i), Value: nn.Full(d.Dtype, init, d.Heads)})
	}
	return l, nil
}

// logScaleCount is the number of parameters the scaling adds: layers × heads when on.
func logScaleCount(init float64, d Dims) int {
	if init == 0 {
		return 0
	}
	return max(d.Layers, 1) * d.Heads
}

// ScaleQuery multiplies q [Batch·Len, d_model] by s_h·ln n (layer c.Layer); q itself when off.
func (l *LogScale) ScaleQuery(c Ctx, q *G.Node) (*G.Node, error) {
	if len(l.s) == 0 {
		return q, nil
	}
	if c.Layer < 0 || c.Layer >= len(l.s) {
		return nil, fmt.Errorf("position: log_scaling has parameters for %d layers, asked for layer %d", len(l.s), c.Layer)
	}
	s, err := c.B.Param(l.s[c.Layer])
	if err != nil {
		return nil, err
	}
	return ops.LogScale(q, s, ops.LogScaleConfig{Batch: c.Batch, Len: c.Len, Heads: l.heads, Causal: l.causal})
}

// ScaleParams returns s of every layer, in layer order (none when off).
func (l *LogScale) ScaleParams() []nn.Param { return l.s }
