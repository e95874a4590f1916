package position

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[KerpleOptions, *Kerple]{
		Kind: "kerple",
		Doc:  "KERPLE, logarithmic kernel: learnable bias −r₁·log(1 + r₂·|i − j|) per head (Chi et al. 2022)",
		New: func(o KerpleOptions, d Dims) (*Kerple, error) {
			k := &Kerple{Heads: d.Heads, Bidirectional: d.Bidirectional}
			// Initialisation as the authors' released code (github.com/chijames/KERPLE@25be3d7,
			// megatron/mpu/layers.py:226-227, ParallelKerpleLog: bias_p = r₁ = 2·torch.rand,
			// bias_a = r₂ = torch.rand): r₁ ~ U(0, 2) and r₂ ~ U(0, 1) per head, stored through
			// ρ = softplus⁻¹(r − ε) (KerpleFloor).
			rng := rand.New(rand.NewPCG(d.Seed, 0x6b6572706c65))
			rho := make([]float64, 2*d.Heads)
			for h := 0; h < d.Heads; h++ {
				rho[h] = kerpleRho(2 * rng.Float64())
				rho[d.Heads+h] = kerpleRho(rng.Float64())
			}
			k.rho = nn.Param{Name: "pos.kerple.rho", Value: nn.FromFloat64(d.Dtype, rho, 2*d.Heads)}
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			k.LogScale = ls
			return k, nil
		},
		Params: func(_ KerpleOptions, d Dims) int { return 2 * d.Heads },
	})
}

// The hooks Kerple claims, checked at compile time.
var (
	_ DistanceBiaser = (*Kerple)(nil)
	_ Parameterized  = (*Kerple)(nil)
	_ Tabler         = (*Kerple)(nil)
)

// KerpleFloor is ε in r = ε + softplus(ρ): KERPLE needs r₁, r₂ > 0 (the kernel is conditionally
// positive definite only then, Chi et al. 2022 §3-4), which the released code enforces by
// clamping both parameters at eps = 1e-2 before every use (chijames/KERPLE@25be3d7,
// megatron/mpu/layers.py:205 and 260-261); here a parametrisation keeps them above the same
// floor, so the optimiser never leaves the admissible set and the gradient is smooth.
const KerpleFloor = 1e-2

// Kerple is KERPLE's logarithmic variant (Chi et al. 2022, "KERPLE: Kernelized Relative
// Positional Embedding for Length Extrapolation", §4: the logarithmic variant of the composite
// kernel of Eq. 4): the logit of query i and key j ≤ i gets, in every layer, the per-head bias
//
//	b_h(i, j) = −r₁ₕ·log(1 + r₂ₕ·(i − j)),   r₁ₕ, r₂ₕ > 0 learnable,
//
// the same r in every layer (the paper's Figure 1: the kernel's parameters are per head and
// shared across layers; the released code builds one ParallelKerpleLog and hands it to every
// layer, megatron/model/gpt2_model.py:231 and 258). The bias is added after the 1/√d_head scale,
// as the released code does (megatron/model/transformer.py:332 scales q·k by 1/norm_factor, then
// :354 adds the bias, layers.py:262 "-bias_p*torch.log(1+bias_a*diff)"); the paper's §4 writes
// the kernel inside the division by √d, which only rescales r₁ (by √d_head) and so its
// starting range. With model.bidirectional the distance is |i − j| (the kernel is symmetric;
// the released code is causal only). r = KerpleFloor + softplus(ρ), ρ [2·heads] the trainable
// parameter (r₁ then r₂). The bias depends on the token indices within the sequence, as
// ALiBi's, not on Ctx.Pos.
type Kerple struct {
	Heads         int
	Bidirectional bool
	rho           nn.Param
	LogScale
}

func (k *Kerple) Name() string { return "kerple" }

// BiasByDistance: the bias is a table by distance (DistanceBiaser).
func (k *Kerple) BiasByDistance() {}

// Params returns ρ [2·heads]: r₁ of every head, then r₂.
func (k *Kerple) Params() []nn.Param { return []nn.Param{k.rho} }

func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return pmath.Log1p(pmath.Exp(x))
}

func sigmoid(x float64) float64 { return 1 / (1 + pmath.Exp(-x)) }

// kerpleRho is ρ for a starting value r (kept at least 2ε, so ρ is finite).
func kerpleRho(r float64) float64 {
	return pmath.Log(pmath.Expm1(max(r, 2*KerpleFloor) - KerpleFloor))
}

// R returns the current r₁ and r₂ of every head.
func (k *Kerple) R() (r1, r2 []float64) {
	rho := nn.Float64s(k.rho.Value)
	r1, r2 = make([]float64, k.Heads), make([]float64, k.Heads)
	for h := range r1 {
		r1[h] = KerpleFloor + softplus(rho[h])
		r2[h] = KerpleFloor + softplus(rho[k.Heads+h])
	}
	return r1, r2
}

// kerpleFunc is the bias as an ops.PairFunc of ρ.
type kerpleFunc struct {
	heads int
	bidir bool
}

func (f kerpleFunc) Heads() int { return f.heads }

func (f kerpleFunc) dist(i, j int) float64 {
	if f.bidir {
		return math.Abs(float64(i - j))
	}
	return float64(i - j)
}

func (f kerpleFunc) Bias(rho []float64, i, j int, out []float64) {
	d := f.dist(i, j)
	for h := range out {
		r1, r2 := KerpleFloor+softplus(rho[h]), KerpleFloor+softplus(rho[f.heads+h])
		out[h] = -r1 * pmath.Log1p(r2*d)
	}
}

// BiasGrad: ∂b/∂ρ₁ = −log(1 + r₂d)·σ(ρ₁), ∂b/∂ρ₂ = −r₁·d/(1 + r₂d)·σ(ρ₂).
func (f kerpleFunc) BiasGrad(rho []float64, i, j int, g, drho []float64) {
	d := f.dist(i, j)
	for h, gh := range g {
		r1, r2 := KerpleFloor+softplus(rho[h]), KerpleFloor+softplus(rho[f.heads+h])
		drho[h] += float64(gh * -pmath.Log1p(r2*d) * sigmoid(rho[h])) // float64(): not fused on arm64
		drho[f.heads+h] += float64(gh * -r1 * d / (1 + float64(r2*d)) * sigmoid(rho[f.heads+h]))
	}
}

// LogitBias is the bias by distance of the graph's length, [heads, 2·Len − 1], built once per
// graph and shared by its layers, through ops.DistanceBias (whose gradient reaches ρ).
func (k *Kerple) LogitBias(c Ctx) (*G.Node, error) {
	rho, err := c.B.Param(k.rho)
	if err != nil {
		return nil, err
	}
	n, err := ops.DistanceBias(rho, kerpleFunc{heads: k.Heads, bidir: k.Bidirectional}, c.Len, !k.Bidirectional)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// Table is the current bias by distance: row p holds each head's bias for the key p tokens
// before the query (bidirectional biases are symmetric).
func (k *Kerple) Table(n int) (Table, error) {
	t := Table{Columns: make([]string, k.Heads)}
	for h := range t.Columns {
		t.Columns[h] = fmt.Sprintf("head%d", h)
	}
	f := kerpleFunc{heads: k.Heads}
	rho := nn.Float64s(k.rho.Value)
	for p := 0; p < n; p++ {
		row := make([]float64, k.Heads)
		f.Bias(rho, p, 0, row)
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// KerpleOptions are kerple's options: only the scaling every scheme can take.
type KerpleOptions struct {
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}
