package model

import (
	"runtime"

	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/position"
)

// Shape is what a graph's memory depends on besides the model config.
type Shape struct {
	Batch, Len int  // B sequences of T tokens
	Grad       bool // a training graph (gradients, attention weights kept for backward)
	// Capture is an inspection graph: it keeps every layer's attention weights, and reading one
	// layer's copies them to float64.
	Capture bool
	// Hooks are the position scheme's hooks (position.HooksOf): each is charged its share.
	Hooks position.Hooks
	// MaxPos is the number of positions a position table covers (0: Len).
	MaxPos int
	// Workers is the number of workers an evaluation's attention keeps one block of
	// ops.AttentionEvalRows × T weights for (0: GOMAXPROCS).
	Workers int
	// Extra is the position scheme's own parameters (position.ParamCount: a learned table,
	// T5's bucket biases, ...): a training graph holds their gradient.
	Extra int64
}

// GraphBytes predicts, from the sizes alone and before anything is allocated, the memory a graph
// of the given shape holds once it has run: every op's output buffer (activations [B·T, ·], the
// logits [B·T, V]), the attention weights (a training graph keeps P and its gradient, B·H·T²
// each per layer, for the backward pass; an evaluation keeps one block of at most 48 rows × T
// per worker and layer, ops.AttentionEvalRows), the position scheme's share (rotated q and k, an added embedding, a table, a logit
// bias built in float64: by distance [H, 2T−1] for a DistanceBiaser, in an evaluation per worker
// a block of rows [H, rows, T] and every head's packed Kᵀ for a RowBiaser, else [H, T, T];
// relative keys), and for a training graph the gradient of every parameter and of every
// activation, and the GELU's Φ(x), which the AVX2 kernels keep for its gradient. The
// coefficients count the buffers of internal/ops; memory_test.go checks the prediction against
// the measured heap for every scheme (never below it, at most 1.6 times it). c must have its
// vocabulary set.
func GraphBytes(c Config, s Shape) int64 {
	c = c.WithDefaults()
	bytes := int64(4)
	if c.Dtype == "float64" {
		bytes = 8
	}
	B, T := int64(s.Batch), int64(s.Len)
	D, F, V, L, H := int64(c.DModel), int64(c.DFF), int64(max(c.Vocab, 2)), int64(c.Layers), int64(c.Heads)
	N := B * T
	maxPos := int64(max(s.MaxPos, s.Len))
	w := int64(s.Workers)
	if w <= 0 {
		w = int64(runtime.GOMAXPROCS(0))
	}
	w = min(w, B*H)
	var pos int64 // the position scheme's buffers, in elements (forward)
	if s.Hooks.RotatesQK {
		pos += L*2*N*D + 3*maxPos*D*8/bytes // rotated q and k per layer; float64 angle tables
	}
	if s.Hooks.AddsEmbedding {
		pos += N*D + maxPos*D // an added embedding and its table
	}
	switch {
	case s.Hooks.BiasesLogits && s.Hooks.BiasByDistance:
		nb := H
		if maxPos > T { // randomized: one table per sequence
			nb *= B
		}
		pos += nb * (2*T - 1) * (1 + 8/bytes) // a logit bias by distance, built in float64
	case s.Hooks.BiasesLogits && s.Hooks.BiasByRow && !s.Grad:
		// evaluated by the attention (ops.RowBias), its blocks of rows outermost: per layer and
		// worker a block of biases [H, rows, T] and one of weights [rows, T] (beyond the w the
		// formula below charges), and every head's Kᵀ packed in panels of up to 32 keys
		rows := int64(ops.AttentionEvalRows(s.Len, !c.Bidirectional))
		wr := min(int64(max(s.Workers, 0)), (T+rows-1)/rows)
		if wr <= 0 {
			wr = min(int64(runtime.GOMAXPROCS(0)), (T+rows-1)/rows)
		}
		pos += L * (wr*H*rows*T + max(wr-w, 0)*rows*T + B*(T+31)/32*32*D)
	case s.Hooks.BiasesLogits:
		pos += H * T * T * (1 + 8/bytes) // a logit bias [H, T, T], built in float64
	}
	if s.Hooks.RelativeKeys {
		// the table R [(B·)(2T−1), D] and per layer q + u, q + v [N, D], the keys [(B·)(2T−1),
		// D] and the attention's block of the term by distance per worker, [rows, rows + T − 1]
		nr := 2*T - 1
		if maxPos > T { // randomized: one table per sequence
			nr *= B
		}
		rows := int64(ops.AttentionEvalRows(s.Len, !c.Bidirectional))
		if s.Grad {
			rows = T
		}
		pos += nr*D + L*(2*N*D+nr*D+w*rows*(rows+T-1))
	}
	var elems int64
	if !s.Grad {
		rows := int64(ops.AttentionEvalRows(s.Len, !c.Bidirectional))
		elems = N*(3*D+2*V+L*(11*D+2*F)) + L*w*rows*T + pos
	} else {
		pc := c
		pc.Vocab = int(V)
		params := int64(Params(pc, 0)) + maxPos*D + H*T + s.Extra // the model's, at most a scheme's table and biases, and its own parameters
		elems = N*(7*D+4*V+L*(24*D+6*F)) + 2*L*B*H*T*T + 2*pos + 2*params
	}
	if s.Capture {
		elems += L*B*H*T*T + B*H*T*T*8/bytes
	}
	const overhead = 512 << 10 // the graph's nodes and the machine's program
	return elems*bytes + overhead
}

// ParamCount predicts the number of scalar parameters of a model of config c (defaults filled,
// vocabulary set) whose position scheme holds extra scalars (a learned table, a bias table).
func ParamCount(c Config, extra int64) int64 {
	return int64(Params(c, float64(extra)))
}

// Params is the parameter count's one formula, in float64 so that a config's size check can
// weigh absurd sizes (d_model: 1000000) without overflow: the token embedding V·D; per block two
// LayerNorms (4D), attention's four D×D projections and biases (4D² + 4D), the MLP (2DF + F + D);
// the final LayerNorm (2D) and the output head (D·V + V); and the scheme's extra scalars.
func Params(c Config, extra float64) float64 {
	c = c.WithDefaults()
	D, F, V, L := float64(c.DModel), float64(c.DFF), float64(c.Vocab), float64(c.Layers)
	return V*D + L*(4*D*D+2*D*F+9*D+F) + 2*D + D*V + V + extra
}
