package position

import (
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
)

func init() {
	Register(Def[CoupledOptions, *Coupled]{
		Kind: "coupled",
		Doc:  "position coupling: digits of one significance share a learned position, a random start in training (Cho et al. 2024); digit tasks only",
		New: func(o CoupledOptions, d Dims) (*Coupled, error) {
			if o.MaxPosition < 1 {
				return nil, fielderr.New("position.max_position", "must be at least 1, got %d", o.MaxPosition)
			}
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			t, err := newDigitTable("coupled", o.MaxPosition+1, "position.max_position", o.InitStd, d)
			if err != nil {
				return nil, err
			}
			return &Coupled{MaxPosition: o.MaxPosition, digitTable: t, LogScale: ls}, nil
		},
		Params: func(o CoupledOptions, d Dims) int { return max(o.MaxPosition+1, 0) * d.DModel },
	})
}

// CoupledOptions are coupled's options.
type CoupledOptions struct {
	// MaxPosition is the largest position id; the table has max_position + 1 rows. Below 1:
	// refused.
	MaxPosition int `yaml:"max_position" default:"132" doc:"the largest position id (Cho et al.'s max_position: 132 trained to 40 digits): a training sequence starts at s uniform in [1, max_position − its longest number], an evaluation at 1; must exceed the longest number tested"`
	// InitStd is the standard deviation of the table's initial values. 0: refused.
	InitStd float64 `yaml:"init_std" default:"1" doc:"standard deviation of the table's initial values; 1, as the token embeddings' (and torch's nn.Embedding, the papers' code): at 0.02 the positions are 50 times weaker than the tokens and addition was not learned in 4000 steps"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// The hooks Coupled claims, checked at compile time.
var (
	_ TokenPositioner = &Coupled{}
	_ EmbeddingAdder  = &Coupled{}
	_ Parameterized   = &Coupled{}
	_ Tabler          = &Coupled{}
)

// Coupled is Cho et al. 2024's position coupling (HanseulJo/position-coupling,
// src/data/addition.py, AdditionDatasetWithCoupledPositions), with a learned absolute table
// [max_position + 1, d_model] added to the token embeddings as theirs (abs_learned). Tokens of
// one significance share a position: a digit at place p of its number (counted from 1, least
// significant first) gets s + p, an operand's and the answer's alike, and every other token
// (+, SEP, END) gets s. In training s is drawn per sequence uniformly from [1, max_position − P],
// P the sequence's longest number (theirs: randint(1, max_position − len(answer) + 1), the
// answer being the longest number), so every position up to max_position is trained; an
// evaluation starts at s = 1.
type Coupled struct {
	MaxPosition int
	digitTable
	LogScale
}

func (*Coupled) Name() string { return "coupled" }

// TokenPositions is digitPlaces plus each sequence's start.
func (c *Coupled) TokenPositions(tokens []int, batch, length int, rng *rand.Rand) ([]int, error) {
	pos, longest := digitPlaces(tokens, batch, length, c.digit)
	for b, n := range longest {
		if n+1 > c.MaxPosition {
			return nil, fielderr.New("position.max_position", "coupled positions go up to %d, but a number of %d digits starting at 1 needs %d; raise position.max_position to at least %d", c.MaxPosition, n, n+1, n+1)
		}
		s := 1
		if rng != nil {
			s += rng.IntN(c.MaxPosition - n)
		}
		for i := b * length; i < (b+1)*length; i++ {
			pos[i] += s
		}
	}
	return pos, nil
}
