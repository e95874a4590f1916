package position

import (
	"fmt"
	"math"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[ALiBiOptions, *ALiBi]{
		Kind: "alibi",
		Doc:  "linear distance bias per head with fixed slopes (Press et al. 2022)",
		New: func(o ALiBiOptions, d Dims) (*ALiBi, error) {
			if o.Symmetric && !d.Bidirectional {
				return nil, fielderr.New("position.symmetric", "applies to an encoder (model.bidirectional) only; remove it or set model.bidirectional: true")
			}
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			return &ALiBi{Heads: d.Heads, Bidirectional: d.Bidirectional, Symmetric: o.Symmetric, Slopes: ALiBiSlopes(d.Heads), Randomizer: Randomizer{anchored: true}, LogScale: ls}, nil
		},
		Randomizable: true,
	})
}

// ALiBiOptions are alibi's options.
type ALiBiOptions struct {
	// Symmetric gives an encoder the bias −m_h·|i − j| on both sides, without Ruoss et al.'s
	// extra half slope for the keys before the query (which tells the two sides apart).
	Symmetric bool `yaml:"symmetric,omitempty" doc:"encoder (model.bidirectional) only: −m·|i − j| on both sides, without the +m/2 for keys before the query that Ruoss et al.'s code adds to tell the sides apart"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// The hooks ALiBi claims, checked at compile time.
var (
	_ DistanceBiaser = &ALiBi{}
	_ Tabler         = &ALiBi{}
	_ Sampler        = &ALiBi{}
	_ LengthChecker  = &ALiBi{}
)

// ALiBi is attention with linear biases (Press et al. 2022): no position embedding at all; the
// logit of query i and key j ≤ i gets the per-head bias m_h·(j − i) after the 1/√d_head scale,
// so each head penalises distance linearly with its own slope m_h (see ALiBiSlopes).
//
// With model.bidirectional the bias is Ruoss et al.'s (google-deepmind/randomized_positional_encodings@e8c6474
// models/positional_encodings.py:561-586, compute_alibi_encodings_biases, the encoder of their
// and Delétang et al.'s tables): −m_h·|i − j| + m_h/2 for the keys before the query (j < i) and
// −m_h·|i − j| for the others, "to (arbitrarily) break the symmetry (otherwise, the model cannot
// distinguish left and right)" (:577-584). position.symmetric leaves the half slope out (−m_h·|i
// − j| on both sides, posformer's encoder form before this). The slopes are theirs (:533-558, the
// reference code's, as ALiBiSlopes).
//
// Randomized (position.randomized, NOISY_ALIBI, :589-660): each sequence draws n−1 distinct
// distances 0 < r_1 < … < r_{n−1} from [1, max_random), sorted (:613-633, randomize_both_sides
// false, the default: one draw mirrored to both sides), and distance |i − j| = d is replaced by
// r_d: the bias is −m_h·r_d (+ m_h/2 before the query in an encoder, :641). Their code draws once
// per batch and per layer; posformer once per sequence for every layer (Randomization.Anchored,
// the positions 0, r_1, …, r_{n−1}, as relative's).
type ALiBi struct {
	Heads         int
	Bidirectional bool
	Symmetric     bool
	Slopes        []float64 // m_h for h = 1..Heads (index h−1)
	Randomizer
	LogScale
}

// CheckPositions refuses sequences longer than max_random when the distances are randomized.
func (a *ALiBi) CheckPositions(n int) error { return a.checkRandom(n) }

// BiasByDistance: the bias is a table by distance (DistanceBiaser).
func (a *ALiBi) BiasByDistance() {}

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
			m[k] = pmath.Pow(2, -8*float64(k+1)/float64(n))
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
// j ≤ i is ever used) or −m·|i − j| (+ m/2 when j < i unless Symmetric; bidirectional).
func (a *ALiBi) Bias(h, i, j int) float64 {
	return a.distanceBias(h, float64(i-j))
}

// distanceBias is the bias of head h for the (possibly randomized) signed distance δ = i − j.
func (a *ALiBi) distanceBias(h int, delta float64) float64 {
	if a.Bidirectional {
		b := -float64(a.Slopes[h] * math.Abs(delta)) // float64(): not fused on arm64
		if delta > 0 && !a.Symmetric {
			b += float64(0.5 * a.Slopes[h])
		}
		return b
	}
	return a.Slopes[h] * (0 - delta) // m·(j − i), +0 on the diagonal as before
}

// LogitBias is the bias by distance, [Heads, 2·Len − 1] (entry i − j + Len − 1), a constant the
// model builds once per graph and hands to every layer; with randomized distances one table
// per sequence, [Batch·Heads, 2·Len − 1], from the drawn distances (ops.DistanceTable).
func (a *ALiBi) LogitBias(c Ctx) (*G.Node, error) {
	if _, on := a.Randomization(); on {
		return ops.DistanceTable(c.Pos, c.Batch, c.Len, alibiFunc{a})
	}
	T := c.Len
	v := make([]float64, a.Heads*(2*T-1))
	for h := 0; h < a.Heads; h++ {
		for d := -(T - 1); d < T; d++ {
			v[h*(2*T-1)+d+T-1] = a.distanceBias(h, float64(d))
		}
	}
	return c.B.Const("pos.alibi.bias", nn.FromFloat64(c.B.Dtype, v, a.Heads, 2*T-1))
}

// alibiFunc is ALiBi's bias as a function of the drawn distance (ops.DistanceFunc).
type alibiFunc struct{ *ALiBi }

func (f alibiFunc) Heads() int { return f.ALiBi.Heads }
func (f alibiFunc) Bias(delta float64, out []float64) {
	for h := range out {
		out[h] = f.distanceBias(h, delta)
	}
}

// Table is the bias by distance: row p holds, for each head, the bias of the key p tokens before
// the query (−m_h·p, and + m_h/2 in an encoder); an encoder's table adds, for each head, the
// bias of the key p tokens after the query (−m_h·p).
func (a *ALiBi) Table(n int) (Table, error) {
	var t Table
	sides := []int{1}
	if a.Bidirectional {
		sides = []int{1, -1}
	}
	for _, s := range sides {
		for h := 0; h < a.Heads; h++ {
			t.Columns = append(t.Columns, fmt.Sprintf("head%d%s", h, map[int]string{1: "", -1: "_after"}[s]))
		}
	}
	for p := 0; p < n; p++ {
		var row []float64
		for _, s := range sides {
			for h := 0; h < a.Heads; h++ {
				row = append(row, a.distanceBias(h, float64(s*p)))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}
