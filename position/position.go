// Package position holds posformer's position-encoding schemes behind one small interface.
//
// A Scheme has a name and nothing else; what it does to the model is found by type assertion on
// optional hooks, so the model never knows which scheme it holds and a scheme implements only what
// it needs:
//
//   - EmbeddingAdder adds absolute position information to the token embeddings (sinusoidal, learned);
//   - QKRotator rotates each head's queries and keys before q·kᵀ (rope);
//   - LogitBiaser adds a per-head bias to the attention logits, after the 1/√d_head scale
//     (alibi, t5, kerple, fire); RowBiaser, one that the attention evaluates block of rows by
//     block of rows in an evaluation (fire);
//   - RelativeKeyer adds a position term that depends on the query as well as on the distance,
//     (q_i + v)·W_R·R_{i−j} (relative, Transformer-XL's encoding);
//   - Attender computes the attention itself, for a position term that depends on the
//     attention's own logits (cope: contextual positions);
//   - Parameterized exposes trainable parameters (learned, t5);
//   - Tabler gives the scheme's raw table in float64, for analysis and plots;
//   - LengthChecker rejects sequence lengths the scheme cannot encode (learned, randomized positions);
//   - Sampler asks the trainer for randomized positions (Ruoss et al. 2023: the randomized
//     option of sinusoidal, learned and rope);
//   - TokenPositioner derives each token's position from the token ids (abacus, coupled: a
//     digit's place within its number).
//
// NoPE ("none") is a real Scheme with no hooks, never a nil.
package position

