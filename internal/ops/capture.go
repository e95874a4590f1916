package ops

import (
	"errors"
	"fmt"
)

// AttentionCapture reads the attention weights P [B, H, T, T] (after bias, mask and softmax) of
// the Attention op it is given to (AttentionConfig.Capture). It is the one place where inspection
// reaches into the fused op: the op keeps every head's weights instead of one block per worker,
// which it already does for the backward pass of a training graph, so the arithmetic and its
// bits are those of any other graph. An evaluation that stops materialising T×T weights can
// replace this by a reference recomputation behind the same method.
type AttentionCapture struct {
	op  *attentionOp
	src capturer // another attention op that keeps its weights (CoPEAttention)
}

// capturer is an attention op other than Attention that keeps its weights for a capture.
type capturer interface {
	captured() ([]float64, error)
	capturedShape() (batch, heads, length int)
}

// attach makes op keep its weights for c (nil: a graph without capture, nothing to do).
func (c *AttentionCapture) attach(op *attentionOp) {
	if c == nil {
		return
	}
	op.keepP, op.whole = true, true
	c.op = op
}

// Weights returns a float64 copy of the last run's weights, [B, H, T, T] row-major: entry
// ((b·H + h)·T + i)·T + j is how much query i of sequence b attends to key j in head h.
func (c *AttentionCapture) Weights() ([]float64, error) {
	if c != nil && c.src != nil {
		return c.src.captured()
	}
	if c == nil || c.op == nil {
		return nil, errors.New("ops: the attention capture is not attached to a graph")
	}
	cfg := c.op.cfg
	n := cfg.Batch * cfg.Heads * cfg.Len * cfg.Len
	switch {
	case len(c.op.p32.s) >= n:
		out := make([]float64, n)
		for i, x := range c.op.p32.s[:n] {
			out[i] = float64(x)
		}
		return out, nil
	case len(c.op.p64.s) >= n:
		return append([]float64(nil), c.op.p64.s[:n]...), nil
	}
	return nil, fmt.Errorf("ops: no attention weights captured yet: run the graph first")
}

// Shape returns the captured weights' dimensions B, H, T.
func (c *AttentionCapture) Shape() (batch, heads, length int) {
	if c != nil && c.src != nil {
		return c.src.capturedShape()
	}
	if c == nil || c.op == nil {
		return 0, 0, 0
	}
	return c.op.cfg.Batch, c.op.cfg.Heads, c.op.cfg.Len
}
