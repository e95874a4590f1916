package position

import (
	"fmt"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[SinusoidalOptions, *Sinusoidal]{
		Kind: "sinusoidal",
		Doc:  "fixed sin/cos table added to the embeddings (Vaswani et al. 2017)",
		New: func(o SinusoidalOptions, d Dims) (*Sinusoidal, error) {
			if err := checkBase(o.Base); err != nil {
				return nil, err
			}
			if d.DModel%2 != 0 {
				return nil, fielderr.New("model.d_model", "sinusoidal encodings pair sin and cos, so d_model must be even, got %d", d.DModel)
			}
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			return &Sinusoidal{Base: o.Base, Dim: d.DModel, LogScale: ls}, nil
		},
		Randomizable: true,
	})
}

// SinusoidalOptions are sinusoidal's options.
type SinusoidalOptions struct {
	// Base sets the frequencies ωᵢ = base^(−2i/d_model); above 1.
	Base float64 `yaml:"base" default:"10000" doc:"frequency base: ωᵢ = base^(−2i/d_model); above 1"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// DefaultBase is the frequency base of sinusoidal and rope (Vaswani et al. 2017).
const DefaultBase = 10000.0

// checkBase refuses a frequency base that is not above 1.
func checkBase(b float64) error {
	if !(b > 1) {
		return fielderr.New("position.base", "must be greater than 1, got %g", b)
	}
	return nil
}

// The hooks Sinusoidal claims, checked at compile time.
var (
	_ EmbeddingAdder = (*Sinusoidal)(nil)
	_ Tabler         = (*Sinusoidal)(nil)
	_ Sampler        = (*Sinusoidal)(nil)
	_ LengthChecker  = (*Sinusoidal)(nil)
)

// Sinusoidal is the fixed additive encoding of Vaswani et al. (2017):
// PE[p, 2i] = sin(p·ωᵢ), PE[p, 2i+1] = cos(p·ωᵢ), ωᵢ = Base^(−2i/Dim), positions from 0, sin and
// cos interleaved. Values are computed in float64 and cast to the model's dtype.
type Sinusoidal struct {
	Base float64
	Dim  int
	Randomizer
	LogScale
}

// CheckPositions refuses sequences longer than max_random when the positions are randomized.
func (s *Sinusoidal) CheckPositions(n int) error { return s.checkRandom(n) }

func (s *Sinusoidal) Name() string { return "sinusoidal" }

// Omega returns the frequencies ωᵢ = base^(−2i/d), i < d/2.
func Omega(base float64, d int) []float64 {
	w := make([]float64, d/2)
	for i := range w {
		w[i] = pmath.Pow(base, -2*float64(i)/float64(d))
	}
	return w
}

// SinusoidalPE returns PE(p) for d dimensions in float64.
func SinusoidalPE(p float64, d int, base float64) []float64 {
	pe := make([]float64, d)
	for i, w := range Omega(base, d) {
		pe[2*i], pe[2*i+1] = pmath.Sincos(p * w)
	}
	return pe
}

func (s *Sinusoidal) values(n int) []float64 {
	vals := make([]float64, 0, n*s.Dim)
	for p := 0; p < n; p++ {
		vals = append(vals, SinusoidalPE(float64(p), s.Dim, s.Base)...)
	}
	return vals
}

// AddToEmbeddings adds PE(pos) to every row: x + table[pos], the table bound as a constant.
func (s *Sinusoidal) AddToEmbeddings(c Ctx, x *G.Node) (*G.Node, error) {
	table, err := c.B.Const("pos.sinusoidal.table", nn.FromFloat64(c.B.Dtype, s.values(c.MaxPos), c.MaxPos, s.Dim))
	if err != nil {
		return nil, err
	}
	pe, err := ops.Embed(table, c.Pos)
	if err != nil {
		return nil, err
	}
	return ops.Add(x, pe)
}

// Table is PE for positions 0..n-1: columns d0..d{Dim-1}.
func (s *Sinusoidal) Table(n int) (Table, error) {
	t := Table{Columns: make([]string, s.Dim)}
	for j := range t.Columns {
		t.Columns[j] = fmt.Sprintf("d%d", j)
	}
	for p := 0; p < n; p++ {
		t.Rows = append(t.Rows, SinusoidalPE(float64(p), s.Dim, s.Base))
	}
	return t, nil
}
