package position_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/posformer/posformer/position"
	"gorgonia.org/tensor"
)

// hfGolden are every rope_scaling's frequencies θ'ᵢ (inv_freq) and attention factor (the factor
// cos and sin are multiplied by) computed from the formulas of Hugging Face transformers'
// src/transformers/modeling_rope_utils.py at commit 0044e3b3facff1a1ad60b235c69d5b45beae75a4:
// _compute_linear_scaling_rope_parameters (interpolate), _compute_ntk_parameters (ntk),
// _compute_dynamic_ntk_parameters (dynamic_ntk, factor 2), _compute_yarn_parameters (yarn),
// _compute_llama3_parameters (llama3, low_freq_factor 1, high_freq_factor 4) and
// _compute_longrope_parameters (longrope, long_factor hfLong), transcribed in numpy by
// testdata/hf_rope_goldens.py (run once with /usr/bin/python3; its output pasted here; it reads
// nothing of posformer). Base 500, 16 rotated dimensions, trained on 64 tokens, evaluated at 128
// and 640 tokens: factor = 2 and 10 (posformer's s), max_position_embeddings =
// original_max_position_embeddings = 64.
var hfGolden = []struct {
	scaling string
	n       int
	freqs   []float64
	af      float64
}{
	{"interpolate", 128, []float64{0.5, 0.22993164891338516, 0.10573712634405642, 0.04862462362330365, 0.0223606797749979, 0.010282855942978895, 0.004728708045015879, 0.0021745592760409817}, 1.0},
	{"ntk", 128, []float64{1.0, 0.41650907116814667, 0.1734798063653522, 0.07225591301566278, 0.0300952432165601, 0.012534941798708914, 0.005220916965727026, 0.002174559276040982}, 1.0},
	{"dynamic_ntk", 128, []float64{1.0, 0.39306879758335156, 0.1545030796336218, 0.06073033973451255, 0.023871201616273287, 0.009383024516178298, 0.0036881741642693132, 0.0014497061840273214}, 1.0},
	{"yarn", 128, []float64{1.0, 0.3832194148556419, 0.14098283512540855, 0.04862462362330365, 0.0223606797749979, 0.010282855942978895, 0.004728708045015879, 0.0021745592760409817}, 1.0693147180559945},
	{"llama3", 128, []float64{1.0, 0.4598632978267703, 0.14641275552720318, 0.04862462362330365, 0.0223606797749979, 0.010282855942978895, 0.004728708045015879, 0.0021745592760409817}, 1.0},
	{"longrope", 128, []float64{1.0, 0.41805754347888213, 0.15105303763436634, 0.04862462362330365, 0.0149071198499986, 0.0041131423771915586, 0.0011821770112539697, 0.0003624265460068303}, 1.0801234497346435},
	{"interpolate", 640, []float64{0.1, 0.045986329782677034, 0.021147425268811283, 0.00972492472466073, 0.00447213595499958, 0.002056571188595779, 0.0009457416090031757, 0.0004349118552081963}, 1.0},
	{"ntk", 640, []float64{1.0, 0.3309570269849884, 0.10953255371074234, 0.03625056833418084, 0.011997380322396655, 0.003970617323108598, 0.0013141037045511146, 0.0004349118552081964}, 1.0},
	{"dynamic_ntk", 640, []float64{1.0, 0.3019601716724674, 0.091179945276466, 0.027532711928767863, 0.008313782420619337, 0.0025104311669777567, 0.0007580502261525162, 0.00022890097642536654}, 1.0},
	{"yarn", 640, []float64{1.0, 0.32190430847873924, 0.08458970107524515, 0.00972492472466073, 0.00447213595499958, 0.0020565711885957793, 0.000945741609003176, 0.00043491185520819637}, 1.2302585092994045},
	{"llama3", 640, []float64{1.0, 0.4598632978267703, 0.09436355779847545, 0.00972492472466073, 0.00447213595499958, 0.002056571188595779, 0.0009457416090031757, 0.0004349118552081963}, 1.0},
	{"longrope", 640, []float64{1.0, 0.41805754347888213, 0.15105303763436634, 0.04862462362330365, 0.0149071198499986, 0.0041131423771915586, 0.0011821770112539697, 0.0003624265460068303}, 1.2464568514317802},
}

const hfLong = "1,1.1,1.4,2,3,5,8,12"

func hfScaled(t *testing.T, scaling string) *position.RoPE {
	t.Helper()
	spec := position.Spec{Kind: "rope"}.With("base", 500).With("rope_scaling", scaling)
	switch scaling {
	case "dynamic_ntk":
		spec = spec.With("rope_factor", 2)
	case "longrope":
		spec = spec.With("rope_long_factor", hfLong)
	}
	return mustNew(t, spec, position.Dims{DModel: 32, Heads: 2, Dtype: tensor.Float64}).(*position.RoPE)
}

