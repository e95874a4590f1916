// Package position holds posformer's position-encoding schemes behind one small interface.
//
// A Scheme has a name and nothing else; what it does to the model is found by type assertion on
// optional hooks, so the model never knows which scheme it holds and a scheme implements only what
// it needs:
//
//   - EmbeddingAdder adds absolute position information to the token embeddings (sinusoidal, learned);
//   - QKRotator rotates each head's queries and keys before q·kᵀ (rope);
//   - LogitBiaser adds a per-head bias [H, T, T] to the attention logits, after the 1/√d_head scale
//     (alibi, t5);
//   - Parameterized exposes trainable parameters (learned, t5);
//   - Tabler gives the scheme's raw table in float64, for analysis and plots;
//   - LengthChecker rejects sequence lengths the scheme cannot encode (learned, randomized positions);
//   - Sampler asks the trainer for randomized positions (Ruoss et al. 2023: the randomized
//     option of sinusoidal, learned and rope).
//
// NoPE ("none") is a real Scheme with no hooks, never a nil.
package position

import (
	"fmt"
	"sort"
	"strings"

	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/presence"
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

// LogitBiaser returns a bias [heads, Len, Len] added to the attention logits of every layer
// after the 1/√d_head scale (and not scaled by it): entry [h, i, j] is for query i and key j.
type LogitBiaser interface {
	LogitBias(c Ctx) (*G.Node, error)
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
	Dtype  tensor.Dtype
	Seed   uint64 // initialises trainable parameters
	// Bidirectional is model.bidirectional: attention has no causal mask, so relative schemes
	// (alibi, t5) must tell keys before a query from keys after it.
	Bidirectional bool
}

// Spec configures a scheme; it is the `position:` section of a run's YAML config. WithDefaults
// fills the fields that were not written (Written, see package internal/presence).
type Spec struct {
	// Kind is the scheme: sinusoidal, learned, rope, none, alibi or t5. Default: sinusoidal.
	Kind string `yaml:"kind" json:"kind"`
	// Base sets the frequencies of sinusoidal (ωᵢ = base^(−2i/d_model)) and rope
	// (θᵢ = base^(−2i/d_rot)); above 1. Default: 10000.
	Base float64 `yaml:"base,omitempty" json:"base,omitempty"`
	// MaxPositions is the number of rows of the learned table; positions at or beyond it cannot be
	// encoded. Default: 256. 0: refused.
	MaxPositions int `yaml:"max_positions,omitempty" json:"max_positions,omitempty"`
	// InitStd is the standard deviation of the initial values of the learned table and of t5's
	// bias table. Default: 0.02. 0: refused.
	InitStd float64 `yaml:"init_std,omitempty" json:"init_std,omitempty"`
	// RotaryFraction is the fraction of each head's dimensions that rope rotates (the first
	// ones, in pairs); the rest pass through, in (0, 1]. Default: 1.
	RotaryFraction float64 `yaml:"rotary_fraction,omitempty" json:"rotary_fraction,omitempty"`
	// RopeScaling is what rope does at evaluation lengths beyond training (a sequence of L_eval
	// tokens when the longest training sequence has L_train < L_eval): none; interpolate
	// (positions scaled by L_train/L_eval, Chen et al. 2023); or ntk (base scaled to
	// base·s^(d_rot/(d_rot−2)), s = L_eval/L_train). Default: none (an empty value).
	RopeScaling string `yaml:"rope_scaling,omitempty" json:"rope_scaling,omitempty"`
	// NumBuckets is the number of t5 relative-distance buckets (half of them per direction when
	// model.bidirectional). Default: 32. 0: refused.
	NumBuckets int `yaml:"num_buckets,omitempty" json:"num_buckets,omitempty"`
	// MaxDistance is the t5 distance where the logarithmic buckets end: every larger distance
	// shares the last bucket. Default: 128. 0: refused.
	MaxDistance int `yaml:"max_distance,omitempty" json:"max_distance,omitempty"`
	// Randomized trains sinusoidal, learned or rope on randomized positions (Ruoss et al. 2023):
	// a sequence of n tokens gets n distinct positions drawn uniformly from [0, max_random) and
	// sorted. Default: false.
	Randomized bool `yaml:"randomized,omitempty" json:"randomized,omitempty"`
	// MaxRandom is L_max, the bound of randomized positions; it must cover the longest test
	// sequence, and a learned table must have at least max_random rows. Default: 256. 0: refused.
	MaxRandom int `yaml:"max_random,omitempty" json:"max_random,omitempty"`
	// EvalPositions is how a randomized model is evaluated: random (positions sampled as in
	// training, the paper's protocol) or plain (0..n-1). Default: random. Empty: refused.
	EvalPositions string `yaml:"eval_positions,omitempty" json:"eval_positions,omitempty"`

	// Written records the keys written below position: ("kind", "base", ...).
	Written presence.Keys `yaml:"-" json:"-"`
}

// Defaults of Spec's fields.
const (
	DefaultKind           = "sinusoidal"
	DefaultBase           = 10000.0
	DefaultMaxPositions   = 256
	DefaultInitStd        = 0.02
	DefaultRotaryFraction = 1.0
	DefaultNumBuckets     = 32
	DefaultMaxDistance    = 128
	DefaultMaxRandom      = 256
	DefaultEvalPositions  = "random"
)

// WithDefaults fills the fields that were not written (and hold zero) with their defaults.
func (s Spec) WithDefaults() Spec {
	w := s.Written
	presence.Fill(w, "kind", &s.Kind, DefaultKind)
	presence.Fill(w, "base", &s.Base, DefaultBase)
	presence.Fill(w, "max_positions", &s.MaxPositions, DefaultMaxPositions)
	presence.Fill(w, "init_std", &s.InitStd, DefaultInitStd)
	presence.Fill(w, "rotary_fraction", &s.RotaryFraction, DefaultRotaryFraction)
	// Options of one kind are filled only for that kind, so other kinds' resolved configs do
	// not change.
	if s.Kind == "t5" {
		presence.Fill(w, "num_buckets", &s.NumBuckets, DefaultNumBuckets)
		presence.Fill(w, "max_distance", &s.MaxDistance, DefaultMaxDistance)
	}
	if s.Randomized {
		presence.Fill(w, "max_random", &s.MaxRandom, DefaultMaxRandom)
		presence.Fill(w, "eval_positions", &s.EvalPositions, DefaultEvalPositions)
	}
	return s
}

var registry = map[string]func(Spec, Dims) (Scheme, error){}

// Register adds a scheme constructor under a kind (from init functions: a new scheme is one file).
func Register(kind string, ctor func(Spec, Dims) (Scheme, error)) {
	if _, dup := registry[kind]; dup {
		panic("position: scheme registered twice: " + kind)
	}
	registry[kind] = ctor
}

// Kinds lists the registered schemes, sorted.
func Kinds() []string {
	ks := make([]string, 0, len(registry))
	for k := range registry {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// New builds the scheme a Spec names for the given dimensions. Errors name the config field.
func New(spec Spec, d Dims) (Scheme, error) {
	spec = spec.WithDefaults()
	ctor, ok := registry[spec.Kind]
	if !ok {
		return nil, fmt.Errorf("position.kind: unknown scheme %q (known: %s)", spec.Kind, strings.Join(Kinds(), ", "))
	}
	if d.DModel < 1 || d.Heads < 1 {
		return nil, fmt.Errorf("position: model.d_model (%d) and model.heads (%d) must be positive", d.DModel, d.Heads)
	}
	if d.DModel%d.Heads != 0 {
		return nil, fmt.Errorf("model.heads: %d heads do not divide model.d_model %d; pick heads among the divisors of d_model", d.Heads, d.DModel)
	}
	if !(spec.Base > 1) {
		return nil, fmt.Errorf("position.base: must be greater than 1, got %g", spec.Base)
	}
	// Options every resolved config holds, whatever the kind, are checked whatever the kind:
	// a value that cannot be used must not be written back as if it could.
	switch {
	case spec.MaxPositions < 1:
		return nil, fmt.Errorf("position.max_positions: must be positive, got %d", spec.MaxPositions)
	case !(spec.InitStd > 0):
		return nil, fmt.Errorf("position.init_std: must be positive, got %g", spec.InitStd)
	case !(spec.RotaryFraction > 0 && spec.RotaryFraction <= 1):
		return nil, fmt.Errorf("position.rotary_fraction: must be in (0, 1], got %g", spec.RotaryFraction)
	}
	if d.Dtype != tensor.Float32 && d.Dtype != tensor.Float64 {
		return nil, fmt.Errorf("model.dtype: %v is not supported (use float32 or float64)", d.Dtype)
	}
	if spec.Randomized {
		if err := spec.checkRandomized(); err != nil {
			return nil, err
		}
	}
	s, err := ctor(spec, d)
	if err != nil {
		return nil, err
	}
	if spec.Randomized {
		s = randomize(s, Randomization{MaxRandom: spec.MaxRandom, AtEval: spec.EvalPositions == "random"})
	}
	return s, nil
}
