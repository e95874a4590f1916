package position_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/gradcheck"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/position"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestConformance runs every registered scheme (position.Kinds(), so a new scheme is tested by
// registering it) through what the model relies on, causal and bidirectional, in float64:
//   - New with the defaults works, the scheme is named by its kind, and its hooks are those
//     KindHooks reads from its registered type (the memory prediction's, without a scheme);
//   - each hook it implements returns its documented shape ([B·T, D] embeddings and q, k;
//     a logit bias [H, T, T] or by distance [H, 2T−1] (or [B·H, 2T−1]); relative keys [B·T, D]
//     queries and [2T−1, D] (or [B·(2T−1), D]) keys) and finite values, in a graph that runs;
//   - its Params are uniquely named "pos.<kind>..." and their sizes add up to the registry's
//     Params count (the size check made before anything is allocated);
//   - its Table has n rows of len(Columns) finite values;
//   - its options are documented, with defaults that decode, and randomized positions are
//     accepted exactly by the kinds that are Randomizable.
//
// The whole-model gradient, causality and bit-identical resume of every kind are checked in
// model/ (TestGradientWholeModel, TestCausality) and train/ (TestConformanceResume).
func TestConformance(t *testing.T) {
	const B, T, D, H = 2, 5, 8, 2
	for _, kind := range position.Kinds() {
		for _, bidir := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/bidirectional=%v", kind, bidir), func(t *testing.T) {
				dims := position.Dims{DModel: D, Heads: H, Dtype: tensor.Float64, Seed: 1, Bidirectional: bidir, Digit0: 2}
				s, err := position.New(position.Spec{Kind: kind}, dims)
				if err != nil && bidir && strings.Contains(err.Error(), "model.bidirectional") {
					t.Skipf("no bidirectional form: %v", err) // refused with an error that names the field
				}
				if err != nil {
					t.Fatal(err)
				}
				if s.Name() != kind {
					t.Errorf("Name() = %q", s.Name())
				}
				if got, want := position.KindHooks(kind), position.HooksOf(s); got != want {
					t.Errorf("KindHooks (from the registered type) = %+v, the built scheme's hooks are %+v", got, want)
				}
				b := nn.NewBuilder(tensor.Float64)
				pos, err := b.Input("pos", B*T)
				if err != nil {
					t.Fatal(err)
				}
				pv := pos.Value().Data().([]float64)
				for i := range pv {
					pv[i] = float64(i % T)
				}
				c := position.Ctx{B: b, Batch: B, Len: T, Pos: pos, MaxPos: T}
				var outs []*G.Node
				want := map[*G.Node][]int{}
				x, _ := b.Input("x", B*T, D)
				if a, ok := s.(position.EmbeddingAdder); ok {
					y, err := a.AddToEmbeddings(c, x)
					if err != nil {
						t.Fatal(err)
					}
					outs, want[y] = append(outs, y), []int{B * T, D}
				}
				if r, ok := s.(position.QKRotator); ok {
					q, _ := b.Input("q", B*T, D)
					k, _ := b.Input("k", B*T, D)
					qr, kr, err := r.RotateQK(c, q, k)
					if err != nil {
						t.Fatal(err)
					}
					outs, want[qr], want[kr] = append(outs, qr, kr), []int{B * T, D}, []int{B * T, D}
				}
				if lb, ok := s.(position.LogitBiaser); ok {
					bias, err := lb.LogitBias(c)
					if err != nil {
						t.Fatal(err)
					}
					outs, want[bias] = append(outs, bias), biasShape(bias, B, H, T)
				}
				if rk, ok := s.(position.RelativeKeyer); ok {
					table, err := rk.RelativeTable(c)
					if err != nil {
						t.Fatal(err)
					}
					q, _ := b.Input("q", B*T, D)
					content, rel, err := rk.RelativeKeys(c, table, q)
					if err != nil {
						t.Fatal(err)
					}
					keys := []int{2*T - 1, D}
					if rel.Keys.Shape()[0] == B*(2*T-1) {
						keys = []int{B * (2*T - 1), D}
					}
					outs = append(outs, content, rel.Query, rel.Keys)
					want[content], want[rel.Query], want[rel.Keys] = []int{B * T, D}, []int{B * T, D}, keys
				}
				if len(outs) > 0 {
					vm := G.NewTapeMachine(b.G)
					if err := vm.RunAll(); err != nil {
						t.Fatal(err)
					}
					vm.Close()
					for _, n := range outs {
						if got := n.Shape(); !slices.Equal([]int(got), want[n]) {
							t.Errorf("%s: shape %v, want %v", n.Name(), got, want[n])
						}
						for _, v := range nn.Float64s(n.Value().(*tensor.Dense)) {
							if v != v || v > 1e300 || v < -1e300 {
								t.Fatalf("%s: value %v is not finite", n.Name(), v)
							}
						}
					}
				}
				n := 0
				if p, ok := s.(position.Parameterized); ok {
					seen := map[string]bool{}
					for _, pr := range p.Params() {
						if seen[pr.Name] || len(pr.Name) < 5 || pr.Name[:4] != "pos." {
							t.Errorf("parameter name %q: want unique names starting pos.", pr.Name)
						}
						seen[pr.Name] = true
						n += pr.Value.Shape().TotalSize()
					}
				}
				if got := position.ParamCount(position.Spec{Kind: kind}, dims); got != n {
					t.Errorf("the registry counts %d parameters, the scheme has %d", got, n)
				}
				if tb, ok := s.(position.Tabler); ok {
					tab, err := tb.Table(7)
					if err != nil {
						t.Fatal(err)
					}
					if len(tab.Rows) != 7 || len(tab.Columns) == 0 {
						t.Fatalf("Table(7): %d rows, columns %v", len(tab.Rows), tab.Columns)
					}
					for _, row := range tab.Rows {
						if len(row) != len(tab.Columns) {
							t.Fatalf("a row of %d values for %d columns", len(row), len(tab.Columns))
						}
					}
				}
				for _, o := range position.Options(kind) {
					if o.Doc == "" {
						t.Errorf("option %s has no doc", o.Key)
					}
					if _, ok := (position.Spec{Kind: kind}).Option(o.Key); !ok {
						t.Errorf("option %s has no value by default", o.Key)
					}
				}
				if position.Doc(kind) == "" {
					t.Error("no Doc")
				}
				rs, err := position.New(position.Spec{Kind: kind, Randomized: true, MaxRandom: 64}, dims)
				if (err == nil) != position.Randomizable(kind) {
					t.Errorf("randomized: %v, but Randomizable is %v", err, position.Randomizable(kind))
				}
				// One mechanism: a randomizable scheme samples exactly when asked to.
				if sm, ok := s.(position.Sampler); ok {
					if _, on := sm.Randomization(); on {
						t.Error("samples positions without position.randomized")
					}
				}
				if err == nil {
					if r, on := rs.(position.Sampler).Randomization(); !on || r.MaxRandom != 64 {
						t.Errorf("randomized: Randomization() = %+v, %v", r, on)
					}
					if rs.(position.LengthChecker).CheckPositions(65) == nil {
						t.Error("randomized: 65 positions accepted with max_random 64")
					}
				}
			})
		}
	}
}

