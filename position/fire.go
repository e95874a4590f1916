package position

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[FIREOptions, *FIRE]{
		Kind: "fire",
		Doc:  "FIRE: learnable bias MLP(ψ(i − j)/ψ(max(L, i))) per head, ψ(x) = log(cx + 1) (Li et al. 2024)",
		New: func(o FIREOptions, d Dims) (*FIRE, error) {
			switch {
			case o.MLPWidth < 1:
				return nil, fielderr.New("position.mlp_width", "must be positive, got %d", o.MLPWidth)
			case o.MLPWidth > 4096:
				return nil, fielderr.New("position.mlp_width", "%d is more than 4096, the widest MLP posformer builds; lower it", o.MLPWidth)
			case !(o.InitC > 0):
				return nil, fielderr.New("position.init_c", "must be positive, got %g", o.InitC)
			case !(o.InitL > 0):
				return nil, fielderr.New("position.init_l", "must be positive, got %g", o.InitL)
			case d.Bidirectional:
				return nil, fielderr.New("position.kind", "fire is defined for causal attention (the interpolation divides by the query's position, Li et al. 2024 §3.2) but model.bidirectional is set; use kerple, alibi or t5 for an encoder, or remove model.bidirectional")
			}
			f := &FIRE{Heads: d.Heads, Width: o.MLPWidth, L0: o.InitL, fn: ops.NewFIRE(d.Heads, o.MLPWidth, o.InitL, d.Dtype)}
			// Initialisation as the paper's reference implementation (the PyTorch listing of
			// Li et al. 2024's appendix, class FIRE(num_heads, mlp_width=32, init_c=0.1,
			// init_L=512., eps=1e-6), reproduced e.g. at mcleish7/arithmetic@86022a5
			// cramming/architectures/embeddings.py:419-448): the MLP nn.Sequential(Linear(1,
			// width), ReLU, Linear(width, heads)) with PyTorch's default nn.Linear init, weights
			// and biases ~ U(−1/√fan_in, 1/√fan_in) (fan_in 1, then width); c = init_c; the
			// threshold L = |L_multiplier·init_L| with L_multiplier = 1 learnable and init_L fixed.
			rng := rand.New(rand.NewPCG(d.Seed, 0x66697265))
			th := make([]float64, f.size())
			u := func(bound float64) float64 { return bound * (float64(2*rng.Float64()) - 1) }
			w2 := 1 / math.Sqrt(float64(o.MLPWidth))
			for k := 0; k < o.MLPWidth; k++ {
				th[f.w1()+k] = u(1)
				th[f.b1()+k] = u(1)
			}
			for k := 0; k < o.MLPWidth*d.Heads; k++ {
				th[f.w2()+k] = u(w2)
			}
			for h := 0; h < d.Heads; h++ {
				th[f.b2()+h] = u(w2)
			}
			th[f.c()] = o.InitC
			th[f.m()] = 1
			f.theta = nn.Param{Name: "pos.fire.theta", Value: nn.FromFloat64(d.Dtype, th, len(th))}
			var err error
			if f.LogScale, err = newLogScale(o.LogScaling, d); err != nil {
				return nil, err
			}
			return f, nil
		},
		Params: func(o FIREOptions, d Dims) int {
			return ops.FIRELayout{Heads: d.Heads, Width: max(o.MLPWidth, 0)}.Size()
		},
	})
}

