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
	Register(Def[RelativeOptions, *Relative]{
		Kind: "relative",
		Doc:  "Transformer-XL's relative encoding: (q_i + u)·k_j + (q_i + v)·W_R·R_{i−j}, R sinusoidal, u, v, W_R learned per layer (Dai et al. 2019)",
		New: func(o RelativeOptions, d Dims) (*Relative, error) {
			if err := checkBase(o.Base); err != nil {
				return nil, err
			}
			if d.DModel%2 != 0 {
				return nil, fielderr.New("model.d_model", "relative encodings pair sin and cos, so d_model must be even, got %d", d.DModel)
			}
			r := &Relative{Heads: d.Heads, Dim: d.DModel, Base: o.Base, Bidirectional: d.Bidirectional, Randomizer: Randomizer{anchored: true}}
			// Initialisation as Ruoss et al.'s code (positional_encodings.py@e8c6474:389-393 and
			// 411-415, u and v ~ N(0, 0.02²); :405, W_R is hk.Linear's default, a normal
			// truncated at two standard deviations with standard deviation 1/√fan_in).
			rng := rand.New(rand.NewPCG(d.Seed, 0x72656c61746976))
			for l := range relLayers(d) {
				name := func(p string) string { return fmt.Sprintf("pos.relative.%s.%d", p, l) }
				r.layers = append(r.layers, relLayer{
					u:  nn.Param{Name: name("u"), Value: nn.Normal(d.Dtype, rng, 0.02, d.DModel)},
					v:  nn.Param{Name: name("v"), Value: nn.Normal(d.Dtype, rng, 0.02, d.DModel)},
					wr: nn.Param{Name: name("wr"), Value: nn.FromFloat64(d.Dtype, truncNormal(rng, d.DModel*d.DModel, 1/math.Sqrt(float64(d.DModel))), d.DModel, d.DModel)},
				})
			}
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			r.LogScale = ls
			return r, nil
		},
		Params:       func(_ RelativeOptions, d Dims) int { return relLayers(d) * (2*d.DModel + d.DModel*d.DModel) },
		Randomizable: true,
	})
}

