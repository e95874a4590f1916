package position

import (
	"fmt"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[LearnedOptions, *Learned]{
		Kind: "learned",
		Doc:  "trainable absolute table added to the embeddings",
		New: func(o LearnedOptions, d Dims) (*Learned, error) {
			if o.MaxPositions < 1 {
				return nil, fielderr.New("position.max_positions", "must be positive, got %d", o.MaxPositions)
			}
			if !(o.InitStd > 0) {
				return nil, fielderr.New("position.init_std", "must be positive, got %g", o.InitStd)
			}
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			rng := rand.New(rand.NewPCG(d.Seed, 0x1ea27ed))
			return &Learned{MaxPositions: o.MaxPositions, table: nn.Param{
				Name:  "pos.learned.table",
				Value: nn.Normal(d.Dtype, rng, o.InitStd, o.MaxPositions, d.DModel),
			}, LogScale: ls}, nil
		},
		Params:       func(o LearnedOptions, d Dims) int { return max(o.MaxPositions, 0) * d.DModel },
		Randomizable: true,
	})
}

// LearnedOptions are learned's options.
type LearnedOptions struct {
	// MaxPositions is the number of rows of the table; positions at or beyond it cannot be
	// encoded. 0: refused.
	MaxPositions int `yaml:"max_positions" default:"256" doc:"table rows; must cover the longest sequence trained or tested (and max_random when randomized)"`
	// InitStd is the standard deviation of the table's initial values. 0: refused.
	InitStd float64 `yaml:"init_std" default:"0.02" doc:"standard deviation of the table's initial values"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// The hooks Learned claims, checked at compile time.
var (
	_ EmbeddingAdder = (*Learned)(nil)
	_ Parameterized  = (*Learned)(nil)
	_ LengthChecker  = (*Learned)(nil)
	_ Sampler        = (*Learned)(nil)
	_ Tabler         = (*Learned)(nil)
)

// Learned is a trainable absolute table [MaxPositions, d_model] added to the token embeddings,
// initialised from N(0, init_std²). Positions at or beyond MaxPositions cannot be encoded.
type Learned struct {
	MaxPositions int
	table        nn.Param
	Randomizer
	LogScale
}

func (l *Learned) Name() string { return "learned" }

// Params returns the table.
func (l *Learned) Params() []nn.Param { return []nn.Param{l.table} }

// CheckPositions rejects sequences longer than the table (and, with randomized positions, longer
// than max_random).
func (l *Learned) CheckPositions(n int) error {
	if err := l.checkRandom(n); err != nil {
		return err
	}
	return l.checkRows(n)
}

// checkRows rejects positions 0..n-1 that the table does not hold.
func (l *Learned) checkRows(n int) error {
	if n > l.MaxPositions {
		return fielderr.New("position.max_positions", "the learned table has %d rows but position %d is needed; raise position.max_positions to at least %d", l.MaxPositions, n-1, n)
	}
	return nil
}

// AddToEmbeddings adds table[pos] to every row.
func (l *Learned) AddToEmbeddings(c Ctx, x *G.Node) (*G.Node, error) {
	if err := l.CheckPositions(c.MaxPos); err != nil {
		return nil, err
	}
	table, err := c.B.Param(l.table)
	if err != nil {
		return nil, err
	}
	pe, err := ops.Embed(table, c.Pos)
	if err != nil {
		return nil, err
	}
	return ops.Add(x, pe)
}

// Table is the current (trained or initial) table for positions 0..n-1 (any n up to its rows,
// randomized or not).
func (l *Learned) Table(n int) (Table, error) {
	if err := l.checkRows(n); err != nil {
		return Table{}, err
	}
	d := l.table.Value.Shape()[1]
	vals := nn.Float64s(l.table.Value)
	t := Table{Columns: make([]string, d)}
	for j := range t.Columns {
		t.Columns[j] = fmt.Sprintf("d%d", j)
	}
	for p := 0; p < n; p++ {
		t.Rows = append(t.Rows, vals[p*d:(p+1)*d])
	}
	return t, nil
}