// FIREOptions are fire's options: the paper's hyper-parameters.
type FIREOptions struct {
	// MLPWidth is the hidden width of the MLP 1 → width → heads (ReLU). Li et al. 2024, the
	// appendix's reference implementation: mlp_width=32, one hidden layer.
	MLPWidth int `yaml:"mlp_width" default:"32" doc:"hidden width of the MLP 1 → width → heads (ReLU); the paper's 32 (Appendix)"`
	// InitC is the starting value of the learnable c of ψ(x) = log(cx + 1). Li et al. 2024, the
	// appendix's reference implementation: init_c=0.1.
	InitC float64 `yaml:"init_c" default:"0.1" doc:"starting value of the learnable c in ψ(x) = log(cx + 1); the paper's 0.1 (Appendix)"`
	// InitL is the starting value of the learnable threshold L of the normaliser ψ(max(L, i)).
	// Li et al. 2024, the appendix's reference implementation: init_L=512. (so sequences shorter
	// than L are not interpolated).
	InitL float64 `yaml:"init_l" default:"512" doc:"starting value of the learnable threshold L of the normaliser ψ(max(L, i)); the paper's 512 (Appendix): positions below L are not interpolated"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// The hooks FIRE claims, checked at compile time.
var (
	_ LogitBiaser   = (*FIRE)(nil)
	_ RowBiaser     = (*FIRE)(nil)
	_ Parameterized = (*FIRE)(nil)
	_ Tabler        = (*FIRE)(nil)
)

// FIREEps is ε of the normaliser ψ(max(L, i)) + ε (the reference implementation's eps=1e-6,
// added to log(|c·max(L, i)| + 1) before the division), which keeps the division defined.
const FIREEps = ops.FIREEps

// FIRE is Functional Interpolation for Relative Positions (Li et al. 2024, "Functional
// Interpolation for Relative Positions Improves Long Context Transformers", §3.2): the logit of
// query i and key j ≤ i gets, in every layer, the per-head bias
//
//	b_h(i, j) = f_θ(ψ(i − j) / (ψ(max(L, i)) + ε))_h,   ψ(x) = log(|c|·x + 1),
//
// with f_θ an MLP 1 → Width → Heads (ReLU) and c, L learnable (L = |m|·L0 with m learnable,
// starting at 1), exactly the paper's reference implementation (its appendix listing: ψ as
// torch.log(torch.abs(c·x) + 1), the normaliser max(positions, |L_multiplier·init_L|) of the
// 0-based query position, eps added to the normaliser's log). Dividing by ψ of the query's
// position is the progressive interpolation: every input lies in [0, 1] at any length, so a
// model trained on short sequences sees the same range on long ones (once i > L). Token indices
// within the sequence, not Ctx.Pos. Causal only.
//
// One f_θ, c and L serve every layer: the model builds the bias once per graph and hands it to
// all layers (as T5's bias and KERPLE's are shared). The reference listing is one module per
// use and does not settle whether the paper's main FIRE is shared across layers; a layer-wise
// FIRE would need a parameter set per layer, which this hook does not have.
//
// θ (one parameter vector) holds, in order: W1 [Width], b1 [Width], W2 [Width, Heads], b2
// [Heads], c, m (ops.FIRELayout). The bias is computed by ops.FIRE in the model's dtype.
type FIRE struct {
	Heads, Width int
	L0           float64 // the threshold's scale, init_l
	theta        nn.Param
	fn           *ops.FIRE // the bias as a function of θ
	LogScale
}

func (f *FIRE) Name() string { return "fire" }

// Params returns θ.
func (f *FIRE) Params() []nn.Param { return []nn.Param{f.theta} }

func (f *FIRE) layout() ops.FIRELayout { return ops.FIRELayout{Heads: f.Heads, Width: f.Width} }
func (f *FIRE) w1() int                { return f.layout().W1() }
func (f *FIRE) b1() int                { return f.layout().B1() }
func (f *FIRE) w2() int                { return f.layout().W2() }
func (f *FIRE) b2() int                { return f.layout().B2() }
func (f *FIRE) c() int                 { return f.layout().C() }
func (f *FIRE) m() int                 { return f.layout().M() }
func (f *FIRE) size() int              { return f.layout().Size() }

// C and L return the current c and threshold L.
func (f *FIRE) C() float64 { return nn.Float64s(f.theta.Value)[f.c()] }
func (f *FIRE) L() float64 { return math.Abs(nn.Float64s(f.theta.Value)[f.m()]) * f.L0 }

// LogitBias is the [heads, Len, Len] bias of the graph's length (per pair, not by distance: it
// depends on the query's position through the normaliser; 0 above the diagonal, where the mask
// hides the keys), built once per graph by the model and shared by its layers, through
// ops.FIREBias.
func (f *FIRE) LogitBias(c Ctx) (*G.Node, error) {
	th, err := c.B.Param(f.theta)
	if err != nil {
		return nil, err
	}
	return ops.FIREBias(th, f.fn, c.Len)
}

// RowBias is the bias of an evaluation graph: θ and ops.FIRE, which ops.Attention evaluates for
// one block of query rows at a time (every head at once, shared by the batch), with FIREBias's
// values to the bit; nothing [heads, Len, Len] is formed, so an evaluation's memory is linear in
// Len. The MLP is then evaluated once per layer instead of once per graph.
func (f *FIRE) RowBias(c Ctx) (ops.RowBias, error) {
	th, err := c.B.Param(f.theta)
	if err != nil {
		return ops.RowBias{}, err
	}
	return ops.RowBias{Theta: th, F: f.fn}, nil
}

// Table is the current bias of the query at position p for the first key (distance p), one
// column per head: FIRE's bias depends on the query's position as well as the distance.
func (f *FIRE) Table(n int) (Table, error) {
	t := Table{Columns: make([]string, f.Heads)}
	for h := range t.Columns {
		t.Columns[h] = fmt.Sprintf("head%d", h)
	}
	th := nn.Float64s(f.theta.Value)
	for p := 0; p < n; p++ {
		row := make([]float64, f.Heads)
		f.fn.Bias(th, p, 0, row)
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}