// TestRopeScalingsHuggingFaceGolden: every rope_scaling's rotation beyond training (its
// frequencies θ'ᵢ = base'^(−2i/d)·scale, or per-pair frequencies, and its attention factor) is
// Hugging Face's, and the graph applies it: each pair of a query at position p is turned by
// p·θ'ᵢ and multiplied by the attention factor once (so q·k by its square: YaRN's and
// LongRoPE's factor neither dropped nor applied twice).
func TestRopeScalingsHuggingFaceGolden(t *testing.T) {
	const L, D = 64, 32
	rng := rand.New(rand.NewPCG(11, 12))
	for _, g := range hfGolden {
		r := hfScaled(t, g.scaling)
		c := r.Rotation(g.n, L)
		freqs := c.Freqs
		if freqs == nil {
			freqs = (&position.RoPE{Base: c.Base, Rot: c.Rot}).Theta()
		}
		af := c.Mscale
		if af == 0 {
			af = 1
		}
		if math.Abs(af-g.af) > 1e-15 {
			t.Errorf("%s at %d: attention factor %v, Hugging Face's %v", g.scaling, g.n, af, g.af)
		}
		for i, w := range g.freqs {
			if got := freqs[i] * c.Scale; math.Abs(got-w) > 1e-13*w {
				t.Errorf("%s at %d: θ'_%d = %v, Hugging Face's %v (relative error %.2g)", g.scaling, g.n, i, got, w, math.Abs(got-w)/w)
			}
		}
		// The graph: rows at positions 0, 1, 17, n − 1 against the golden rotation.
		pos := []float64{0, 1, 17, float64(g.n - 1)}
		q := randn(rng, len(pos)*D)
		got := ropeGraph(t, r, q, pos, D, g.n, L)
		worst := 0.0
		for row, p := range pos {
			for h := range 2 {
				x := q[row*D+h*16 : row*D+(h+1)*16]
				y := got[row*D+h*16 : row*D+(h+1)*16]
				for i, w := range g.freqs {
					s, co := math.Sincos(p * w)
					want0 := g.af * (x[2*i]*co - x[2*i+1]*s)
					want1 := g.af * (x[2*i]*s + x[2*i+1]*co)
					worst = max(worst, math.Abs(y[2*i]-want0), math.Abs(y[2*i+1]-want1))
				}
			}
		}
		if worst > 1e-10 {
			t.Errorf("%s at %d: the graph's rotation differs from Hugging Face's by %.3g", g.scaling, g.n, worst)
		}
	}
}

// Every scaling is plain rope within the training lengths, bit for bit (llama3 and longrope
// with it: longrope's short factors are 1, so training is unchanged).
func TestRopeScalingsPlainWithinTraining(t *testing.T) {
	plain := hfScaled(t, "none")
	rng := rand.New(rand.NewPCG(13, 14))
	for _, scaling := range []string{"llama3", "longrope"} {
		r := hfScaled(t, scaling)
		for _, n := range []int{1, 30, 64} {
			if c := r.Rotation(n, 64); c.Freqs != nil || c.Mscale != 0 || c.Scale != 1 || c.Base != 500 {
				t.Errorf("%s at %d ≤ 64: %+v, want plain rope", scaling, n, c)
			}
			pos := make([]float64, n)
			for i := range pos {
				pos[i] = float64(i)
			}
			q := randn(rng, n*32)
			got, want := ropeGraph(t, r, q, pos, 32, n, 64), ropeGraph(t, plain, q, pos, 32, n, 64)
			if e := maxAbsDiff(got, want); e != 0 {
				t.Errorf("%s at %d ≤ 64: differs from plain rope by %.3g", scaling, n, e)
			}
		}
	}
}

// rope_long_factor: required with longrope, refused without it, one positive number per pair.
func TestRopeLongFactorChecks(t *testing.T) {
	dims := position.Dims{DModel: 32, Heads: 2, Dtype: tensor.Float64}
	for _, c := range []struct {
		spec position.Spec
		want string
	}{
		{position.Spec{Kind: "rope"}.With("rope_scaling", "longrope"), `position.rope_long_factor: longrope needs its 8 per-pair factors λᵢ (one per rotated pair, d_rot/2); write e.g. rope_long_factor: "1,1,1,1,1,1,1,1"`},
		{position.Spec{Kind: "rope"}.With("rope_scaling", "longrope").With("rope_long_factor", "1,2"), "position.rope_long_factor: 2 factors for 8 rotated pairs (d_rot/2); write one per pair"},
		{position.Spec{Kind: "rope"}.With("rope_scaling", "longrope").With("rope_long_factor", "1,1,1,0,1,1,1,1"), `position.rope_long_factor: factor 4 is "0"; want a finite positive number`},
		{position.Spec{Kind: "rope"}.With("rope_scaling", "longrope").With("rope_long_factor", "1,1,1,x,1,1,1,1"), `position.rope_long_factor: factor 4 is "x"; want a finite positive number`},
		{position.Spec{Kind: "rope"}.With("rope_scaling", "yarn").With("rope_long_factor", hfLong), `position.rope_long_factor: only rope_scaling: longrope takes per-pair factors (this run's rope_scaling is "yarn"); remove position.rope_long_factor`},
		{position.Spec{Kind: "rope"}.With("rope_scaling", "llama2"), `position.rope_scaling: must be none, interpolate, ntk, dynamic_ntk, yarn, llama3 or longrope, got "llama2"`},
	} {
		if _, err := position.New(c.spec, dims); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v\nwant %s", c.spec, err, c.want)
		}
	}
}