import (
	"fmt"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/internal/schemes"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Scheme is a position-encoding scheme.
type Scheme interface {
	Name() string
}

// Ctx is what a hook builds with: the graph under construction, its shape and the positions.
type Ctx struct {
	B          *nn.Builder
	Batch, Len int     // the graph's batch size and sequence length
	Pos        *G.Node // [Batch·Len]: the position of each row, as the graph's float dtype
	MaxPos     int     // every value in Pos is below MaxPos
	// TrainLen is the longest sequence (in tokens) the model is trained on, 0 when unknown. A
	// graph with Len > TrainLen is an evaluation beyond the training lengths, where rope's
	// rope_scaling applies.
	TrainLen int
	// Layer is the index of the block whose attention a per-layer hook (RotateQK, RelativeKeys)
	// builds.
	Layer int
	// Grad is set in a graph whose gradient is taken (training); an evaluation's is not.
	Grad bool
}

// EmbeddingAdder adds position information to the token embeddings x [Batch·Len, d_model].
type EmbeddingAdder interface {
	AddToEmbeddings(c Ctx, x *G.Node) (*G.Node, error)
}

// QKRotator transforms each head's queries and keys, q and k [Batch·Len, d_model], in every layer
// after the projections and before q·kᵀ.
type QKRotator interface {
	RotateQK(c Ctx, q, k *G.Node) (qr, kr *G.Node, err error)
}

// LogitBiaser returns a bias added to the attention logits of every layer after the 1/√d_head
// scale (and not scaled by it): [heads, Len, Len], entry [h, i, j] for query i and key j; or,
// for a bias that depends on i − j only, a table by distance [heads, 2·Len − 1] (entry [h,
// i − j + Len − 1]; [Batch·heads, 2·Len − 1] for one table per sequence), which ops.Attention
// reads row by row, so that it costs O(heads·Len) memory. The model calls it once per graph and
// hands the node to every layer. A scheme whose bias is by distance says so with DistanceBiaser
// (the memory prediction charges it that much).
type LogitBiaser interface {
	LogitBias(c Ctx) (*G.Node, error)
}

// DistanceBiaser is a LogitBiaser whose bias is a table by distance.
type DistanceBiaser interface {
	LogitBiaser
	BiasByDistance()
}

// RowBiaser is a LogitBiaser whose bias depends on the query's position as well as on the
// distance (FIRE's), so that no table by distance holds it. In a graph without gradient (an
// evaluation, c.Grad unset) the model asks it for RowBias instead of LogitBias: the bias as a
// function of parameters (ops.RowBias), which ops.Attention evaluates for one block of query
// rows at a time, so that the memory stays linear in the length. A training graph still takes
// LogitBias's [heads, Len, Len] tensor, whose gradient is summed per pair once for all the layers
// that share it. Both give the same values, rounded alike.
type RowBiaser interface {
	LogitBiaser
	RowBias(c Ctx) (ops.RowBias, error)
}

// RelativeKeyer adds to the logits of every layer a position term that depends on the query as
// well as on the distance, which a bias (the same for every query) cannot express:
// Transformer-XL's (q_i + u)·k_j + (q_i + v)·W_R·R_{i−j}. The model calls RelativeTable once per
// graph (what every layer shares: R, the encodings of the distances) and RelativeKeys in every
// layer (c.Layer) with its projected queries q [Batch·Len, d_model]: it returns the query of
// the content term (q + u, which replaces q) and the relative keys, which ops.Attention adds
// row block by row block as scale·Query_i·Keys[i − j + Len − 1] (see ops.RelativeKeys), so that
// memory stays linear in the length.
type RelativeKeyer interface {
	RelativeTable(c Ctx) (*G.Node, error)
	RelativeKeys(c Ctx, table, q *G.Node) (content *G.Node, rel ops.RelativeKeys, err error)
}

// Parameterized schemes have trainable parameters.
type Parameterized interface {
	Params() []nn.Param
}

// LengthChecker schemes can only encode positions below some bound.
type LengthChecker interface {
	// CheckPositions returns an error naming the fix if positions 0..n-1 cannot be encoded.
	CheckPositions(n int) error
}

// Warner schemes have notes on a valid config (one line each, naming the fields): the trainer
// prints them before training and reports repeat them.
type Warner interface {
	// Warnings is for training sequences of up to trainTokens tokens and test sequences of up
	// to testTokens.
	Warnings(trainTokens, testTokens int) []string
}

// Hooks says which of the hooks that cost memory in a graph a scheme implements.
type Hooks struct {
	AddsEmbedding, RotatesQK, BiasesLogits, RelativeKeys bool
	BiasByDistance                                       bool // the logit bias is a table by distance (DistanceBiaser)
	BiasByRow                                            bool // an evaluation's logit bias is evaluated by rows (RowBiaser)
}

// HooksOf returns the hooks a scheme implements.
func HooksOf(s Scheme) Hooks {
	_, add := s.(EmbeddingAdder)
	_, rot := s.(QKRotator)
	_, bias := s.(LogitBiaser)
	_, rel := s.(RelativeKeyer)
	_, dist := s.(DistanceBiaser)
	_, rows := s.(RowBiaser)
	return Hooks{AddsEmbedding: add, RotatesQK: rot, BiasesLogits: bias, RelativeKeys: rel, BiasByDistance: dist, BiasByRow: rows}
}

// Table is a scheme's raw numbers: one row per position, one column per named quantity.
type Table struct {
	Columns []string
	Rows    [][]float64
}

// Tabler schemes expose their raw table for positions 0..n-1, in float64.
type Tabler interface {
	Table(n int) (Table, error)
}

// Dims are the model dimensions and number type a scheme is built for.
type Dims struct {
	DModel int
	Heads  int
	// Layers is the number of blocks, for schemes with parameters per layer (relative); 0 is
	// counted as 1.
	Layers int
	Dtype  tensor.Dtype
	Seed   uint64 // initialises trainable parameters
	// Bidirectional is model.bidirectional: attention has no causal mask, so relative schemes
	// (alibi, t5) must tell keys before a query from keys after it.
	Bidirectional bool
	// Randomized is position.randomized: the positions are drawn at random (Ruoss et al. 2023)
	// rather than 0..n-1.
	Randomized bool
	// Digit0 is the token of digit 0 of a task written in decimal digits (digits are Digit0 ..
	// Digit0+9; package data's Digital hook); 0: the task has none. The schemes that number
	// digits (TokenPositioner) need it.
	Digit0 int
}

// Spec configures a scheme with typed values: the kind, the randomized-positions keys every
// scheme that reads positions shares, and the scheme's own options struct (see Def). It is the
// `position:` section of a YAML config: package config decodes it (with a record of the keys
// written, and the scheme's options into Options) and fills its defaults here; code and tests
// write one directly (Spec{Kind: "rope"}.With("base", 500.0)).
type Spec struct {
	// Kind is the scheme (Kinds()). Default: sinusoidal. Empty: refused.
	Kind string `yaml:"kind" json:"kind"`
	// Options is the kind's options struct (Def's O), by value; nil: the kind's defaults.
	Options any `yaml:"-" json:"-"`
	// Randomized trains on randomized positions (Ruoss et al. 2023), for the schemes that take
	// them (Randomizable): a sequence of n tokens gets n distinct positions drawn uniformly from
	// [0, max_random) and sorted. Default: false.
	Randomized bool `yaml:"randomized,omitempty" json:"randomized,omitempty"`
	// MaxRandom is L_max, the bound of randomized positions; it must cover the longest test
	// sequence, and a learned table must have at least max_random rows. Default: 256 (with
	// Randomized). 0: refused.
	MaxRandom int `yaml:"max_random,omitempty" json:"max_random,omitempty"`
	// EvalPositions is how a randomized model is evaluated: random (positions sampled as in
	// training, the paper's protocol) or plain (0..n-1). Default: random (with Randomized).
	// Empty: refused.
	EvalPositions string `yaml:"eval_positions,omitempty" json:"eval_positions,omitempty"`

	// Written records the fields above that were written below position: ("kind", ...; package
	// internal/presence): WithDefaults keeps what was written.
	Written presence.Keys `yaml:"-" json:"-"`

	bad []error // what With refused, reported by New
}

// Defaults of Spec's fields.
const (
	DefaultKind          = "sinusoidal"
	DefaultMaxRandom     = 256
	DefaultEvalPositions = "random"
)

// WithDefaults fills the fields that were not written (and hold zero) with their defaults; the
// scheme's options take theirs when the scheme is built.
func (s Spec) WithDefaults() Spec {
	presence.Fill(s.Written, "kind", &s.Kind, DefaultKind)
	if s.Randomized {
		presence.Fill(s.Written, "max_random", &s.MaxRandom, DefaultMaxRandom)
		presence.Fill(s.Written, "eval_positions", &s.EvalPositions, DefaultEvalPositions)
	}
	return s
}

// New builds the scheme a Spec names for the given dimensions. Errors name the config field.
func New(spec Spec, d Dims) (Scheme, error) {
	spec = spec.WithDefaults()
	k, ok := registry[spec.Kind]
	if !ok {
		return nil, schemes.UnknownKind(spec.Kind)
	}
	if d.DModel < 1 || d.Heads < 1 {
		return nil, fielderr.New("position", "model.d_model (%d) and model.heads (%d) must be positive", d.DModel, d.Heads)
	}
	if d.DModel%d.Heads != 0 {
		return nil, fielderr.New("model.heads", "%d heads do not divide model.d_model %d; pick heads among the divisors of d_model", d.Heads, d.DModel)
	}
	if d.Dtype != tensor.Float32 && d.Dtype != tensor.Float64 {
		return nil, fielderr.New("model.dtype", "%v is not supported (use float32 or float64)", d.Dtype)
	}
	opts, err := spec.options(k)
	if err != nil {
		return nil, err
	}
	if spec.Randomized {
		if err := spec.checkRandomized(k); err != nil {
			return nil, err
		}
	}
	d.Randomized = spec.Randomized
	s, err := k.build(opts, d)
	if err != nil {
		return nil, err
	}
	if spec.Randomized {
		// Randomized positions reach max_random − 1: a scheme with a bound must cover them.
		if lc, ok := s.(LengthChecker); ok {
			if err := lc.CheckPositions(spec.MaxRandom); err != nil {
				return nil, fmt.Errorf("%w, or lower position.max_random (randomized positions go up to max_random − 1 = %d)", err, spec.MaxRandom-1)
			}
		}
		rs, ok := s.(randomizable)
		if !ok {
			return nil, fielderr.New("position", "%s is registered Randomizable but does not embed position.Randomizer", spec.Kind)
		}
		rs.setRandomization(Randomization{MaxRandom: spec.MaxRandom, AtEval: spec.EvalPositions == "random"})
	}
	return s, nil
}