// RelativeOptions are relative's options.
type RelativeOptions struct {
	// Base sets the frequencies of R, ω_k = base^(−2k/d_model) (max_time in Ruoss et al.'s code,
	// 10000).
	Base float64 `yaml:"base" default:"10000" doc:"frequency base of the distances' sinusoids R: ω_k = base^(−2k/d_model); above 1"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// The hooks Relative claims, checked at compile time.
var (
	_ RelativeKeyer = &Relative{}
	_ Parameterized = &Relative{}
	_ Tabler        = &Relative{}
	_ Sampler       = &Relative{}
	_ LengthChecker = &Relative{}
)

// Relative is Transformer-XL's relative position encoding (Dai et al. 2019, "Transformer-XL:
// Attentive Language Models Beyond a Fixed-Length Context", §3.3), the "Relative" of Delétang et
// al. 2023 and Ruoss et al. 2023. The logit of query i and key j is
//
//	((q_i + u)·k_j + (q_i + v)·W_R·R_{i−j}) / √d_head,   per head,
//
// with R_δ = [sin(δω_0), …, sin(δω_{d/2−1}), cos(δω_0), …, cos(δω_{d/2−1})] (d = d_model, ω_k =
// base^(−2k/d)), W_R [d_model, d_model] without bias, and u, v [d_model] (a vector per head)
// learned. Sources, read at google-deepmind/randomized_positional_encodings@e8c6474
// models/positional_encodings.py (Ruoss et al.'s code, the JAX port both papers used) and
// kimiyoung/transformer-xl@44781ed pytorch/mem_transformer.py:
//   - the content term (q + u)·k: positional_encodings.py:389-394 (relpos_contentbias);
//     mem_transformer.py:249-250 (r_w_bias, AC);
//   - the position term (q + v)·W_R·R: positional_encodings.py:396-418 (R from
//     sinusoid_position_encoding, :160-193, sines then cosines; W_R = hk.Linear(with_bias=False),
//     :405; relpos_relativebias, :411-418); mem_transformer.py:216 (r_net, bias=False), 252-254
//     (r_r_bias, BD, _rel_shift);
//   - both terms scaled by 1/√d_head: transformer.py:221 (attention *= 1/√d after
//     compute_attention_with_relative_encodings); mem_transformer.py:257-258;
//   - the distances: causal, R_{i−j} for i − j ≥ 0, as Transformer-XL (pos_seq = klen−1 … 0,
//     mem_transformer.py:664, shifted by _rel_shift, :194); bidirectional (model.bidirectional),
//     every i − j ∈ [−(T−1), T−1], as Ruoss et al.'s encoder (add_negative_side, :400, and
//     _rel_shift_inner, :229-266).
//
// Choices where the sources differ or are silent. The sign of the distance: Ruoss et al.'s
// encoder reads R_{j−i} (_rel_shift_inner's output row i holds the positions j − i, :236-244);
// posformer reads R_{i−j} as Transformer-XL and the paper do. R_{−δ} is R_δ with its sines
// negated, so the two are the same model with W_R's sine rows negated, equal in distribution at
// initialisation. Ruoss et al.'s causal path (relative_shift with causal=True over positions
// 0..T−1, :269-297 and :396-401) gives query i and key j the encoding of T−1−(i−j), which
// depends on the length; posformer's causal form is Transformer-XL's. u, v and W_R are per layer
// as in Ruoss et al.'s code (parameters of each layer's attention module); Transformer-XL shares
// u and v across layers (mem_transformer.py:587-588).
//
// Randomized (position.randomized, NOISY_RELATIVE, positional_encodings.py:428-530): each
// sequence draws n−1 distinct distances 0 < r_1 < … < r_{n−1} from [1, max_random), sorted
// (:471-477, jrandom.choice without replacement from arange(1, noise_max_length), sorted), and
// distance ±d reads R_{±r_d}, the left side mirroring the right (:486-491, randomize_both_sides
// false, the default, :86); distance 0 stays 0. The draw is Randomization.Anchored: the
// sequence's positions are 0, r_1, …, r_{n−1}, and the encodings are computed from their
// differences with position 0 (ops.RelativeSinusoid). Two differences from that code: it draws
// once per batch and per layer (hk.next_rng_key in each layer's attention), posformer once per
// sequence for every layer (as its other randomized schemes); and its table of encodings has
// only positions 0..L−1 (sinusoid_position_encoding(sequence_length=noise_max_length) without
// add_negative_side, :500-504) while the indices it reads are δ + L ∈ [1, 2L−1] (:497), which
// JAX's gather clamps to L−1: every key at or after the query would read R_{L−1}, though the
// comment at :492-496 says index L is meant to be position 0. posformer encodes ±r_d, what the
// comment describes.
type Relative struct {
	Heads, Dim    int
	Base          float64
	Bidirectional bool
	layers        []relLayer
	Randomizer
	LogScale
}

// relLayer is one layer's u, v [d_model] and W_R [d_model, d_model] (input × output).
type relLayer struct{ u, v, wr nn.Param }

// relLayers is the number of layers whose parameters a relative scheme holds.
func relLayers(d Dims) int { return max(d.Layers, 1) }

func (r *Relative) Name() string { return "relative" }

// Params returns u, v and W_R of every layer, in layer order.
func (r *Relative) Params() []nn.Param {
	var ps []nn.Param
	for _, l := range r.layers {
		ps = append(ps, l.u, l.v, l.wr)
	}
	return ps
}

// CheckPositions refuses sequences longer than max_random when the distances are randomized.
func (r *Relative) CheckPositions(n int) error { return r.checkRandom(n) }

// RelativeTable is R for the graph's distances, [2T−1, d_model] (row i − j + T − 1), a constant;
// with randomized positions [Batch·(2T−1), d_model], each sequence's from its drawn distances.
func (r *Relative) RelativeTable(c Ctx) (*G.Node, error) {
	if _, on := r.Randomization(); on {
		return ops.RelativeSinusoid(c.Pos, c.Batch, c.Len, r.Dim, r.Base)
	}
	T, omega := c.Len, ops.SinusoidFreqs(r.Base, r.Dim)
	vals := make([]float64, (2*T-1)*r.Dim)
	for d := -(T - 1); d < T; d++ {
		ops.SinusoidRow(vals[(d+T-1)*r.Dim:(d+T)*r.Dim], float64(d), omega)
	}
	return c.B.Const("pos.relative.table", nn.FromFloat64(c.B.Dtype, vals, 2*T-1, r.Dim))
}

// RelativeKeys returns layer c.Layer's content query q + u and its relative keys: the query
// q + v and the keys W_R·R of the table's distances (R·W_R, [rows of table, d_model]).
func (r *Relative) RelativeKeys(c Ctx, table, q *G.Node) (*G.Node, ops.RelativeKeys, error) {
	if c.Layer < 0 || c.Layer >= len(r.layers) {
		return nil, ops.RelativeKeys{}, fielderr.New("position", "relative has parameters for %d layers, not layer %d", len(r.layers), c.Layer)
	}
	l := r.layers[c.Layer]
	var nodes [3]*G.Node
	for i, p := range []nn.Param{l.u, l.v, l.wr} {
		var err error
		if nodes[i], err = c.B.Param(p); err != nil {
			return nil, ops.RelativeKeys{}, err
		}
	}
	content, err := ops.AddRow(q, nodes[0]) // [B·T, D]
	if err != nil {
		return nil, ops.RelativeKeys{}, err
	}
	query, err := ops.AddRow(q, nodes[1]) // [B·T, D]
	if err != nil {
		return nil, ops.RelativeKeys{}, err
	}
	zero, err := c.B.Const(fmt.Sprintf("pos.relative.nobias.%d", c.Layer), nn.Full(c.B.Dtype, 0, r.Dim))
	if err != nil {
		return nil, ops.RelativeKeys{}, err
	}
	keys, err := ops.Linear(table, nodes[2], zero) // [rows of table, D]
	if err != nil {
		return nil, ops.RelativeKeys{}, err
	}
	return content, ops.RelativeKeys{Query: query, Keys: keys}, nil
}

// Table is R for the distances 0..n−1: columns sin0.., then cos0.. (d_model/2 each).
func (r *Relative) Table(n int) (Table, error) {
	t := Table{}
	for _, f := range []string{"sin", "cos"} {
		for k := 0; k < r.Dim/2; k++ {
			t.Columns = append(t.Columns, fmt.Sprintf("%s%d", f, k))
		}
	}
	omega := ops.SinusoidFreqs(r.Base, r.Dim)
	for p := 0; p < n; p++ {
		row := make([]float64, r.Dim)
		ops.SinusoidRow(row, float64(p), omega)
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// truncNormal draws n values of std·N(0, 1) truncated to [−2, 2] (haiku's TruncatedNormal:
// the standard normal truncated at two standard deviations, then scaled, by rejection).
func truncNormal(rng *rand.Rand, n int, std float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		v := pmath.NormFloat64(rng) // amd64's draws on every CPU
		for v < -2 || v > 2 {
			v = pmath.NormFloat64(rng)
		}
		x[i] = std * v
	}
	return x
}
