package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/posformer/posformer/internal/gradcheck"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// quadPair is a test PairFunc with every kind of dependence: bias[h] = θ[h]·(i−j)² + θ[H+h]·sin(i)
// + θ[2H]·θ[h]·j.
type quadPair struct{ h int }

func (q quadPair) Heads() int { return q.h }
func (q quadPair) Bias(th []float64, i, j int, out []float64) {
	for h := range out {
		d := float64(i - j)
		out[h] = th[h]*d*d + th[q.h+h]*math.Sin(float64(i)) + th[2*q.h]*th[h]*float64(j)
	}
}
func (q quadPair) BiasGrad(th []float64, i, j int, g, dth []float64) {
	for h := range g {
		d := float64(i - j)
		dth[h] += g[h] * (d*d + th[2*q.h]*float64(j))
		dth[q.h+h] += g[h] * math.Sin(float64(i))
		dth[2*q.h] += g[h] * th[h] * float64(j)
	}
}

// TestPairBias checks PairBias's values entry by entry (0 above the diagonal when causal) and
// its gradient against central finite differences in float64, causal and bidirectional.
func TestPairBias(t *testing.T) {
	const H, T = 3, 6
	for _, causal := range []bool{true, false} {
		rng := rand.New(rand.NewPCG(21, 22))
		theta := make([]float64, 2*H+1)
		for i := range theta {
			theta[i] = rng.NormFloat64()
		}
		r := make([]float64, H*T*T)
		for i := range r {
			r[i] = rng.NormFloat64()
		}
		g := G.NewGraph()
		tn := G.NewTensor(g, tensor.Float64, 1, G.WithShape(len(theta)), G.WithValue(tensor.New(tensor.WithShape(len(theta)), tensor.WithBacking(theta))), G.WithName("theta"))
		f := quadPair{H}
		out, err := PairBias(tn, f, T, causal)
		if err != nil {
			t.Fatal(err)
		}
		rn := G.NewTensor(g, tensor.Float64, 3, G.WithShape(H, T, T), G.WithValue(tensor.New(tensor.WithShape(H, T, T), tensor.WithBacking(r))), G.WithName("R"))
		loss := G.Must(G.Sum(G.Must(G.HadamardProd(out, rn))))
		grads, err := G.Grad(loss, tn)
		if err != nil {
			t.Fatal(err)
		}
		vm := G.NewTapeMachine(g)
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
		got := out.Value().Data().([]float64)
		b := make([]float64, H)
		for i := 0; i < T; i++ {
			for j := 0; j < T; j++ {
				f.Bias(theta, i, j, b)
				for h := 0; h < H; h++ {
					want := b[h]
					if causal && j > i {
						want = 0
					}
					if got[(h*T+i)*T+j] != want {
						t.Fatalf("causal %v: out[%d,%d,%d] = %v, want %v", causal, h, i, j, got[(h*T+i)*T+j], want)
					}
				}
			}
		}
		analytic := append([]float64(nil), grads[0].Value().Data().([]float64)...)
		num, err := gradcheck.Numeric(run, theta, gradcheck.DefaultStep)
		if err != nil {
			t.Fatal(err)
		}
		e := gradcheck.RelErr(analytic, num)
		t.Logf("PairBias (causal %v): relative gradient error %.3g", causal, e)
		if !(e < 1e-8) {
			t.Errorf("PairBias gradient (causal %v): relative error %.3g ≥ 1e-8", causal, e)
		}
		vm.Close()
	}
}

// distPair is a test PairFunc of i − j only: bias[h] = θ[h]·sin(d) + θ[H+h]·d² + θ[h]·θ[H+h].
type distPair struct{ h int }

func (q distPair) Heads() int { return q.h }
func (q distPair) Bias(th []float64, i, j int, out []float64) {
	d := float64(i - j)
	for h := range out {
		out[h] = th[h]*math.Sin(d) + th[q.h+h]*d*d + th[h]*th[q.h+h]
	}
}
func (q distPair) BiasGrad(th []float64, i, j int, g, dth []float64) {
	d := float64(i - j)
	for h := range g {
		dth[h] += g[h] * (math.Sin(d) + th[q.h+h])
		dth[q.h+h] += g[h] * (d*d + th[h])
	}
}

// TestDistanceBias: the table by distance holds f's bias of distance d at d + T − 1 (0 for
// d < 0 when causal), and its gradient matches central finite differences in float64.
func TestDistanceBias(t *testing.T) {
	const H, T = 2, 6
	for _, causal := range []bool{true, false} {
		rng := rand.New(rand.NewPCG(41, 42))
		theta := randn(rng, 2*H, 1)
		f := distPair{H}
		checkOp(t, "DistanceBias", []input{{[]int{2 * H}, theta, true}}, func(in []*G.Node) (*G.Node, error) {
			return DistanceBias(in[0], f, T, causal)
		})
		g := G.NewGraph()
		tn := G.NewTensor(g, tensor.Float64, 1, G.WithShape(2*H), G.WithValue(tensor.New(tensor.WithShape(2*H), tensor.WithBacking(theta))), G.WithName("theta"))
		out, err := DistanceBias(tn, f, T, causal)
		if err != nil {
			t.Fatal(err)
		}
		vm := G.NewTapeMachine(g)
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		got := out.Value().Data().([]float64)
		b := make([]float64, H)
		for d := -(T - 1); d < T; d++ {
			f.Bias(theta, max(d, 0), max(-d, 0), b)
			for h := 0; h < H; h++ {
				want := b[h]
				if causal && d < 0 {
					want = 0
				}
				if x := got[h*(2*T-1)+d+T-1]; x != want {
					t.Fatalf("causal %v: distance %d head %d: %v, want %v", causal, d, h, x, want)
				}
			}
		}
		vm.Close()
	}
}
