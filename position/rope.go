package position

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[RoPEOptions, *RoPE]{
		Kind: "rope",
		Doc:  "rotary encoding of q and k (Su et al. 2021, RoFormer)",
		New: func(o RoPEOptions, d Dims) (*RoPE, error) {
			if err := checkBase(o.Base); err != nil {
				return nil, err
			}
			if !(o.RotaryFraction > 0 && o.RotaryFraction <= 1) {
				return nil, fielderr.New("position.rotary_fraction", "must be in (0, 1], got %g", o.RotaryFraction)
			}
			dh := d.DModel / d.Heads
			rot := int(math.Round(float64(dh) * o.RotaryFraction))
			if rot%2 != 0 || rot == 0 {
				return nil, fielderr.New("position.rotary_fraction", "rope rotates pairs, so the rotated dimension (d_head %d × rotary_fraction %g = %d) must be even and positive; change model.d_model, model.heads or position.rotary_fraction", dh, o.RotaryFraction, rot)
			}
			switch o.RopeScaling {
			case "", "none", "interpolate", "yarn", "llama3", "longrope":
			case "ntk", "dynamic_ntk":
				if rot <= 2 {
					return nil, fielderr.New("position.rope_scaling", "%s scales the base by a power d/(d−2), which needs more than 2 rotated dimensions per head, got %d; use interpolate or rotate more dimensions", o.RopeScaling, rot)
				}
			default:
				return nil, fielderr.New("position.rope_scaling", "must be none, interpolate, ntk, dynamic_ntk, yarn, llama3 or longrope, got %q", o.RopeScaling)
			}
			long, err := longFactors(o, rot)
			if err != nil {
				return nil, err
			}
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			switch {
			case o.RopeScaling == "dynamic_ntk" && !(o.RopeFactor >= 1 && o.RopeFactor <= 1e6):
				return nil, fielderr.New("position.rope_factor", "dynamic_ntk needs its factor α in [1, 1e6] (Hugging Face's rope_scaling factor; α = 1 is ntk), got %g; write e.g. rope_factor: 2", o.RopeFactor)
			case o.RopeScaling != "dynamic_ntk" && o.RopeFactor != 0:
				return nil, fielderr.New("position.rope_factor", "only rope_scaling: dynamic_ntk takes a factor (this run's rope_scaling is %q); remove position.rope_factor", o.RopeScaling)
			}
			scaling := o.RopeScaling
			if scaling == "none" {
				scaling = ""
			}
			if scaling != "" && d.Randomized {
				return nil, fielderr.New("position.rope_scaling", "%s cannot be combined with position.randomized (randomized positions already cover [0, max_random)); remove one of them", scaling)
			}
			return &RoPE{Base: o.Base, Heads: d.Heads, HeadDim: dh, Rot: rot, Scaling: scaling, Factor: o.RopeFactor, Long: long, LogScale: ls}, nil
		},
		Randomizable: true,
	})
}

