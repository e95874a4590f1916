package position

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[DPBOptions, *DPB]{
		Kind: "dpb",
		Doc:  "dynamic position bias: an MLP (SiLU) maps the log-distance sign(d)·log(|d| + 1) to a bias per head (CrossFormer, Wang et al. 2021; x-transformers' DynamicPositionBias)",
		New: func(o DPBOptions, d Dims) (*DPB, error) {
			switch {
			case o.MLPWidth < 1 || o.MLPWidth > 4096:
				return nil, fielderr.New("position.mlp_width", "the MLP's hidden width must be in [1, 4096], got %d", o.MLPWidth)
			case o.MLPDepth < 1 || o.MLPDepth > 16:
				return nil, fielderr.New("position.mlp_depth", "the MLP's hidden layers must be in [1, 16] (x-transformers' depth, 2 by default), got %d", o.MLPDepth)
			}
			p := &DPB{Heads: d.Heads, Width: o.MLPWidth, Depth: o.MLPDepth, Bidirectional: d.Bidirectional}
			// Initialisation as x-transformers' nn.Linear layers (PyTorch's default): weights and
			// biases ~ U(−1/√fan_in, 1/√fan_in), fan_in 1 for the first layer, width after.
			rng := rand.New(rand.NewPCG(d.Seed, 0x647062)) // "dpb"
			th := make([]float64, p.f().size())
			u := func(bound float64) float64 { return bound * (float64(2*rng.Float64()) - 1) }
			f := p.f()
			for x := range f.w {
				th[x] = u(1) // w1 and b1, fan_in 1
				th[f.w+x] = u(1)
			}
			in := 1 / math.Sqrt(float64(f.w))
			for x := 2 * f.w; x < len(th); x++ {
				th[x] = u(in)
			}
			p.theta = nn.Param{Name: "pos.dpb.theta", Value: nn.FromFloat64(d.Dtype, th, len(th))}
			var err error
			if p.LogScale, err = newLogScale(o.LogScaling, d); err != nil {
				return nil, err
			}
			return p, nil
		},
		Params: func(o DPBOptions, d Dims) int {
			return dpbFunc{heads: d.Heads, w: max(o.MLPWidth, 0), depth: max(o.MLPDepth, 1)}.size()
		},
	})
}

