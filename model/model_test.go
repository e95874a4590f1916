package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/gradcheck"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/position"
	"gorgonia.org/tensor"
)

// variant is a scheme under test: a kind with options.
type variant struct {
	name          string
	spec          position.Spec
	bidirectional bool
	unscaled      bool // model.unscaled_logits
}

// schemes are the variants every whole-model test runs, from the registry (a new scheme is
// tested by registering it): each kind with its defaults; each kind that takes randomized
// positions with them (max_random 16); each kind with a logit bias bidirectionally. t5 also
// runs with 8 buckets and max_distance 6, so that the short test sequences reach its
// logarithmic buckets. alibi and t5 also run with unscaled logits (model.unscaled_logits).
// Every kind also runs with log-length scaling (log_scaling 0.5), and alibi with it
// bidirectionally.
var schemes = func() []variant {
	var vs, random, bidir []variant
	for _, kind := range position.Kinds() {
		vs = append(vs, variant{name: kind, spec: position.Spec{Kind: kind}})
		vs = append(vs, variant{name: kind + "_log_scaling", spec: position.Spec{Kind: kind}.With("log_scaling", 0.5)})
		if position.Randomizable(kind) {
			random = append(random, variant{name: kind + "_randomized", spec: position.Spec{Kind: kind, Randomized: true, MaxRandom: 16}})
		}
		// A scheme may refuse the bidirectional form (with an error naming model.bidirectional).
		s, err := position.New(position.Spec{Kind: kind}, position.Dims{DModel: 8, Heads: 2, Dtype: tensor.Float64, Bidirectional: true})
		if h := position.HooksOf(s); (h.BiasesLogits || h.RelativeKeys) && err == nil {
			bidir = append(bidir, variant{name: kind + "_bidirectional", spec: position.Spec{Kind: kind}, bidirectional: true})
		}
	}
	t5 := position.Spec{Kind: "t5"}.With("num_buckets", 8).With("max_distance", 6)
	vs = append(vs, variant{name: "t5_small_buckets", spec: t5}, variant{name: "t5_small_buckets_bidirectional", spec: t5, bidirectional: true},
		variant{name: "alibi_unscaled", spec: position.Spec{Kind: "alibi"}, unscaled: true}, variant{name: "t5_unscaled", spec: t5, unscaled: true},
		variant{name: "alibi_log_scaling_bidirectional", spec: position.Spec{Kind: "alibi"}.With("log_scaling", 0.5), bidirectional: true})
	return append(append(vs, random...), bidir...)
}()

func tiny(t testing.TB, kind, dtype string) *Model {
	t.Helper()
	return tinyVariant(t, variant{name: kind, spec: position.Spec{Kind: kind}}, dtype)
}

