package position

import (
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
)

func init() {
	Register(Def[AbacusOptions, *Abacus]{
		Kind: "abacus",
		Doc:  "learned embedding of each digit's place within its number, a random offset in training (McLeish et al. 2024, Abacus); digit tasks only",
		New: func(o AbacusOptions, d Dims) (*Abacus, error) {
			if o.MaxOffset < 0 {
				return nil, fielderr.New("position.max_offset", "must be at least 0, got %d", o.MaxOffset)
			}
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			t, err := newDigitTable("abacus", o.MaxPositions, "position.max_positions", o.InitStd, d)
			if err != nil {
				return nil, err
			}
			return &Abacus{MaxOffset: o.MaxOffset, digitTable: t, LogScale: ls}, nil
		},
		Params: func(o AbacusOptions, d Dims) int { return max(o.MaxPositions, 0) * d.DModel },
	})
}

// AbacusOptions are abacus's options.
type AbacusOptions struct {
	// MaxOffset is k's bound: a training batch's digits are shifted by k uniform in
	// [0, max_offset]. 0 is legal (no offset).
	MaxOffset int `yaml:"max_offset" default:"99" doc:"training shifts every digit's place by k uniform in [0, max_offset], one k per batch (McLeish et al.: 99, trained to 20 digits); none at evaluation; 0: no shift"`
	// MaxPositions is the number of rows of the table. 0: refused.
	MaxPositions int `yaml:"max_positions" default:"256" doc:"table rows: must exceed max_offset + the longest number trained, and the longest number tested"`
	// InitStd is the standard deviation of the table's initial values. 0: refused.
	InitStd float64 `yaml:"init_std" default:"1" doc:"standard deviation of the table's initial values; 1, as the token embeddings' (and torch's nn.Embedding, the papers' code): at 0.02 the positions are 50 times weaker than the tokens and addition was not learned in 4000 steps"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// The hooks Abacus claims, checked at compile time.
var (
	_ TokenPositioner = &Abacus{}
	_ EmbeddingAdder  = &Abacus{}
	_ Parameterized   = &Abacus{}
	_ Tabler          = &Abacus{}
)

// Abacus is McLeish et al. 2024's Abacus embedding (mcleish7/arithmetic, abacus.py): a learned
// table [max_positions, d_model] added to the token embeddings at each token's place within its
// number, its maximal run of digit tokens, counted from 1 (numbers are written least
// significant digit first, so a place is a significance); a token that is not a digit gets row
// 0. In training every digit's place is shifted by one k uniform in [0, max_offset] per batch
// (Abacus.forward draws one k per call), so that the rows beyond the training numbers' lengths
// are trained too; an evaluation adds none.
type Abacus struct {
	MaxOffset int
	digitTable
	LogScale
}

func (*Abacus) Name() string { return "abacus" }

// TokenPositions is digitPlaces, shifted by one k for the whole batch in training.
func (a *Abacus) TokenPositions(tokens []int, batch, length int, rng *rand.Rand) ([]int, error) {
	pos, longest := digitPlaces(tokens, batch, length, a.digit)
	k, reach := 0, 0
	if rng != nil {
		k, reach = rng.IntN(a.MaxOffset+1), a.MaxOffset
	}
	for _, n := range longest {
		if n+reach >= a.rows {
			return nil, fielderr.New("position.max_positions", "abacus has %d rows, but a number of %d digits shifted by up to %d needs %d; raise position.max_positions to at least %d", a.rows, n, reach, n+reach+1, n+reach+1)
		}
	}
	for i, p := range pos {
		if p > 0 {
			pos[i] = p + k
		}
	}
	return pos, nil
}