// RoPEOptions are rope's options.
type RoPEOptions struct {
	// Base sets the frequencies θᵢ = base^(−2i/d_rot); above 1.
	Base float64 `yaml:"base" default:"10000" doc:"frequency base: θᵢ = base^(−2i/d_rot); above 1"`
	// RotaryFraction is the fraction of each head's dimensions rotated (the first ones, in
	// pairs); the rest pass through. In (0, 1].
	RotaryFraction float64 `yaml:"rotary_fraction" default:"1" doc:"fraction of each head's dimensions rotated, in (0, 1]; d_rot = d_head × fraction must be even"`
	// RopeScaling is what rope does at evaluation lengths beyond training (see RoPE.ScaledFor):
	// none (or empty), interpolate or ntk.
	RopeScaling string `yaml:"rope_scaling,omitempty" doc:"at evaluation lengths beyond training only (L_eval > L_train, in tokens; s = L_eval/L_train): none; interpolate multiplies positions by 1/s (Chen et al. 2023); ntk uses the base base·s^(d_rot/(d_rot−2)) (needs d_rot > 2); dynamic_ntk the base base·(α·s − (α − 1))^(d_rot/(d_rot−2)), α = rope_factor; yarn blends θᵢ/s and θᵢ per pair between the wavelength bounds β_fast = 32, β_slow = 1 of L_train and multiplies cos and sin by 0.1·ln s + 1 (Peng et al. 2023); llama3 keeps the pairs of wavelength 2π/θᵢ below L_train/4, divides those above L_train by s and blends between (Llama 3.1); longrope divides θᵢ by rope_long_factor's λᵢ and multiplies cos and sin by √(1 + ln s / ln L_train) (Ding et al. 2024); not with randomized"`
	// RopeFactor is dynamic_ntk's α (Hugging Face's rope_scaling factor), ≥ 1; written with
	// dynamic_ntk only.
	RopeFactor float64 `yaml:"rope_factor,omitempty" doc:"dynamic_ntk's factor α ≥ 1 (Hugging Face's rope_scaling factor; α = 1 is ntk); dynamic_ntk only, and required with it"`
	// RopeLongFactor is longrope's per-pair factors λᵢ (Hugging Face's long_factor), d_rot/2
	// positive numbers separated by commas; written with longrope only.
	RopeLongFactor string `yaml:"rope_long_factor,omitempty" doc:"longrope's per-pair factors λᵢ (Hugging Face's long_factor; LongRoPE searches them per model): d_rot/2 positive numbers separated by commas, e.g. \"1,1.5,2,4\" for d_rot 8; longrope only, and required with it"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// longFactors reads rope_long_factor: rot/2 positive numbers with longrope, nothing otherwise.
func longFactors(o RoPEOptions, rot int) ([]float64, error) {
	if o.RopeScaling != "longrope" {
		if o.RopeLongFactor != "" {
			return nil, fielderr.New("position.rope_long_factor", "only rope_scaling: longrope takes per-pair factors (this run's rope_scaling is %q); remove position.rope_long_factor", o.RopeScaling)
		}
		return nil, nil
	}
	if o.RopeLongFactor == "" {
		return nil, fielderr.New("position.rope_long_factor", "longrope needs its %d per-pair factors λᵢ (one per rotated pair, d_rot/2); write e.g. rope_long_factor: \"%s\"", rot/2, strings.TrimSuffix(strings.Repeat("1,", rot/2), ","))
	}
	fields := strings.Split(o.RopeLongFactor, ",")
	if len(fields) != rot/2 {
		return nil, fielderr.New("position.rope_long_factor", "%d factors for %d rotated pairs (d_rot/2); write one per pair", len(fields), rot/2)
	}
	long := make([]float64, len(fields))
	for i, f := range fields {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return nil, fielderr.New("position.rope_long_factor", "factor %d is %q; want a finite positive number", i+1, strings.TrimSpace(f))
		}
		long[i] = x
	}
	return long, nil
}

// The hooks RoPE claims, checked at compile time.
var (
	_ QKRotator     = (*RoPE)(nil)
	_ Tabler        = (*RoPE)(nil)
	_ Sampler       = (*RoPE)(nil)
	_ LengthChecker = (*RoPE)(nil)
)

// RoPE is the rotary encoding of Su et al. (RoFormer): in every layer, after the q/k projections,
// each head's pairs (2i, 2i+1), i < Rot/2, are rotated by the angle p·θᵢ with θᵢ = Base^(−2i/Rot).
// With the default rotary fraction Rot = HeadDim. Angles are computed in float64.
//
// Scaling ("", "interpolate" or "ntk") changes the rotation of graphs longer than the training
// sequences (Ctx.Len > Ctx.TrainLen > 0), see ScaledFor.
type RoPE struct {
	Base    float64
	Heads   int
	HeadDim int
	Rot     int       // rotated dimensions per head
	Scaling string    // "" (none), "interpolate", "ntk", "dynamic_ntk", "yarn", "llama3" or "longrope"
	Factor  float64   // dynamic_ntk's α
	Long    []float64 // longrope's per-pair factors λᵢ
	// Kept, when above 0, is p-RoPE's: pairs i < Kept rotate, the others (the lowest
	// frequencies) do not; 0 for rope (every pair rotates).
	Kept int
	Randomizer
	LogScale
}

// CheckPositions refuses sequences longer than max_random when the positions are randomized.
func (r *RoPE) CheckPositions(n int) error { return r.checkRandom(n) }

func (r *RoPE) Name() string { return "rope" }

// ScaledFor returns the rotation's base and position scale for a sequence of evalLen tokens when
// the longest training sequence has trainLen tokens. Within the training lengths (evalLen ≤
// trainLen, or trainLen unknown = 0) and without Scaling it is (Base, 1). Beyond them, with
// s = evalLen/trainLen:
//   - interpolate (Chen et al. 2023): positions are multiplied by 1/s = trainLen/evalLen, so the
//     largest angle stays within the range seen in training: (Base, 1/s);
//   - ntk ("NTK-aware" scaling): base' = Base·s^(d/(d−2)) with d = Rot, which leaves the fastest
//     pair's frequency unchanged and slows the slowest pair by exactly 1/s: (base', 1);
//   - dynamic_ntk: base' = Base·(α·s − (α − 1))^(d/(d−2)) with α = Factor: (base', 1). The
//     formula of Hugging Face transformers' _compute_dynamic_ntk_parameters
//     (src/transformers/modeling_rope_utils.py at commit 0044e3b, `base = base * ((factor *
//     seq_len / max_position_embeddings) - (factor - 1)) ** (dim / (dim - 2))`, seq_len clamped
//     below at max_position_embeddings) and of jquesnelle/yarn
//     scaled_rope/LlamaDynamicScaledRotaryEmbedding.py:30 (commit 995db5b), with seq_len the
//     graph's length and max_position_embeddings the training length;
//   - yarn, llama3 and longrope change each pair's frequency (and yarn and longrope the
//     magnitude), not the base: (Base, 1), see Rotation.
func (r *RoPE) ScaledFor(evalLen, trainLen int) (base, scale float64) {
	if r.Scaling == "" || trainLen <= 0 || evalLen <= trainLen {
		return r.Base, 1
	}
	s := float64(evalLen) / float64(trainLen)
	d := float64(r.Rot)
	switch r.Scaling {
	case "interpolate":
		return r.Base, 1 / s
	case "ntk":
		return r.Base * pmath.Pow(s, d/(d-2)), 1
	case "dynamic_ntk":
		return r.Base * pmath.Pow(float64(r.Factor*s)-(r.Factor-1), d/(d-2)), 1
	}
	return r.Base, 1
}

// YaRN's constants (Peng et al. 2023, "YaRN"): the pairs that turn more than yarnBetaFast times
// over the training length keep their frequency, those that turn less than yarnBetaSlow times
// are interpolated (θ/s), and a ramp blends the ones between.
const (
	yarnBetaFast = 32
	yarnBetaSlow = 1
)

// Rotation is the rotation of a sequence of evalLen tokens when the longest training sequence
// has trainLen tokens: ScaledFor's base and position scale, and for yarn beyond training (s =
// evalLen/trainLen > 1) YaRN's per-pair frequencies and attention temperature, as
// jquesnelle/yarn computes them (scaled_rope/LlamaDynamicYaRNScaledRotaryEmbedding.py at commit
// 995db5b: find_correction_dim and find_correction_range, lines 5-14; linear_ramp_mask, 16-22;
// get_mscale, 24-27; the blend, 81-91; s = seq_len / original_max_position_embeddings, line 67)
// and Hugging Face transformers' _compute_yarn_parameters (modeling_rope_utils.py, commit
// 0044e3b) with factor s, beta_fast 32, beta_slow 1 and max_position_embeddings trainLen:
//
//	dim(k) = d·ln(trainLen / (2π·k)) / (2·ln base)     the pair index that turns k times
//	low = max(⌊dim(β_fast)⌋, 0), high = min(⌈dim(β_slow)⌉, d − 1)  (high += 0.001 if equal)
//	ramp_i = clamp((i − low)/(high − low), 0, 1),  e_i = 1 − ramp_i
//	θ'_i = (θ_i/s)·(1 − e_i) + θ_i·e_i,  cos and sin multiplied by 0.1·ln s + 1
//
// with d = Rot. (Those implementations compute the ramp in float32; this one in float64.)
//
// llama3 (Llama 3.1's scaling, transformers' _compute_llama3_parameters at commit 0044e3b) with
// factor s, low_freq_factor 1, high_freq_factor 4 and original_max_position_embeddings trainLen,
// by each pair's wavelength λ_i = 2π/θ_i:
//
//	θ'_i = θ_i                        if λ_i < trainLen/4
//	     = θ_i/s                      if λ_i > trainLen/1
//	     = (1 − a)·θ_i/s + a·θ_i      otherwise, a = (trainLen/λ_i − 1)/(4 − 1)
//
// longrope (LongRoPE, Ding et al. 2024; transformers' _compute_longrope_parameters at commit
// 0044e3b) with the long factors Long, factor s and original_max_position_embeddings trainLen:
// θ'_i = θ_i/Long_i, cos and sin multiplied by √(1 + ln s / ln trainLen) (1 when trainLen is 1).
// Within the training lengths it is plain rope (Hugging Face's short factors, all 1: training is
// unchanged).
func (r *RoPE) Rotation(evalLen, trainLen int) ops.RopeConfig {
	base, scale := r.ScaledFor(evalLen, trainLen)
	cfg := ops.RopeConfig{Heads: r.Heads, Rot: r.Rot, Base: base, Scale: scale}
	if trainLen <= 0 || evalLen <= trainLen {
		return r.keep(cfg)
	}
	s, L := float64(evalLen)/float64(trainLen), float64(trainLen)
	th := ops.Theta(r.Base, r.Rot)
	switch r.Scaling {
	case "yarn":
		cfg.Freqs, cfg.Mscale = r.yarn(th, s, L), float64(0.1*pmath.Log(s))+1
	case "llama3":
		cfg.Freqs = llama3(th, s, L)
	case "longrope":
		cfg.Freqs = make([]float64, len(th))
		for i, t := range th {
			cfg.Freqs[i] = t / r.Long[i]
		}
		if trainLen > 1 {
			cfg.Mscale = math.Sqrt(1 + pmath.Log(s)/pmath.Log(L))
		}
	}
	return r.keep(cfg)
}

// keep stops the pairs p-RoPE drops (i ≥ Kept) from rotating: their frequency is 0.
func (r *RoPE) keep(cfg ops.RopeConfig) ops.RopeConfig {
	if r.Kept == 0 || r.Kept >= r.Rot/2 {
		return cfg
	}
	if cfg.Freqs == nil {
		cfg.Freqs = ops.Theta(cfg.Base, r.Rot)
	}
	for i := r.Kept; i < len(cfg.Freqs); i++ {
		cfg.Freqs[i] = 0
	}
	return cfg
}

// yarn is YaRN's per-pair frequencies for the frequencies th, s and the training length L.
func (r *RoPE) yarn(th []float64, s, L float64) []float64 {
	d := float64(r.Rot)
	dim := func(k float64) float64 {
		return d * pmath.Log(L/(k*2*math.Pi)) / (2 * pmath.Log(r.Base))
	}
	low := max(math.Floor(dim(yarnBetaFast)), 0)
	high := min(math.Ceil(dim(yarnBetaSlow)), d-1)
	if low == high {
		high += 0.001
	}
	out := make([]float64, len(th))
	for i, t := range th {
		ramp := min(max((float64(i)-low)/(high-low), 0), 1)
		e := 1 - ramp
		out[i] = float64(t/s*(1-e)) + float64(t*e) // float64(): not fused on arm64
	}
	return out
}

// Llama 3.1's constants: the pairs whose wavelength is below L/llama3HighFreqFactor keep their
// frequency, those above L/llama3LowFreqFactor are divided by s, a blend between.
const (
	llama3LowFreqFactor  = 1
	llama3HighFreqFactor = 4
)

// llama3 is Llama 3.1's per-pair frequencies for the frequencies th, s and the training length L.
func llama3(th []float64, s, L float64) []float64 {
	out := make([]float64, len(th))
	for i, t := range th {
		wl := 2 * math.Pi / t
		switch {
		case wl < L/llama3HighFreqFactor:
			out[i] = t
		case wl > L/llama3LowFreqFactor:
			out[i] = t / s
		default:
			a := (L/wl - llama3LowFreqFactor) / (llama3HighFreqFactor - llama3LowFreqFactor)
			out[i] = (1-a)*t/s + float64(a*t)
		}
	}
	return out
}

func (r *RoPE) config(c Ctx) ops.RopeConfig { return r.Rotation(c.Len, c.TrainLen) }

// RotateQK rotates q and k by their rows' positions.
func (r *RoPE) RotateQK(c Ctx, q, k *G.Node) (*G.Node, *G.Node, error) {
	qr, err := ops.Rope(q, c.Pos, r.config(c))
	if err != nil {
		return nil, nil, err
	}
	kr, err := ops.Rope(k, c.Pos, r.config(c))
	if err != nil {
		return nil, nil, err
	}
	return qr, kr, nil
}

// Theta returns θᵢ for each rotated pair: 0 for the pairs p-RoPE does not rotate.
func (r *RoPE) Theta() []float64 {
	th := ops.Theta(r.Base, r.Rot)
	for i := r.Kept; r.Kept > 0 && i < len(th); i++ {
		th[i] = 0
	}
	return th
}

// Table is the rotation angles p·θᵢ for positions 0..n-1, one column per pair.
func (r *RoPE) Table(n int) (Table, error) {
	th := r.Theta()
	t := Table{Columns: make([]string, len(th))}
	for i := range th {
		t.Columns[i] = fmt.Sprintf("pair%d", i)
	}
	for p := 0; p < n; p++ {
		row := make([]float64, len(th))
		for i, w := range th {
			row[i] = float64(p) * w
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// Rotate applies R(p) to one head vector x (len ≥ Rot) in float64: the rotation RotateQK applies.
func (r *RoPE) Rotate(x []float64, p float64) []float64 {
	y := append([]float64(nil), x...)
	for i, w := range r.Theta() {
		s, c := pmath.Sincos(p * w)
		y[2*i], y[2*i+1] = float64(x[2*i]*c)-float64(x[2*i+1]*s), float64(x[2*i]*s)+float64(x[2*i+1]*c)
	}
	return y
}