func tinyVariant(t testing.TB, v variant, dtype string) *Model {
	t.Helper()
	spec := v.spec
	for _, o := range position.Options(spec.WithDefaults().Kind) {
		switch o.Key { // a short table, and initial values large enough to matter
		case "max_positions":
			spec = spec.With("max_positions", 16)
		case "init_std":
			spec = spec.With("init_std", 0.5)
		}
	}
	m, err := New(Config{Vocab: 7, DModel: 8, Heads: 2, Layers: 2, DFF: 12, Dtype: dtype, Seed: 3, Bidirectional: v.bidirectional, UnscaledLogits: v.unscaled, Digit0: 2}, spec)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// buildFor builds a graph for the variant: randomized schemes get MaxPos = max_random and
// sampled positions (in), the others 0..T-1.
func buildFor(t testing.TB, m *Model, b, l int, grad bool, rng *rand.Rand) (*Graph, []int) {
	t.Helper()
	opt := BuildOptions{Grad: grad}
	var pos []int
	if s, ok := m.Scheme.(position.Sampler); ok {
		if r, on := s.Randomization(); on {
			opt.MaxPos = r.MaxRandom
			pos = r.Batch(rng, b, l)
		}
	}
	g, err := m.Build(b, l, opt)
	if err != nil {
		t.Fatal(err)
	}
	return g, pos
}

// logitsOf builds a graph of b sequences of l tokens, runs it on in and returns its logits.
func logitsOf(t *testing.T, m *Model, b, l int, opt BuildOptions, in Input) []float64 {
	t.Helper()
	g, err := m.Build(b, l, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.Run(in); err != nil {
		t.Fatal(err)
	}
	return nn.Float64s(g.Logits())
}

func randomInput(rng *rand.Rand, b, l, vocab int) Input {
	in := Input{Tokens: make([]int, b*l), Targets: make([]int, b*l), Weights: make([]float64, b*l)}
	for i := range in.Tokens {
		in.Tokens[i] = rng.IntN(vocab)
		in.Targets[i] = rng.IntN(vocab)
		if i%l >= l/3 { // a loss mask like a task's: only the later part counts
			in.Weights[i] = 1
		}
	}
	return in
}

// TestGradientWholeModel checks the gradient of the loss with respect to every parameter tensor
// of the whole model against central finite differences in float64, for every scheme.
func TestGradientWholeModel(t *testing.T) {
	for _, v := range schemes {
		kind := v.name
		t.Run(kind, func(t *testing.T) {
			m := tinyVariant(t, v, "float64")
			// Move weights off their symmetric initial values (LayerNorm γ=1, β=0, biases 0).
			rng := rand.New(rand.NewPCG(5, 5))
			for _, p := range m.Params() {
				d := p.Value.Data().([]float64)
				for i := range d {
					d[i] += 0.3 * rng.NormFloat64()
				}
			}
			g, pos := buildFor(t, m, 2, 6, true, rng)
			defer g.Close()
			in := randomInput(rng, 2, 6, 7)
			in.Positions = pos
			if _, err := g.Run(in); err != nil {
				t.Fatal(err)
			}
			params := m.Params()
			analytic := make([][]float64, len(params))
			for i, gr := range g.Grads() {
				analytic[i] = nn.Float64s(gr)
			}
			worst := 0.0
			var zero []string
			for i, p := range params {
				num, err := gradcheck.Numeric(func() (float64, error) { return g.Run(in) }, p.Value.Data().([]float64), gradcheck.DefaultStep)
				if err != nil {
					t.Fatal(err)
				}
				e, abs := gradcheck.Compare(analytic[i], num)
				if len(p.Name) > 4 && p.Name[:4] == "pos." {
					t.Logf("%s: the scheme's own parameter %s: relative gradient error %.3g", kind, p.Name, e)
				}
				switch {
				case abs && !(e < 1e-8):
					t.Errorf("%s: the gradient is zero but the analytic one is off by %.3g", p.Name, e)
				case abs:
					zero = append(zero, p.Name)
				case !(e < 1e-6):
					t.Errorf("%s: relative gradient error %.3g ≥ 1e-6", p.Name, e)
				default:
					worst = math.Max(worst, e)
				}
			}
			t.Logf("%s: %d parameter tensors, worst relative gradient error %.3g; zero gradient (checked absolutely): %v", kind, len(params), worst, zero)
		})
	}
}

// TestCausality: changing the token at position j leaves the logits at every earlier position of
// that sequence bit-identical, for every scheme and position.
func TestCausality(t *testing.T) {
	const B, L = 2, 9
	for _, v := range schemes {
		if v.bidirectional {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			m := tinyVariant(t, v, "float32")
			rng := rand.New(rand.NewPCG(9, 9))
			g, pos := buildFor(t, m, B, L, false, rng)
			defer g.Close()
			in := randomInput(rng, B, L, 7)
			in.Positions = pos
			if _, err := g.Run(in); err != nil {
				t.Fatal(err)
			}
			base := nn.Float64s(g.Logits())
			V := 7
			for j := 0; j < L; j++ {
				changed := Input{Tokens: append([]int(nil), in.Tokens...), Targets: in.Targets, Weights: in.Weights, Positions: in.Positions}
				changed.Tokens[L+j] = (changed.Tokens[L+j] + 1) % V // sequence 1, position j
				if _, err := g.Run(changed); err != nil {
					t.Fatal(err)
				}
				got := nn.Float64s(g.Logits())
				for p := 0; p < L; p++ {
					same := true
					for v := 0; v < V; v++ {
						if math.Float64bits(got[(L+p)*V+v]) != math.Float64bits(base[(L+p)*V+v]) {
							same = false
						}
					}
					if p < j && !same {
						t.Fatalf("changing position %d changed the logits at position %d", j, p)
					}
					if p == j && same {
						t.Fatalf("changing the token at position %d did not change its own logits", j)
					}
				}
				// The other sequence of the batch is untouched entirely.
				for r := 0; r < L*V; r++ {
					if math.Float64bits(got[r]) != math.Float64bits(base[r]) {
						t.Fatalf("changing sequence 1 changed sequence 0 at %d", r)
					}
				}
			}
		})
	}
}

// TestBidirectionalSeesTheFuture is the control for TestCausality: without the mask, earlier
// positions do change.
func TestBidirectionalSeesTheFuture(t *testing.T) {
	m, err := New(Config{Vocab: 7, DModel: 8, Heads: 2, Layers: 1, DFF: 8, Bidirectional: true, Seed: 1}, position.Spec{Kind: "rope"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Build(1, 5, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	in := randomInput(rand.New(rand.NewPCG(1, 1)), 1, 5, 7)
	g.Run(in)
	before := nn.Float64s(g.Logits())[:7]
	in.Tokens[4] = (in.Tokens[4] + 1) % 7
	g.Run(in)
	after := nn.Float64s(g.Logits())[:7]
	for v := range before {
		if before[v] != after[v] {
			return
		}
	}
	t.Fatal("bidirectional attention: position 0 ignored a change at position 4")
}

// TestSharedWeightsAcrossLengths: graphs of different lengths bind the same tensors, so an
// update made through one is seen by the other, and position p's logits agree across lengths.
func TestSharedWeightsAcrossLengths(t *testing.T) {
	m := tiny(t, "learned", "float64")
	short, err := m.Build(1, 4, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	long, err := m.Build(1, 8, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in8 := randomInput(rand.New(rand.NewPCG(2, 2)), 1, 8, 7)
	in4 := Input{Tokens: in8.Tokens[:4], Targets: in8.Targets[:4], Weights: in8.Weights[:4]}
	check := func() {
		short.Run(in4)
		long.Run(in8)
		a, b := nn.Float64s(short.Logits()), nn.Float64s(long.Logits())
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-12 {
				t.Fatalf("logit %d: length 4 gives %v, length 8 gives %v", i, a[i], b[i])
			}
		}
	}
	check()
	m.Params()[0].Value.Data().([]float64)[3] += 1 // an in-place update, as the optimiser makes
	check()
}

func TestLearnedTableTooShort(t *testing.T) {
	m := tiny(t, "learned", "float32") // 16 rows
	if _, err := m.Build(1, 17, BuildOptions{}); err == nil {
		t.Fatal("a 17-token graph on a 16-row learned table: want an error")
	} else {
		t.Log(err)
	}
	if _, err := m.Build(1, 16, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg   Config
		spec  position.Spec
		field string
	}{
		{Config{Vocab: 5, DModel: 10, Heads: 3}, position.Spec{}, "model.heads"},
		{Config{Vocab: 5, DModel: 6, Heads: 2}, position.Spec{Kind: "rope"}, "position.rotary_fraction"}, // d_head 3 is odd
		{Config{Vocab: 5, DModel: 5, Heads: 1}, position.Spec{Kind: "sinusoidal"}, "model.d_model"},
		{Config{Vocab: 5, DModel: 8, Heads: 2}, position.Spec{Kind: "wavelet"}, "position.kind"},
		{Config{Vocab: 5, DModel: 8, Heads: 2, Dtype: "float16"}, position.Spec{}, "model.dtype"},
		{Config{Vocab: 1, DModel: 8, Heads: 2}, position.Spec{}, "model.vocab"},
		{Config{Vocab: 5, DModel: 8, Heads: 2}, position.Spec{Kind: "learned"}.With("max_positions", -1), "position.max_positions"},
	} {
		_, err := New(tc.cfg, tc.spec)
		if err == nil || !contains(err.Error(), tc.field) {
			t.Errorf("New(%+v, %+v) = %v; want an error naming %s", tc.cfg, tc.spec, err, tc.field)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestRopeScalingActsBeyondTrainLen: with the same weights, rope with any rope_scaling gives
// plain rope's logits bit for bit on graphs up to Model.TrainLen tokens, and different logits
// on longer graphs.
func TestRopeScalingActsBeyondTrainLen(t *testing.T) {
	logits := func(scaling string, trainLen, T int) []float64 {
		spec := position.Spec{Kind: "rope"}.With("rope_scaling", scaling)
		if scaling == "dynamic_ntk" {
			spec = spec.With("rope_factor", 2)
		}
		m, err := New(Config{Vocab: 7, DModel: 8, Heads: 1, Layers: 1, DFF: 12, Dtype: "float64", Seed: 3}, spec)
		if err != nil {
			t.Fatal(err)
		}
		m.TrainLen = trainLen
		g, err := m.Build(1, T, BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		if _, err := g.Run(randomInput(rand.New(rand.NewPCG(4, 4)), 1, T, 7)); err != nil {
			t.Fatal(err)
		}
		return nn.Float64s(g.Logits())
	}
	for _, scaling := range []string{"interpolate", "ntk", "dynamic_ntk", "yarn"} {
		for _, T := range []int{6, 8, 12} {
			plain, scaled := logits("none", 8, T), logits(scaling, 8, T)
			diff := 0.0
			for i := range plain {
				diff = math.Max(diff, math.Abs(plain[i]-scaled[i]))
			}
			if T <= 8 && diff != 0 {
				t.Errorf("%s at %d tokens (trained on 8): logits differ from plain rope by %.3g", scaling, T, diff)
			}
			if T > 8 && !(diff > 1e-6) {
				t.Errorf("%s at %d tokens (trained on 8): logits equal plain rope's (max difference %.3g): the scaling did not act", scaling, T, diff)
			}
		}
	}
}

// TestUnscaledLogitsSameStart: model.unscaled_logits changes only W_q, which is the scaled
// model's divided by √d_head, so the model starts as the same function (logits equal to
// rounding in float64) and every other tensor is bit-identical; and it is a different model
// once W_q moves (the scale is really left out).
func TestUnscaledLogitsSameStart(t *testing.T) {
	for _, kind := range []string{"alibi", "t5", "none", "rope"} {
		t.Run(kind, func(t *testing.T) {
			cfg := Config{Vocab: 7, DModel: 8, Heads: 2, Layers: 2, DFF: 12, Dtype: "float64", Seed: 3}
			scaled, err := New(cfg, position.Spec{Kind: kind})
			if err != nil {
				t.Fatal(err)
			}
			cfg.UnscaledLogits = true
			unscaled, err := New(cfg, position.Spec{Kind: kind})
			if err != nil {
				t.Fatal(err)
			}
			sp, up := scaled.Params(), unscaled.Params()
			rootDh := math.Sqrt(float64(cfg.DModel / cfg.Heads))
			for i := range sp {
				a, b := nn.Float64s(sp[i].Value), nn.Float64s(up[i].Value)
				q := strings.HasSuffix(sp[i].Name, ".attn.wq")
				for j := range a {
					switch {
					case q && math.Abs(b[j]-a[j]/rootDh) > 1e-15:
						t.Fatalf("%s[%d] = %v, want the scaled model's %v / √d_head", sp[i].Name, j, b[j], a[j])
					case !q && math.Float64bits(a[j]) != math.Float64bits(b[j]):
						t.Fatalf("%s[%d] differs: %v and %v", sp[i].Name, j, a[j], b[j])
					}
				}
			}
			rng := rand.New(rand.NewPCG(4, 4))
			in := randomInput(rng, 2, 6, 7)
			want, got := logitsOf(t, scaled, 2, 6, BuildOptions{}, in), logitsOf(t, unscaled, 2, 6, BuildOptions{}, in)
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-10 {
					t.Fatalf("initial logit %d: unscaled %v, scaled %v", i, got[i], want[i])
				}
			}
			// The same W_q in both: now the unscaled logits are √d_head times larger.
			for i := range sp {
				if strings.HasSuffix(sp[i].Name, ".attn.wq") {
					copy(up[i].Value.Data().([]float64), sp[i].Value.Data().([]float64))
				}
			}
			got = logitsOf(t, unscaled, 2, 6, BuildOptions{}, in)
			far := 0.0
			for i := range want {
				far = math.Max(far, math.Abs(got[i]-want[i]))
			}
			if far < 1e-6 {
				t.Errorf("with the same W_q the unscaled model gives the scaled one's logits (max difference %g)", far)
			}
		})
	}
}