// biasShape is the shape a logit bias may have: per pair [H, T, T], or by distance [H, 2T−1]
// or [B·H, 2T−1] (one table per sequence); the one of bias's rank and size.
func biasShape(bias *G.Node, B, H, T int) []int {
	switch s := bias.Shape(); {
	case len(s) == 3:
		return []int{H, T, T}
	case s[0] == B*H && B > 1:
		return []int{B * H, 2*T - 1}
	}
	return []int{H, 2*T - 1}
}

// TestConformanceBiasGradient checks, for every registered scheme whose logit bias has
// trainable parameters, the gradient of Σ bias∘R (R random) with respect to those parameters
// against central finite differences in float64, causal and bidirectional, with the parameters
// moved off their initial values.
func TestConformanceBiasGradient(t *testing.T) {
	const T, D, H = 7, 8, 2
	for _, kind := range position.Kinds() {
		for _, bidir := range []bool{false, true} {
			dims := position.Dims{DModel: D, Heads: H, Dtype: tensor.Float64, Seed: 2, Bidirectional: bidir, Digit0: 2}
			s, err := position.New(position.Spec{Kind: kind}, dims)
			if err != nil {
				continue // a scheme may refuse the bidirectional form, with an error TestConformance checks
			}
			lb, isBias := s.(position.LogitBiaser)
			pp, isParam := s.(position.Parameterized)
			if !isBias || !isParam {
				continue
			}
			t.Run(fmt.Sprintf("%s/bidirectional=%v", kind, bidir), func(t *testing.T) {
				checkBiasGradient(t, lb, pp, H, T)
			})
		}
	}
}

// checkBiasGradient checks the gradient of Σ bias∘R (R random, length T) with respect to the
// scheme's parameters against central finite differences in float64, after moving the
// parameters off their initial values.
func checkBiasGradient(t *testing.T, lb position.LogitBiaser, pp position.Parameterized, H, T int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, p := range pp.Params() {
		d := p.Value.Data().([]float64)
		for i := range d {
			d[i] += 0.3 * rng.NormFloat64()
		}
	}
	b := nn.NewBuilder(tensor.Float64)
	var nodes []*G.Node
	for _, p := range pp.Params() {
		n, err := b.Param(p)
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	pos, _ := b.Input("pos", T)
	bias, err := lb.LogitBias(position.Ctx{B: b, Batch: 1, Len: T, Pos: pos, MaxPos: T})
	if err != nil {
		t.Fatal(err)
	}
	shape := biasShape(bias, 1, H, T)
	r := make([]float64, tensor.Shape(shape).TotalSize())
	for i := range r {
		r[i] = rng.NormFloat64()
	}
	rn, _ := b.Const("R", tensor.New(tensor.WithShape(shape...), tensor.WithBacking(r)))
	loss := G.Must(G.Sum(G.Must(G.HadamardProd(bias, rn))))
	grads, err := G.Grad(loss, nodes...)
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(b.G)
	defer vm.Close()
	run := func() (float64, error) {
		vm.Reset()
		if err := vm.RunAll(); err != nil {
			return 0, err
		}
		return loss.Value().Data().(float64), nil
	}
	if _, err := run(); err != nil {
		t.Fatal(err)
	}
	for i, p := range pp.Params() {
		analytic := append([]float64(nil), grads[i].Value().Data().([]float64)...)
		num, err := gradcheck.Numeric(run, p.Value.Data().([]float64), gradcheck.DefaultStep)
		if err != nil {
			t.Fatal(err)
		}
		e := gradcheck.RelErr(analytic, num)
		t.Logf("%s: relative gradient error %.3g", p.Name, e)
		if !(e < 1e-7) {
			t.Errorf("%s: relative gradient error %.3g ≥ 1e-7", p.Name, e)
		}
	}
}