// DPBOptions are dpb's options: the MLP's shape.
type DPBOptions struct {
	// MLPWidth is the hidden width of the MLP. x-transformers: dim // 4 (16 at d_model 64).
	MLPWidth int `yaml:"mlp_width" default:"16" doc:"hidden width of the MLP; x-transformers uses d_model/4 (16 at d_model 64)"`
	// MLPDepth is the number of hidden layers (Linear then SiLU) before the output layer.
	MLPDepth int `yaml:"mlp_depth" default:"2" doc:"hidden layers (Linear, SiLU) before the output layer: 1 → width → … → heads; x-transformers' dynamic_pos_bias_mlp_depth, 2"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// The hooks DPB claims, checked at compile time.
var (
	_ DistanceBiaser = (*DPB)(nil)
	_ Parameterized  = (*DPB)(nil)
	_ Tabler         = (*DPB)(nil)
)

// DPB is the dynamic position bias of CrossFormer (Wang et al. 2021, "CrossFormer: A Versatile
// Vision Transformer Hinging on Cross-scale Attention", §3.3) as lucidrains/x-transformers
// implements it for sequences (x_transformers.py at 9252ed7, DynamicPositionBias with
// log_distance=True, norm=False): the logit of query i and key j gets, in every layer, after
// the 1/√d_head scale,
//
//	b_h(i, j) = MLP(sign(d)·log(|d| + 1))_h,   d = i − j,
//
// the MLP 1 → width (Linear, SiLU) → … → width → heads (Linear), with mlp_depth hidden layers,
// shared by every layer (x-transformers builds one and hands it to every layer). The bias
// depends on i − j only: a table by distance [heads, 2T − 1] through ops.DistanceBias, so an
// evaluation's memory is linear in T and the MLP runs 2T − 1 times (T causal) per graph. The
// log-distance keeps the MLP's input within [−log T, log T], where a plain distance would run
// past anything seen in training. With model.bidirectional the keys after the query have d < 0
// (the sign tells the sides apart).
type DPB struct {
	Heads, Width, Depth int
	Bidirectional       bool
	theta               nn.Param // the MLP's parameters, dpbFunc's layout
	LogScale
}

func (p *DPB) Name() string { return "dpb" }

// BiasByDistance: the bias is a table by distance (DistanceBiaser).
func (p *DPB) BiasByDistance() {}

// Params returns θ, every weight and bias of the MLP (dpbFunc's layout).
func (p *DPB) Params() []nn.Param { return []nn.Param{p.theta} }

func (p *DPB) f() dpbFunc { return dpbFunc{heads: p.Heads, w: p.Width, depth: p.Depth} }

// LogitBias is the bias by distance of the graph's length, [heads, 2·Len − 1], built once per
// graph and shared by its layers, through ops.DistanceBias (whose gradient reaches θ).
func (p *DPB) LogitBias(c Ctx) (*G.Node, error) {
	theta, err := c.B.Param(p.theta)
	if err != nil {
		return nil, err
	}
	return ops.DistanceBias(theta, p.f(), c.Len, !p.Bidirectional)
}

// Table is the current bias by distance: row p holds each head's bias for the key p tokens
// before the query; an encoder's table adds each head's bias for the key p tokens after it.
func (p *DPB) Table(n int) (Table, error) {
	var t Table
	sides := []int{1}
	if p.Bidirectional {
		sides = []int{1, -1}
	}
	for _, s := range sides {
		for h := range p.Heads {
			t.Columns = append(t.Columns, fmt.Sprintf("head%d%s", h, map[int]string{1: "", -1: "_after"}[s]))
		}
	}
	theta := nn.Float64s(p.theta.Value)
	b := make([]float64, p.Heads)
	for d := range n {
		var row []float64
		for _, s := range sides {
			p.f().Bias(theta, max(s*d, 0), max(-s*d, 0), b)
			row = append(row, b...)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// dpbFunc is the MLP as an ops.PairFunc of θ, laid out as W1 [w] and b1 [w] (1 → w), then for
// each further hidden layer W [w, w] (input × output) and b [w], then W_out [w, heads] and b_out
// [heads].
type dpbFunc struct{ heads, w, depth int }

func (f dpbFunc) Heads() int { return f.heads }

// hidden is the offset of hidden layer l ≥ 1's weights (its bias follows them).
func (f dpbFunc) hidden(l int) int { return 2*f.w + (l-1)*(f.w*f.w+f.w) }

// output is the offset of the output layer's weights.
func (f dpbFunc) output() int { return f.hidden(f.depth) }

func (f dpbFunc) size() int { return f.output() + f.w*f.heads + f.heads }

// DPBInput is the MLP's input for the distance d = i − j: sign(d)·log(|d| + 1).
func DPBInput(d int) float64 {
	x := pmath.Log1p(math.Abs(float64(d)))
	if d < 0 {
		return -x
	}
	return x
}

// silu is x·σ(x) and its derivative σ(x)·(1 + x·(1 − σ(x))).
func silu(x float64) (y, dy float64) {
	s := sigmoid(x)
	return float64(x * s), float64(s * (1 + float64(x*(1-s))))
}

// forward returns the pre-activations a [depth][w] and activations h [depth][w] of the hidden
// layers for input x, and writes the output to out.
func (f dpbFunc) forward(th []float64, x float64, out []float64) (a, h [][]float64) {
	a, h = make([][]float64, f.depth), make([][]float64, f.depth)
	for l := range f.depth {
		a[l], h[l] = make([]float64, f.w), make([]float64, f.w)
		for o := range f.w {
			if l == 0 {
				a[0][o] = float64(th[o]*x) + th[f.w+o]
			} else {
				W, s := th[f.hidden(l):], 0.0
				for i, hi := range h[l-1] {
					s += float64(hi * W[i*f.w+o])
				}
				a[l][o] = s + W[f.w*f.w+o]
			}
			h[l][o], _ = silu(a[l][o])
		}
	}
	W := th[f.output():]
	for k := range out {
		s := 0.0
		for i, hi := range h[f.depth-1] {
			s += float64(hi * W[i*f.heads+k])
		}
		out[k] = s + W[f.w*f.heads+k]
	}
	return a, h
}

func (f dpbFunc) Bias(th []float64, i, j int, out []float64) { f.forward(th, DPBInput(i-j), out) }

// BiasGrad adds to dθ the gradient of Σ_h g[h]·MLP(x)_h, by backpropagation through the layers.
func (f dpbFunc) BiasGrad(th []float64, i, j int, g, dth []float64) {
	x := DPBInput(i - j)
	a, h := f.forward(th, x, make([]float64, f.heads))
	W, dW := th[f.output():], dth[f.output():]
	dh := make([]float64, f.w)
	for i, hi := range h[f.depth-1] {
		s := 0.0
		for k, gk := range g {
			dW[i*f.heads+k] += float64(hi * gk)
			s += float64(W[i*f.heads+k] * gk)
		}
		dh[i] = s
	}
	for k, gk := range g {
		dW[f.w*f.heads+k] += gk
	}
	for l := f.depth - 1; l >= 0; l-- {
		da := make([]float64, f.w)
		for o := range f.w {
			_, ds := silu(a[l][o])
			da[o] = float64(dh[o] * ds)
		}
		if l == 0 {
			for o, d := range da {
				dth[o] += float64(d * x)
				dth[f.w+o] += d
			}
			break
		}
		Wl, dWl := th[f.hidden(l):], dth[f.hidden(l):]
		next := make([]float64, f.w)
		for i, hi := range h[l-1] {
			s := 0.0
			for o, d := range da {
				dWl[i*f.w+o] += float64(hi * d)
				s += float64(Wl[i*f.w+o] * d)
			}
			next[i] = s
		}
		for o, d := range da {
			dWl[f.w*f.w+o] += d
		}
		dh = next
	}
}
