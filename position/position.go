// Package position holds posformer's position-encoding schemes behind one small interface.
//
// A Scheme has a name and nothing else; what it does to the model is found by type assertion on
// optional hooks, so the model never knows which scheme it holds and a scheme implements only what
// it needs:
//
//   - EmbeddingAdder adds absolute position information to the token embeddings (sinusoidal, learned);
//   - QKRotator rotates each head's queries and keys before q·kᵀ (rope);
//   - LogitBiaser adds a per-head bias [H, T, T] to the attention logits, after the 1/√d_head scale;
//   - Parameterized exposes trainable parameters (learned);
//   - Tabler gives the scheme's raw table in float64, for analysis and plots;
//   - LengthChecker rejects sequence lengths the scheme cannot encode (learned).
//
// NoPE ("none") is a real Scheme with no hooks, never a nil.
package position

import (
	"fmt"
	"sort"
	"strings"

	"github.com/posformer/posformer/internal/nn"
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
}

// Spec configures a scheme; it is the `position:` section of a run's YAML config.
// Zero values mean the documented default.
type Spec struct {
	// Kind is the scheme: sinusoidal, learned, rope or none. Default: sinusoidal.
	Kind string `yaml:"kind" json:"kind"`
	// Base sets the frequencies of sinusoidal (ωᵢ = base^(−2i/d_model)) and rope
	// (θᵢ = base^(−2i/d_rot)). Default: 10000.
	Base float64 `yaml:"base,omitempty" json:"base,omitempty"`
	// MaxPositions is the number of rows of the learned table; positions at or beyond it cannot be
	// encoded. Default: 256.
	MaxPositions int `yaml:"max_positions,omitempty" json:"max_positions,omitempty"`
	// InitStd is the standard deviation of the learned table's initial values. Default: 0.02.
	InitStd float64 `yaml:"init_std,omitempty" json:"init_std,omitempty"`
	// RotaryFraction is the fraction of each head's dimensions that rope rotates (the first
	// ones, in pairs); the rest pass through. Default: 1.
	RotaryFraction float64 `yaml:"rotary_fraction,omitempty" json:"rotary_fraction,omitempty"`
}

// Defaults of Spec's fields.
const (
	DefaultKind           = "sinusoidal"
	DefaultBase           = 10000.0
	DefaultMaxPositions   = 256
	DefaultInitStd        = 0.02
	DefaultRotaryFraction = 1.0
)

// WithDefaults fills zero fields with their defaults.
func (s Spec) WithDefaults() Spec {
	if s.Kind == "" {
		s.Kind = DefaultKind
	}
	if s.Base == 0 {
		s.Base = DefaultBase
	}
	if s.MaxPositions == 0 {
		s.MaxPositions = DefaultMaxPositions
	}
	if s.InitStd == 0 {
		s.InitStd = DefaultInitStd
	}
	if s.RotaryFraction == 0 {
		s.RotaryFraction = DefaultRotaryFraction
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
	if d.Dtype != tensor.Float32 && d.Dtype != tensor.Float64 {
		return nil, fmt.Errorf("model.dtype: %v is not supported (use float32 or float64)", d.Dtype)
	}
	return ctor(spec, d)
}
