package position

import (
	"fmt"
	"math"

	"github.com/posformer/posformer/internal/nn"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[struct{}]{
		Kind: "alibi",
		Doc:  "linear distance bias per head with fixed slopes (Press et al. 2022)",
		New: func(_ struct{}, d Dims) (Scheme, error) {
			return &ALiBi{Heads: d.Heads, Bidirectional: d.Bidirectional, Slopes: ALiBiSlopes(d.Heads)}, nil
		},
	})
}

// The hooks ALiBi claims, checked at compile time.
var (
	_ LogitBiaser = (*ALiBi)(nil)
	_ Tabler      = (*ALiBi)(nil)
)

// ALiBi is attention with linear biases (Press et al. 2022): no position embedding at all; the
// logit of query i and key j ≤ i gets the per-head bias m_h·(j − i) after the 1/√d_head scale,
// so each head penalises distance linearly with its own slope m_h (see ALiBiSlopes). With
// model.bidirectional the bias is −m_h·|i − j| for keys on both sides.
type ALiBi struct {
	Heads         int
	Bidirectional bool
	Slopes        []float64 // m_h for h = 1..Heads (index h−1)
}

func (a *ALiBi) Name() string { return "alibi" }

// ALiBiSlopes returns the slopes of the paper for h heads. For h a power of two they are the
// geometric sequence m_k = 2^(−8k/h), k = 1..h (8 heads: 1/2, 1/4, …, 1/256). Otherwise, with
// c = 2^⌊log₂ h⌋, they are the slopes for c followed by every other slope of those for 2c
// (the 1st, 3rd, 5th, …) until there are h.
func ALiBiSlopes(h int) []float64 {
	if h < 1 {
		return nil
	}
	pow2 := func(n int) []float64 {
		m := make([]float64, n)
		for k := range m {
			m[k] = math.Pow(2, -8*float64(k+1)/float64(n))
		}
		return m
	}
	c := 1 << (bits(h) - 1) // the largest power of two ≤ h
	m := pow2(c)
	if c == h {
		return m
	}
	for k, x := range ALiBiSlopes(2 * c) {
		if len(m) == h {
			break
		}
		if k%2 == 0 {
			m = append(m, x)
		}
	}
	return m
}

// bits is the number of binary digits of n > 0.
func bits(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

// Bias is the logit bias of head h (0-based) for query i and key j: m·(j − i) (causal; only
// j ≤ i is ever used) or −m·|i − j| (bidirectional).
func (a *ALiBi) Bias(h, i, j int) float64 {
	if a.Bidirectional {
		return -a.Slopes[h] * math.Abs(float64(i-j))
	}
	return a.Slopes[h] * float64(j-i)
}

func (a *ALiBi) values(n int) []float64 {
	v := make([]float64, 0, a.Heads*n*n)
	for h := 0; h < a.Heads; h++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v = append(v, a.Bias(h, i, j))
			}
		}
	}
	return v
}

// LogitBias is the constant [Heads, Len, Len] bias (the model builds it once per graph and
// hands it to every layer). It depends on the token indices i, j within the sequence, not on Ctx.Pos.
func (a *ALiBi) LogitBias(c Ctx) (*G.Node, error) {
	n, err := c.B.Const("pos.alibi.bias", nn.FromFloat64(c.B.Dtype, a.values(c.Len), a.Heads, c.Len, c.Len))
	if err != nil {
		return nil, err
	}
	return n, nil
}

// Table is the bias by distance: row p holds, for each head, the bias of the key p tokens before
// the query (−m_h·p; bidirectional biases are symmetric, so the key p tokens after gets the same).
func (a *ALiBi) Table(n int) (Table, error) {
	t := Table{Columns: make([]string, a.Heads)}
	for h := range t.Columns {
		t.Columns[h] = fmt.Sprintf("head%d", h)
	}
	for p := 0; p < n; p++ {
		row := make([]float64, a.Heads)
		for h := range row {
			row[h] = a.Bias(h, p, 0)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}
